/**
 * A Clique node as users run it: the built CLI with the node key as the only signer seals blocks,
 * includes transactions (fees to the signer), votes a second signer in through clique_propose, and its
 * exported chain imports elsewhere with full validation; tampered blocks are refused.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBlockFromBytesArray, createBlockFromRLP } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { createPublicClient, http, parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { readBlockFile } from '../../src/chain/rlpFile.js';
import { createCommon, parseGenesis } from '../../src/config/genesis.js';
import { withSeal } from '../../src/consensus/clique/extraData.js';
import { sealHash, signSeal } from '../../src/consensus/clique/seal.js';
import { customCrypto } from '../../src/crypto/index.js';
import {
  type NodeProcess,
  removeDir,
  rpc,
  runCli,
  runCliStatus,
  startNode,
  tempDir,
} from '../helpers/node.js';
import { COINBASE_RECORDER, cliqueGenesis, FUNDED, type TestKey, testKey } from './helpers.js';

const A = testKey('a');
const B = testKey('b');
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const API = '--rpc-http-api=ETH,NET,WEB3,CLIQUE,TXPOOL';

const dirs: string[] = [];
const nodes: NodeProcess[] = [];
afterAll(async () => {
  for (const n of nodes) await n.stop();
  for (const d of dirs) removeDir(d);
});

function dataDir(key?: TestKey): string {
  const d = tempDir('alder-clique-');
  dirs.push(d);
  if (key) writeFileSync(join(d, 'key'), hex(key.key));
  return d;
}

function genesisFile(dir: string, genesis: object): string {
  const f = join(dir, 'genesis.json');
  writeFileSync(f, JSON.stringify(genesis));
  return f;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const blockNumber = async (url: string) => BigInt(await rpc<string>(url, 'eth_blockNumber'));

async function sendTransfer(
  url: string,
  nonce: number,
  to = '0x00000000000000000000000000000000000c0ffe',
  gas = 21000n,
): Promise<string> {
  const account = privateKeyToAccount(hex(FUNDED.key) as `0x${string}`);
  const raw = await account.signTransaction({
    chainId: 4242,
    type: 'eip1559',
    nonce,
    to: to as `0x${string}`,
    value: 1000n,
    gas,
    maxFeePerGas: parseGwei('20'),
    maxPriorityFeePerGas: parseGwei('2'),
  });
  return rpc<string>(url, 'eth_sendRawTransaction', [raw]);
}

/** Re-seals block `index` of an RLP file after `edit` changes its header fields. */
function resealed(
  file: string,
  genesis: object,
  index: number,
  key: TestKey,
  edit: (h: Uint8Array[]) => void,
) {
  const common = createCommon(parseGenesis(genesis), { customCrypto: customCrypto() });
  const blocks = [...readBlockFile(file)].map((b) => b.rlp);
  const block = createBlockFromRLP(blocks[index] as Uint8Array, { common, setHardfork: true });
  const raw = block.raw() as unknown as [Uint8Array[], ...unknown[]];
  edit(raw[0]);
  const unsealed = createBlockFromBytesArray(raw as never, { common, skipConsensusFormatValidation: true });
  raw[0][12] = withSeal(unsealed.header.extraData, signSeal(sealHash(unsealed.header), key.key));
  blocks[index] = RLP.encode(raw as never);
  return Buffer.concat(blocks.slice(0, index + 1));
}

describe('Clique node (CLI)', () => {
  it('seals, includes transactions, votes in a second signer, and its chain imports elsewhere', async () => {
    const genesis = cliqueGenesis([A.address], { blockperiodseconds: 1 });
    const dir = dataDir(A);
    const gen = `--genesis-file=${genesisFile(dir, genesis)}`;
    const node = await startNode([gen, `--data-path=${dir}`, API]);
    nodes.push(node);
    const url = node.url;

    await until('two sealed blocks', async () => ((await blockNumber(url)) >= 2n ? true : undefined));
    const b1 = await rpc<Record<string, string>>(url, 'eth_getBlockByNumber', ['0x1', false]);
    expect(b1.difficulty).toBe('0x2');
    expect(b1.miner).toBe('0x0000000000000000000000000000000000000000');
    expect(b1.mixHash).toBe(`0x${'00'.repeat(32)}`);
    expect((b1.extraData.length - 2) / 2).toBe(97);
    expect(Number(b1.timestamp)).toBeGreaterThanOrEqual(1);

    // A transaction lands in a block; the priority fee goes to the signer, not the coinbase.
    const txHash = await sendTransfer(url, 0);
    const receipt = await until(
      'the receipt',
      async () =>
        (await rpc<Record<string, string> | null>(url, 'eth_getTransactionReceipt', [txHash])) ?? undefined,
    );
    expect(receipt.status).toBe('0x1');
    const client = createPublicClient({ transport: http(url) });
    const signerBalance = await client.getBalance({
      address: A.address as `0x${string}`,
      blockNumber: BigInt(receipt.blockNumber),
    });
    expect(signerBalance).toBe(21000n * parseGwei('2'));

    // COINBASE is the signer (the fee recipient), not the header's coinbase (the vote).
    const recorded = await sendTransfer(url, 1, COINBASE_RECORDER, 60000n);
    await until(
      'the COINBASE receipt',
      async () =>
        (await rpc<Record<string, string> | null>(url, 'eth_getTransactionReceipt', [recorded])) ?? undefined,
    );
    const slot = await rpc<string>(url, 'eth_getStorageAt', [COINBASE_RECORDER, '0x0', 'latest']);
    expect(slot).toBe(`0x${A.address.slice(2).padStart(64, '0')}`);

    // Vote B in: one signer is a majority of one.
    expect(await rpc(url, 'clique_propose', [B.address, true])).toBe(true);
    expect(await rpc(url, 'clique_proposals')).toEqual({ [B.address]: true });
    const both = [A.address, B.address].sort();
    await until('B to become a signer', async () => {
      const s = await rpc<string[]>(url, 'clique_getSigners', ['latest']);
      return s.length === 2 ? s : undefined;
    });
    expect(await rpc(url, 'clique_getSigners')).toEqual(both);
    const head = await blockNumber(url);
    const voteBlock = await rpc<Record<string, string>>(url, 'eth_getBlockByNumber', [
      `0x${head.toString(16)}`,
      false,
    ]);
    expect(voteBlock.miner).toBe(B.address);
    expect(voteBlock.nonce).toBe('0xffffffffffffffff');
    expect(await rpc(url, 'clique_getSignersAtHash', [voteBlock.hash])).toEqual(both);
    expect(await rpc(url, 'clique_getSignersAtHash', [voteBlock.parentHash])).toEqual([A.address]);

    // With two signers A may not seal twice in a row, and B is offline: the chain waits.
    await new Promise((r) => setTimeout(r, 2500));
    expect(await blockNumber(url)).toBe(head);
    expect(await rpc(url, 'clique_discard', [B.address])).toBe(true);
    expect(await rpc(url, 'clique_proposals')).toEqual({});

    const metrics = await rpc<Array<Record<string, string>>>(url, 'clique_getSignerMetrics', ['0x1']);
    const byAddress = Object.fromEntries(metrics.map((m) => [m.address, m]));
    expect(byAddress[A.address]).toEqual({
      address: A.address,
      proposedBlockCount: `0x${(head - 1n).toString(16)}`,
      lastProposedBlockNumber: `0x${(head - 1n).toString(16)}`,
    });
    // `to` is exclusive and defaults to the head, so the range ends before B joined.
    expect(byAddress[B.address]).toBeUndefined();
    const headHash = voteBlock.hash;
    await node.stop();

    // Export, then import into a fresh directory with full validation.
    const file = join(dir, 'chain.rlp');
    await runCli([
      gen,
      `--data-path=${dir}`,
      'blocks',
      'export',
      '--start-block=0',
      `--end-block=${head + 1n}`,
      `--to=${file}`,
    ]);
    const other = dataDir();
    const imported = await runCli([gen, `--data-path=${other}`, 'blocks', 'import', `--from=${file}`]);
    expect(imported.stdout).toContain(`head is block ${head} ${headHash}`);

    // Tampered copies of block 1, re-sealed so only the tampered rule fails.
    const wrongDifficulty = join(dir, 'difficulty.rlp');
    writeFileSync(
      wrongDifficulty,
      resealed(file, genesis, 1, A, (h) => {
        h[7] = Uint8Array.of(1);
      }),
    );
    let r = await runCliStatus([
      gen,
      `--data-path=${dataDir()}`,
      'blocks',
      'import',
      `--from=${wrongDifficulty}`,
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Invalid block 1 .*difficulty 1 does not match expected 2/);

    const wrongSigner = join(dir, 'signer.rlp');
    writeFileSync(
      wrongSigner,
      resealed(file, genesis, 1, B, () => {}),
    );
    r = await runCliStatus([gen, `--data-path=${dataDir()}`, 'blocks', 'import', `--from=${wrongSigner}`]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`sealer ${B.address} is not an authorised signer`);
  }, 120_000);

  it('creates its node key in Besu format and, not being a signer, seals nothing', async () => {
    const dir = dataDir();
    const node = await startNode([
      `--genesis-file=${genesisFile(dir, cliqueGenesis([A.address]))}`,
      `--data-path=${dir}`,
      API,
    ]);
    nodes.push(node);
    expect(readFileSync(join(dir, 'key'), 'utf8')).toMatch(/^0x[0-9a-f]{64}$/);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await blockNumber(node.url)).toBe(0n);
    await node.stop();
  }, 60_000);

  it('waits for a transaction when createemptyblocks is false', async () => {
    const dir = dataDir(A);
    const genesis = cliqueGenesis([A.address], { blockperiodseconds: 1, createemptyblocks: false });
    const node = await startNode([`--genesis-file=${genesisFile(dir, genesis)}`, `--data-path=${dir}`, API]);
    nodes.push(node);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await blockNumber(node.url)).toBe(0n);
    const txHash = await sendTransfer(node.url, 0);
    await until('block 1', async () => ((await blockNumber(node.url)) === 1n ? true : undefined));
    const block = await rpc<{ transactions: string[] }>(node.url, 'eth_getBlockByNumber', ['0x1', false]);
    expect(block.transactions).toEqual([txHash]);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await blockNumber(node.url)).toBe(1n);
    await node.stop();
  }, 60_000);

  it('refuses a Clique genesis whose extraData lists no signers', async () => {
    const dir = dataDir();
    const genesis = { ...cliqueGenesis([A.address]), extraData: `0x${'00'.repeat(32)}` };
    const r = await runCliStatus([
      `--genesis-file=${genesisFile(dir, genesis)}`,
      `--data-path=${dir}`,
      'blocks',
      'export',
      `--to=${join(dir, 'out.rlp')}`,
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'Clique checkpoint block 0: extraData is 32 bytes, fewer than the 97 of vanity and seal',
    );
  });
});
