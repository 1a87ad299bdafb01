/**
 * `alder --network=pos-dev` under viem: a post-merge chain with every fork at genesis, blocks made
 * through the engine path by the built-in consensus driver as transactions arrive. Bytecode that only
 * runs from Cancun on (PUSH0, MCOPY, TSTORE/TLOAD) deploys and answers; `safe` and `finalized` follow
 * the head.
 */
import { createPublicClient, createWalletClient, defineChain, type Hex, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type NodeProcess, removeDir, startNode, tempDir } from '../helpers/node.js';

const KEY = '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63';
// Runtime: MSTORE 0x2a; MCOPY it to 32; MLOAD 32; TSTORE slot 0; TLOAD slot 0; MSTORE at 0; RETURN 32
// bytes. Init code: CODECOPY the 23-byte runtime (PUSH0 as the zero offset) and return it.
const RUNTIME = '602a5f5260205f60205e6020515f5d5f5c5f5260205ff3';
const INIT = `0x6017600a5f3960175ff3${RUNTIME}` as Hex;

describe('viem on --network=pos-dev', () => {
  let node: NodeProcess;
  let dir: string;
  const account = privateKeyToAccount(KEY);
  let pub: ReturnType<typeof createPublicClient>;
  let wallet: ReturnType<typeof createWalletClient>;

  beforeAll(async () => {
    dir = tempDir('alder-posdev-');
    node = await startNode([
      '--network=pos-dev',
      `--data-path=${dir}`,
      `--engine-rpc-port=${await freePort()}`,
    ]);
    const chain = defineChain({
      id: 1337,
      name: 'alder-pos-dev',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    });
    pub = createPublicClient({ chain, transport: http(node.url), pollingInterval: 100 });
    wallet = createWalletClient({ chain, transport: http(node.url), account, pollingInterval: 100 });
  }, 60_000);

  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });

  it('deploys Cancun bytecode (PUSH0, MCOPY, transient storage) and calls it', async () => {
    const hash = await wallet.deployContract({ abi: [], bytecode: INIT, account, chain: wallet.chain });
    const receipt = await pub.waitForTransactionReceipt({ hash, timeout: 20_000 });
    expect(receipt.status).toBe('success');
    const address = receipt.contractAddress as Hex;
    expect(await pub.getCode({ address })).toBe(`0x${RUNTIME}`);
    const { data } = await pub.call({ to: address });
    expect(BigInt(data as Hex)).toBe(42n);
    const block = await pub.getBlock({ blockNumber: receipt.blockNumber });
    expect(block.difficulty).toBe(0n);
    expect(block.parentBeaconBlockRoot).toMatch(/^0x[0-9a-f]{64}$/);
    expect(block.requestsHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('makes a block for each transaction; safe and finalized follow the head', async () => {
    // Not viem's cached number: it may still be the one seen before the previous test's block.
    const before = await pub.getBlockNumber({ cacheTime: 0 });
    const hash = await wallet.sendTransaction({
      to: '0x627306090abaB3A6e1400e9345bC60c78a8BEf57',
      value: parseEther('1'),
      account,
      chain: wallet.chain,
    });
    const receipt = await pub.waitForTransactionReceipt({ hash, timeout: 20_000 });
    expect(receipt.blockNumber).toBe(before + 1n);
    const finalized = await pub.getBlock({ blockTag: 'finalized' });
    const safe = await pub.getBlock({ blockTag: 'safe' });
    expect(finalized.number).toBe(receipt.blockNumber);
    expect(safe.number).toBe(receipt.blockNumber);
  });
});
