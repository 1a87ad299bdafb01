/**
 * Writes a long synthetic chain straight into an Alder data directory, for the log bloom cache
 * benchmark and tests: a post-merge genesis (Cancun from genesis), then empty blocks whose header
 * blooms carry three pseudo-random values each (the bits a few logs would set), and every `rareEvery`
 * blocks one signed transaction whose receipt holds a log with `RARE_TOPIC`. Blocks are stored through
 * Alder's own ChainStore (dist/) in batches, without execution: the chain serves reads (headers,
 * receipts, eth_getLogs) but its state and transaction roots are not those of executed blocks.
 *
 *   node bench/longchain.mjs --blocks=1000000 --data-path=DIR   (writes DIR and DIR/genesis.json)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBlock } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { createLegacyTx } from '@ethereumjs/tx';
import { hexToBytes, utf8ToBytes } from '@ethereumjs/util';
import { ChainStore } from '../dist/chain/chainStore.js';
import { initGenesis } from '../dist/chain/genesis.js';
import { createCommon, genesisHeaderFields, parseGenesis } from '../dist/config/genesis.js';
import { customCrypto, keccak256 } from '../dist/crypto/index.js';
import { Database, metaKey, numberKey } from '../dist/db/database.js';
import { TrieStore } from '../dist/state/trieStore.js';
import { WorldState } from '../dist/state/worldState.js';
import { CANCUN_AT_GENESIS } from './genchain.mjs';

export const RARE_TOPIC = keccak256(utf8ToBytes('alder-bench-rare-topic'));
export const RARE_ADDRESS = hexToBytes('0x00000000000000000000000000000000000a11ce');
const KEY = keccak256(utf8ToBytes('alder-bench-longchain-key'));

export const LONGCHAIN_GENESIS = {
  config: { chainId: 4242, ...CANCUN_AT_GENESIS },
  nonce: '0x0',
  timestamp: '0x0',
  extraData: '0x',
  gasLimit: '0x1c9c380',
  difficulty: '0x0',
  mixHash: `0x${'00'.repeat(32)}`,
  coinbase: `0x${'00'.repeat(20)}`,
  baseFeePerGas: '0x7',
  alloc: {},
};

function addToBloom(bloom, value) {
  const h = keccak256(value);
  for (let i = 0; i < 3; i++) {
    const bit = ((h[2 * i] << 8) | h[2 * i + 1]) & 2047;
    bloom[255 - (bit >> 3)] |= 1 << (bit & 7);
  }
}

/**
 * Writes `blocks` blocks after the genesis into `dataPath` (created), the genesis file beside them.
 * Returns the genesis file path and the numbers of the blocks holding the rare log.
 */
export async function writeLongChain({
  dataPath,
  blocks,
  rareEvery = 100_000,
  rareOffset = 54_321,
  batch = 5000,
  onProgress,
}) {
  mkdirSync(dataPath, { recursive: true });
  const genesisFile = join(dataPath, 'genesis.json');
  writeFileSync(genesisFile, JSON.stringify(LONGCHAIN_GENESIS, null, 2));
  const spec = parseGenesis(LONGCHAIN_GENESIS);
  const common = createCommon(spec, { customCrypto: customCrypto() });
  const db = Database.open(join(dataPath, 'database'));
  const rare = [];
  try {
    const chain = new ChainStore(db, common);
    const world = new WorldState(new TrieStore(db), common);
    let parent = await initGenesis(chain, world, { header: genesisHeaderFields(spec), alloc: new Map() });
    const td = chain.getTotalDifficulty(parent.hash()) ?? 0n;
    const emptyReceipts = [];
    let nonce = 0n;
    for (let start = 1; start <= blocks; start += batch) {
      const b = chain.newBatch();
      let last;
      for (let n = start; n < start + batch && n <= blocks; n++) {
        const bloom = new Uint8Array(256);
        for (let k = 0; k < 3; k++) addToBloom(bloom, utf8ToBytes(`noise-${n}-${k}`));
        const carrier = n % rareEvery === rareOffset % rareEvery;
        let transactions = [];
        let receipts = emptyReceipts;
        if (carrier) {
          addToBloom(bloom, RARE_ADDRESS);
          addToBloom(bloom, RARE_TOPIC);
          const tx = createLegacyTx(
            { nonce: nonce++, gasPrice: 10n, gasLimit: 21000n, to: RARE_ADDRESS, value: 0n },
            { common },
          ).sign(KEY);
          transactions = [tx];
          const receiptBloom = new Uint8Array(256);
          addToBloom(receiptBloom, RARE_ADDRESS);
          addToBloom(receiptBloom, RARE_TOPIC);
          receipts = [
            RLP.encode([
              Uint8Array.of(1),
              21000n,
              receiptBloom,
              [[RARE_ADDRESS, [RARE_TOPIC], Uint8Array.of(n & 0xff)]],
            ]),
          ];
          rare.push(n);
        }
        const block = createBlock(
          {
            header: {
              parentHash: parent.hash(),
              number: BigInt(n),
              timestamp: BigInt(n * 12),
              gasLimit: 30_000_000n,
              gasUsed: carrier ? 21000n : 0n,
              baseFeePerGas: 7n,
              logsBloom: bloom,
              withdrawalsRoot: parent.header.withdrawalsRoot,
              parentBeaconBlockRoot: new Uint8Array(32),
            },
            transactions,
            withdrawals: [],
          },
          { common, skipConsensusFormatValidation: true },
        );
        chain.putBlock(b, block, td, receipts, carrier ? [transactions[0].getSenderAddress()] : []);
        // The canonical and transaction indexes as ChainStore.setHead writes them for a linear chain.
        const hash = block.hash();
        b.put('canonical', numberKey(BigInt(n)), hash);
        if (carrier) {
          const idx = new Uint8Array(36);
          idx.set(hash, 0);
          b.put('txIndex', transactions[0].hash(), idx);
        }
        parent = block;
        last = block;
      }
      b.put('meta', metaKey('head'), last.hash());
      db.commit(b);
      onProgress?.(Math.min(start + batch - 1, blocks), blocks);
    }
  } finally {
    await db.close();
  }
  return { genesisFile, rare };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name, dflt) => {
    const a = process.argv.find((x) => x.startsWith(`--${name}=`));
    return a ? a.slice(name.length + 3) : dflt;
  };
  const blocks = Number(arg('blocks', '1000000'));
  const dataPath = arg('data-path', join(process.env.TMPDIR ?? '/tmp', 'alder-longchain'));
  const started = Date.now();
  let lastPrint = 0;
  const { genesisFile, rare } = await writeLongChain({
    dataPath,
    blocks,
    onProgress: (done, total) => {
      if (Date.now() - lastPrint > 5000) {
        lastPrint = Date.now();
        console.log(
          `${done}/${total} blocks, ${Math.round(done / ((Date.now() - started) / 1000))} blocks/s`,
        );
      }
    },
  });
  console.log(
    `wrote ${blocks} blocks to ${dataPath} in ${((Date.now() - started) / 1000).toFixed(1)} s; genesis ${genesisFile}; rare log in blocks ${rare.join(',')}`,
  );
}
