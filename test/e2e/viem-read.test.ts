/**
 * A dapp's view of an imported chain: viem's public client over HTTP reads blocks, balances,
 * transactions, receipts and logs of the rpc-compat chain, and gets the answers geth recorded.
 */
import { join } from 'node:path';
import { createPublicClient, defineChain, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE, type NodeProcess, removeDir, runCli, startNode, tempDir } from '../helpers/node.js';

const rc = join(CONFORMANCE, 'rpc-compat');
const HEAD_HASH = '0xd226371d0b1551adb03fb52b71f08e3e11247fe9b1af994768af8cdaa8e7dcd7';

describe('viem against an imported chain', () => {
  let dir: string;
  let node: NodeProcess;
  let client: ReturnType<typeof createPublicClient>;

  beforeAll(async () => {
    dir = tempDir();
    const genesis = `--genesis-file=${join(rc, 'genesis.json')}`;
    await runCli([
      genesis,
      `--data-path=${dir}`,
      'blocks',
      'import',
      `--from=${join(rc, 'chain.rlp')}`,
      '--skip-pow-validation-enabled',
    ]);
    node = await startNode([genesis, `--data-path=${dir}`]);
    const chain = defineChain({
      id: 3503995874084926,
      name: 'rpc-compat',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    });
    client = createPublicClient({ chain, transport: http(node.url) });
  });
  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });

  it('reads the chain id and head', async () => {
    expect(await client.getChainId()).toBe(3503995874084926);
    expect(await client.getBlockNumber()).toBe(54n);
    const head = await client.getBlock();
    expect(head.hash).toBe(HEAD_HASH);
    expect(head.number).toBe(54n);
  });

  it('reads a block with full transactions and their receipts', async () => {
    const block = await client.getBlock({ blockNumber: 54n, includeTransactions: true });
    expect(block.transactions.length).toBeGreaterThan(0);
    const tx = block.transactions[0];
    expect(tx.blockHash).toBe(HEAD_HASH);
    const receipt = await client.getTransactionReceipt({ hash: tx.hash });
    expect(receipt.blockHash).toBe(HEAD_HASH);
    expect(receipt.transactionIndex).toBe(0);
    expect(['success', 'reverted']).toContain(receipt.status);
    const again = await client.getTransaction({ hash: tx.hash });
    expect(again.from).toBe(tx.from);
  });

  it('reads balances at different blocks', async () => {
    const sender = '0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f';
    const now = await client.getBalance({ address: sender });
    const atGenesis = await client.getBalance({ address: sender, blockNumber: 0n });
    expect(atGenesis).toBeGreaterThan(now);
    expect(await client.getTransactionCount({ address: sender })).toBeGreaterThan(0);
  });

  it('reads logs over a block range', async () => {
    const logs = await client.getLogs({ fromBlock: 3n, toBlock: 12n });
    expect(logs.length).toBeGreaterThan(0);
    for (const log of logs) {
      expect(log.blockNumber).toBeGreaterThanOrEqual(3n);
      expect(log.blockNumber).toBeLessThanOrEqual(12n);
      const receipt = await client.getTransactionReceipt({ hash: log.transactionHash });
      expect(receipt.logs.some((l) => l.logIndex === log.logIndex)).toBe(true);
    }
  });

  it('returns null for unknown things', async () => {
    await expect(client.getBlock({ blockNumber: 1000n })).rejects.toThrow();
    const zero = `0x${'00'.repeat(32)}` as const;
    await expect(client.getTransactionReceipt({ hash: zero })).rejects.toThrow();
  });
});
