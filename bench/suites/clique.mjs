#!/usr/bin/env node
/**
 * Clique: signed transfers in, receipts out, on a one-signer Clique node sealing a block every second
 * (Alder), against Ganache, Hardhat's node and anvil automining the same signed transfers; then `blocks import`
 * of Alder's sealed chain into a fresh directory with every Clique rule checked.
 *
 *   node bench/suites/clique.mjs [--txs=3000] [--senders=30] [--no-peers] [--keep]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToHex } from '@ethereumjs/util';
import { createCommon, parseGenesis } from '../../dist/config/genesis.js';
import { encodeExtraData } from '../../dist/consensus/clique/extraData.js';
import { customCrypto } from '../../dist/crypto/index.js';
import { addressOf, keccak256, LONDON_AT_GENESIS } from '../genchain.mjs';
import {
  BIN,
  chainStats,
  fmt,
  freePort,
  killAll,
  log,
  parseOptions,
  rpc,
  run,
  start,
  startAnvilPeer,
  startGanachePeer,
  startHardhatPeer,
  stop,
  table,
  waitForRpc,
} from '../lib.mjs';

const opt = parseOptions({ txs: 3000, senders: 30, 'no-peers': false, keep: false });
const CHAIN_ID = 31_415;
const key = (name) => keccak256(new TextEncoder().encode(`alder bench clique ${name}`));
const signer = key('signer');
const senders = Array.from({ length: opt.senders }, (_, i) => key(`sender ${i}`));
const RECIPIENT = '0x00000000000000000000000000000000000b0b00';

function genesis() {
  const extra = encodeExtraData(new Uint8Array(), [addressOf(signer).toString()]);
  return {
    config: {
      chainId: CHAIN_ID,
      ...LONDON_AT_GENESIS,
      clique: { blockperiodseconds: 1, epochlength: 30000 },
    },
    gasLimit: '0x1c9c380',
    difficulty: '0x1',
    extraData: bytesToHex(extra),
    alloc: Object.fromEntries(
      senders.map((k) => [addressOf(k).toString(), { balance: '0xd3c21bcecceda1000000' }]),
    ),
  };
}

/** The same signed transfers for every target, senders taking turns. */
function signTransfers(spec) {
  const common = createCommon(spec, { customCrypto: customCrypto() });
  const nonces = senders.map(() => 0n);
  const raws = [];
  for (let i = 0; i < opt.txs; i++) {
    const s = i % senders.length;
    const tx = createFeeMarket1559Tx(
      {
        chainId: BigInt(CHAIN_ID),
        nonce: nonces[s]++,
        maxFeePerGas: 100_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
        gasLimit: 21_000n,
        to: RECIPIENT,
        value: 1n,
      },
      { common },
    ).sign(senders[s]);
    raws.push({
      raw: bytesToHex(tx.serialize()),
      hash: bytesToHex(tx.hash()),
      last: i >= opt.txs - senders.length,
    });
  }
  return raws;
}

/**
 * Each sender sends its own transfers in nonce order (as a wallet does), all senders at once; then
 * waits for the receipts of each sender's last one. Transfers per second.
 */
async function throughput(url, txs) {
  const bySender = senders.map((_, s) => txs.filter((_, i) => i % senders.length === s));
  const t0 = performance.now();
  await Promise.all(
    bySender.map(async (list) => {
      for (const t of list) await rpc(url, 'eth_sendRawTransaction', [t.raw]);
    }),
  );
  const pending = new Set(txs.filter((t) => t.last).map((t) => t.hash));
  const deadline = Date.now() + 300_000;
  while (pending.size > 0) {
    if (Date.now() > deadline) throw new Error(`${pending.size} receipts missing after 300 s`);
    for (const h of [...pending]) if (await rpc(url, 'eth_getTransactionReceipt', [h])) pending.delete(h);
    if (pending.size > 0) await new Promise((r) => setTimeout(r, 100));
  }
  return txs.length / ((performance.now() - t0) / 1000);
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'alder-bench-clique-'));
  try {
    const spec = genesis();
    const genesisFile = join(work, 'genesis.json');
    writeFileSync(genesisFile, JSON.stringify(spec));
    const txs = signTransfers(parseGenesis(spec));
    const rows = [];

    const dataPath = join(work, 'alder');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dataPath);
    writeFileSync(join(dataPath, 'key'), bytesToHex(signer));
    const port = await freePort();
    const gen = `--genesis-file=${genesisFile}`;
    const alder = start(process.execPath, [
      BIN,
      gen,
      `--data-path=${dataPath}`,
      '--p2p-enabled=false',
      '--rpc-http-enabled',
      '--rpc-http-host=127.0.0.1',
      `--rpc-http-port=${port}`,
      `--tx-pool-max-size=${opt.txs * 2}`,
    ]);
    const url = `http://127.0.0.1:${port}`;
    await waitForRpc(url, alder);
    log(`alder clique: ${opt.txs} transfers`);
    const alderRate = await throughput(url, txs);
    const head = BigInt(await rpc(url, 'eth_blockNumber'));
    await stop(alder);
    rows.push(['Alder (Clique, 1 s period)', fmt(alderRate), '1.00']);

    if (!opt['no-peers']) {
      const keys = senders.map((k) => bytesToHex(k));
      for (const [name, startPeer] of [
        ['Ganache (automine)', () => startGanachePeer({ keys, chainId: CHAIN_ID })],
        ['Hardhat node (automine)', () => startHardhatPeer(work, { keys, chainId: CHAIN_ID })],
        ['anvil (automine)', () => startAnvilPeer({ keys, chainId: CHAIN_ID })],
      ]) {
        log(`${name}: ${opt.txs} transfers`);
        const peer = await startPeer();
        try {
          const rate = await throughput(peer.url, txs);
          rows.push([name, fmt(rate), fmt(alderRate / rate, 2)]);
        } finally {
          await stop(peer.proc);
        }
      }
    }

    const file = join(work, 'clique.rlp');
    await run(process.execPath, [
      BIN,
      gen,
      `--data-path=${dataPath}`,
      'blocks',
      'export',
      '--start-block=1',
      `--end-block=${head + 1n}`,
      `--to=${file}`,
    ]);
    const stats = chainStats(file);
    log(`import of ${stats.blocks} Clique blocks`);
    const t0 = performance.now();
    await run(process.execPath, [
      BIN,
      gen,
      `--data-path=${join(work, 'imported')}`,
      'blocks',
      'import',
      `--from=${file}`,
    ]);
    const seconds = (performance.now() - t0) / 1000;

    process.stdout.write(
      [
        '## Clique',
        '',
        `${opt.txs} signed EIP-1559 transfers from ${opt.senders} senders sending at once, each in nonce order; rate = transfers / time until the last receipt. Alder seals a block per second (the block period), the peers mine each transaction as it arrives. Machine shared with other work: figures are noisy.`,
        '',
        table(['target', 'transfers/s', 'Alder ÷ target'], rows),
        '',
        `Import of Alder's sealed chain (\`blocks import\`, every Clique rule and state root checked): ${stats.blocks} blocks, ${stats.txs} transactions, ${fmt(stats.gas / 1e6, 1)} Mgas in ${fmt(seconds, 1)} s wall time including process start-up = ${fmt(stats.txs / seconds)} tx/s, ${fmt(stats.gas / 1e6 / seconds, 1)} Mgas/s.`,
        '',
      ].join('\n'),
    );
  } finally {
    if (opt.keep) log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`clique bench failed: ${err.stack ?? err}\n`);
  killAll();
  process.exit(1);
});
