/**
 * Fork choice on import: two proof-of-work chains from one genesis; importing the one with more total
 * difficulty moves the canonical number index, the transaction index and the head, and importing the
 * first one again (grown heavier) moves them back. Blocks of the losing branch stay readable by hash.
 */
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountKey, addressOf, type GeneratedChain, generateChain } from '../../bench/genchain.mjs';
import { keccak256 } from '../../src/crypto/index.js';
import { removeDir, rpc, runCli, startNode, tempDir } from '../helpers/node.js';

interface RpcBlock {
  number: string;
  hash: string;
  transactions: Array<{ hash: string }>;
}
interface RpcTx {
  hash: string;
  blockHash: string | null;
  blockNumber: string | null;
}
interface RpcLog {
  blockHash: string;
}

describe('side-chain import reorganises the canonical chain', () => {
  const dirs: string[] = [];
  let shortA: GeneratedChain;
  let heavierB: GeneratedChain;
  let longA: GeneratedChain;
  let data: string;
  let genesis: string;

  beforeAll(async () => {
    const gen = (blocks: number, seed: number) => {
      const out = tempDir();
      dirs.push(out);
      return generateChain({ blocks, txsPerBlock: 4, accounts: 8, pow: true, seed, outDir: out });
    };
    // Same seed, same prefix: the 7-block chain A extends the 3-block chain A.
    shortA = await gen(3, 1);
    heavierB = await gen(5, 2);
    longA = await gen(7, 1);
    data = tempDir();
    dirs.push(data);
    genesis = `--genesis-file=${shortA.genesisPath}`;
  });
  afterAll(() => {
    for (const d of dirs) removeDir(d);
  });

  const importFile = (file: string) =>
    runCli([
      genesis,
      `--data-path=${data}`,
      'blocks',
      'import',
      `--from=${file}`,
      '--skip-pow-validation-enabled',
    ]);

  async function withNode<T>(fn: (url: string) => Promise<T>): Promise<T> {
    const node = await startNode([genesis, `--data-path=${data}`]);
    try {
      return await fn(node.url);
    } finally {
      await node.stop();
    }
  }

  /** The head state read through the flat tables (eth_getBalance) equals the trie's (eth_getProof). */
  async function checkHeadState(url: string): Promise<void> {
    const head = await rpc<{ stateRoot: string }>(url, 'eth_getBlockByNumber', ['latest', false]);
    for (let i = 0; i < 8; i++) {
      const address = addressOf(accountKey(i)).toString();
      const proof = await rpc<{ balance: string; nonce: string; accountProof: string[] }>(
        url,
        'eth_getProof',
        [address, [], 'latest'],
      );
      expect(bytesToHex(keccak256(hexToBytes(proof.accountProof[0] as `0x${string}`)))).toBe(head.stateRoot);
      expect(await rpc(url, 'eth_getBalance', [address, 'latest'])).toBe(proof.balance);
      expect(await rpc(url, 'eth_getTransactionCount', [address, 'latest'])).toBe(proof.nonce);
    }
  }

  const canonical = (url: string, n: number) =>
    rpc<RpcBlock>(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);

  it('follows the heavier chain and back, keeping every index consistent', async () => {
    expect(shortA.genesisHash).toBe(heavierB.genesisHash);
    expect(longA.genesisHash).toBe(shortA.genesisHash);

    // A fresh data directory builds its (genesis) flat tables once.
    const first = await importFile(shortA.chainPath);
    expect(first.stdout + first.stderr).toMatch(/Building the flat state/);
    const a = await withNode(async (url) => {
      const blocks = [await canonical(url, 1), await canonical(url, 2), await canonical(url, 3)];
      expect(blocks[2].hash).toBe(shortA.headHash);
      return blocks;
    });
    const aTx = a[1].transactions[0].hash;

    // Chain B: 5 blocks of difficulty 100 outweigh A's 3.
    // The importing process moves the flat tables through the reorganisation itself: the next process
    // finds them at the head and has nothing to build.
    await importFile(heavierB.chainPath);
    const b = await withNode(async (url) => {
      await checkHeadState(url);
      const head = await rpc<RpcBlock>(url, 'eth_getBlockByNumber', ['latest', false]);
      expect(head.hash).toBe(heavierB.headHash);
      expect(await rpc(url, 'eth_blockNumber')).toBe('0x5');
      const blocks = [];
      for (let n = 1; n <= 5; n++) blocks.push(await canonical(url, n));
      for (let n = 0; n < 3; n++) expect(blocks[n].hash).not.toBe(a[n].hash);

      // A's transaction left the index; B's transactions point into B's blocks.
      expect(await rpc(url, 'eth_getTransactionByHash', [aTx])).toBeNull();
      expect(await rpc(url, 'eth_getTransactionReceipt', [aTx])).toBeNull();
      const bTx = blocks[1].transactions[0].hash;
      const tx = await rpc<RpcTx>(url, 'eth_getTransactionByHash', [bTx]);
      expect(tx.blockHash).toBe(blocks[1].hash);
      expect(tx.blockNumber).toBe('0x2');

      // The losing branch is still stored and readable by hash.
      const old = await rpc<RpcBlock>(url, 'eth_getBlockByHash', [a[1].hash, false]);
      expect(old.hash).toBe(a[1].hash);

      // Logs come from canonical blocks only.
      const logs = await rpc<RpcLog[]>(url, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x5' }]);
      expect(logs.length).toBeGreaterThan(0);
      const canonicalHashes = new Set(blocks.map((x) => x.hash));
      for (const l of logs) expect(canonicalHashes.has(l.blockHash)).toBe(true);
      return blocks;
    });

    // Re-importing known blocks changes nothing.
    const again = await importFile(heavierB.chainPath);
    expect(again.stdout).toMatch(/Imported 0 blocks/);
    expect(again.stdout + again.stderr).not.toMatch(/Building the flat state/);

    // A grown to 7 blocks outweighs B: the first three blocks are known, the head moves back to A.
    const grown = await importFile(longA.chainPath);
    expect(grown.stdout).toMatch(/Imported 4 blocks/);
    await withNode(async (url) => {
      await checkHeadState(url);
      const head = await rpc<RpcBlock>(url, 'eth_getBlockByNumber', ['latest', false]);
      expect(head.hash).toBe(longA.headHash);
      for (let n = 1; n <= 3; n++) expect((await canonical(url, n)).hash).toBe(a[n - 1].hash);
      const tx = await rpc<RpcTx>(url, 'eth_getTransactionByHash', [aTx]);
      expect(tx.blockHash).toBe(a[1].hash);
      expect(await rpc(url, 'eth_getTransactionByHash', [b[1].transactions[0].hash])).toBeNull();
    });
  });
});
