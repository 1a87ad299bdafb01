/**
 * viem as a dapp uses it against `alder --network=dev` with mining on: a wallet client with a local
 * account deploys a contract, sends transfers and contract calls, waits for receipts, reads events
 * through eth_getLogs and through a polled filter (watchContractEvent), decodes a revert reason, and
 * sees balances and nonces move.
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type Log,
  parseEther,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEV_ADDRESSES,
  DEV_CHAIN_ID,
  DEV_KEYS,
  type DevNode,
  STORE_ABI,
  startDevNode,
  storeBytecode,
  VALUE_SET_TOPIC,
} from '../helpers/devNetwork.js';

describe('viem on the dev network', () => {
  let node: DevNode;
  const account = privateKeyToAccount(DEV_KEYS.b);
  const other = DEV_ADDRESSES.c;
  let pub: ReturnType<typeof makeClients>['pub'];
  let wallet: ReturnType<typeof makeClients>['wallet'];
  let store: `0x${string}`;

  function makeClients(url: string) {
    const chain = defineChain({
      id: DEV_CHAIN_ID,
      name: 'alder-dev',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [url] } },
    });
    const transport = http(url);
    return {
      pub: createPublicClient({ chain, transport, pollingInterval: 200 }),
      wallet: createWalletClient({ chain, transport, account, pollingInterval: 200 }),
    };
  }
  const receipt = (hash: `0x${string}`) => pub.waitForTransactionReceipt({ hash, timeout: 90_000 });

  beforeAll(async () => {
    node = await startDevNode();
    ({ pub, wallet } = makeClients(node.url));
  });
  afterAll(async () => {
    await node?.close();
  });

  it('reads the dev chain', async () => {
    expect(await pub.getChainId()).toBe(1337);
    expect(await pub.getBalance({ address: account.address })).toBe(parseEther('90000'));
    expect(await pub.getTransactionCount({ address: account.address })).toBe(0);
  });

  it('deploys the contract and reads its view', async () => {
    const hash = await wallet.deployContract({ abi: STORE_ABI, bytecode: storeBytecode() });
    const pending = await pub.getTransaction({ hash });
    expect(pending.from.toLowerCase()).toBe(account.address.toLowerCase());
    const r = await receipt(hash);
    expect(r.status).toBe('success');
    expect(r.contractAddress).toMatch(/^0x[0-9a-f]{40}$/);
    store = r.contractAddress as `0x${string}`;
    expect(await pub.getCode({ address: store })).toMatch(/^0x[0-9a-f]+$/);
    expect(await pub.readContract({ address: store, abi: STORE_ABI, functionName: 'value' })).toBe(7n);
    expect(await pub.getTransactionCount({ address: account.address })).toBe(1);
  });

  it('sends a transfer: balances and nonces move', async () => {
    const before = await pub.getBalance({ address: other });
    const senderBefore = await pub.getBalance({ address: account.address });
    const nonce = await pub.getTransactionCount({ address: account.address });
    const hash = await wallet.sendTransaction({ to: other, value: parseEther('1.5') });
    expect(await pub.getTransactionCount({ address: account.address, blockTag: 'pending' })).toBe(nonce + 1);
    const r = await receipt(hash);
    expect(r.status).toBe('success');
    expect(r.gasUsed).toBe(21000n);
    expect(await pub.getBalance({ address: other })).toBe(before + parseEther('1.5'));
    const fee = r.gasUsed * r.effectiveGasPrice;
    expect(await pub.getBalance({ address: account.address })).toBe(senderBefore - parseEther('1.5') - fee);
    expect(await pub.getTransactionCount({ address: account.address })).toBe(nonce + 1);
    const tx = await pub.getTransaction({ hash });
    expect(tx.blockHash).toBe(r.blockHash);
    expect(tx.nonce).toBe(nonce);
  });

  it('calls the contract, then finds its event through eth_getLogs', async () => {
    const { request } = await pub.simulateContract({
      account,
      address: store,
      abi: STORE_ABI,
      functionName: 'set',
      args: [42n],
    });
    const hash = await wallet.writeContract(request);
    const r = await receipt(hash);
    expect(r.status).toBe('success');
    expect(r.logs).toHaveLength(1);
    expect(r.logs[0]?.topics[0]).toBe(VALUE_SET_TOPIC);
    expect(await pub.readContract({ address: store, abi: STORE_ABI, functionName: 'value' })).toBe(42n);
    const events = await pub.getContractEvents({
      address: store,
      abi: STORE_ABI,
      eventName: 'ValueSet',
      fromBlock: 0n,
    });
    expect(events).toHaveLength(1);
    expect(events[0]?.args).toEqual({ by: account.address, value: 42n });
    expect(events[0]?.transactionHash).toBe(hash);
    expect(events[0]?.blockNumber).toBe(r.blockNumber);
    const byTopic = await pub.getLogs({
      address: store,
      event: STORE_ABI[2],
      args: { by: account.address },
      fromBlock: r.blockNumber,
      toBlock: r.blockNumber,
    });
    expect(byTopic.map((l) => l.transactionHash)).toEqual([hash]);
  });

  it('watches the event with a polled filter', async () => {
    const seen: Log[] = [];
    let failure: Error | undefined;
    const unwatch = pub.watchContractEvent({
      address: store,
      abi: STORE_ABI,
      eventName: 'ValueSet',
      poll: true,
      pollingInterval: 200,
      onLogs: (logs) => seen.push(...logs),
      onError: (err) => {
        failure = err;
      },
    });
    try {
      // let the watcher install its filter before the event happens
      await new Promise((r) => setTimeout(r, 1000));
      const hashes: `0x${string}`[] = [];
      for (const v of [5n, 6n]) {
        hashes.push(
          await wallet.writeContract({ address: store, abi: STORE_ABI, functionName: 'set', args: [v] }),
        );
      }
      for (const h of hashes) await receipt(h);
      const deadline = Date.now() + 30_000;
      while (seen.length < 2 && Date.now() < deadline && !failure)
        await new Promise((r) => setTimeout(r, 200));
    } finally {
      unwatch();
    }
    expect(failure).toBeUndefined();
    expect(seen.map((l) => (l as unknown as { args: { value: bigint } }).args.value)).toEqual([5n, 6n]);
  });

  it('decodes a revert reason', async () => {
    let caught: unknown;
    try {
      await pub.simulateContract({
        account,
        address: store,
        abi: STORE_ABI,
        functionName: 'set',
        args: [0n],
      });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(BaseError);
    const reverted = (caught as BaseError).walk((e) => e instanceof ContractFunctionRevertedError);
    expect(reverted).toBeInstanceOf(ContractFunctionRevertedError);
    expect((reverted as ContractFunctionRevertedError).reason).toBe('zero');
    // A reverted transaction, mined: status reverted, the nonce still moves.
    const nonce = await pub.getTransactionCount({ address: account.address });
    const hash = await wallet.writeContract({
      address: store,
      abi: STORE_ABI,
      functionName: 'set',
      args: [0n],
      gas: 100_000n,
    });
    const r = await receipt(hash);
    expect(r.status).toBe('reverted');
    expect(await pub.getTransactionCount({ address: account.address })).toBe(nonce + 1);
    expect(await pub.readContract({ address: store, abi: STORE_ABI, functionName: 'value' })).toBe(6n);
  });
});
