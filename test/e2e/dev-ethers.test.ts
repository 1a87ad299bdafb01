/**
 * ethers v6 as a dapp uses it against `alder --network=dev` with mining on: a Wallet deploys a
 * contract through a ContractFactory, sends transfers and contract calls, waits for receipts, reads
 * events through queryFilter (eth_getLogs) and contract.on (a polled eth_newFilter), decodes a revert
 * reason, and sees balances and nonces move.
 */
import {
  type Contract,
  ContractFactory,
  type ContractTransactionResponse,
  isCallException,
  JsonRpcProvider,
  Network,
  parseEther,
  Wallet,
} from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEV_ADDRESSES,
  DEV_CHAIN_ID,
  DEV_KEYS,
  type DevNode,
  STORE_ABI,
  startDevNode,
  storeBytecode,
} from '../helpers/devNetwork.js';

type Store = Contract & {
  value(): Promise<bigint>;
  set: ((v: bigint, overrides?: object) => Promise<ContractTransactionResponse>) & {
    staticCall(v: bigint): Promise<void>;
  };
};

describe('ethers v6 on the dev network', () => {
  let node: DevNode;
  let provider: JsonRpcProvider;
  let wallet: Wallet;
  let store: Store;
  const other = DEV_ADDRESSES.b;

  beforeAll(async () => {
    node = await startDevNode();
    const network = Network.from(DEV_CHAIN_ID);
    provider = new JsonRpcProvider(node.url, network, { staticNetwork: network, pollingInterval: 200 });
    wallet = new Wallet(DEV_KEYS.a, provider);
  });
  afterAll(async () => {
    provider?.destroy();
    await node?.close();
  });

  it('reads the dev chain', async () => {
    expect((await provider.getNetwork()).chainId).toBe(1337n);
    expect(await provider.getBalance(wallet.address)).toBe(parseEther('200'));
    expect(await provider.getTransactionCount(wallet.address)).toBe(0);
  });

  it('deploys the contract and reads its view', async () => {
    const factory = new ContractFactory(STORE_ABI, storeBytecode(), wallet);
    const deployed = await factory.deploy();
    const deployTx = deployed.deploymentTransaction();
    expect(deployTx?.from).toBe(wallet.address);
    await deployed.waitForDeployment();
    store = deployed as unknown as Store;
    const receipt = await deployTx?.wait();
    expect(receipt?.status).toBe(1);
    expect(receipt?.contractAddress).toBe(await store.getAddress());
    expect(await store.value()).toBe(7n);
    expect(await provider.getTransactionCount(wallet.address, 'latest')).toBe(1);
  });

  it('sends a transfer: balances and nonces move', async () => {
    const before = await provider.getBalance(other);
    const senderBefore = await provider.getBalance(wallet.address);
    const nonce = await provider.getTransactionCount(wallet.address);
    const tx = await wallet.sendTransaction({ to: other, value: parseEther('0.25') });
    expect(tx.nonce).toBe(nonce);
    // straight to the node: ethers answers a repeated getTransactionCount from a 250 ms cache, and
    // its own nonce look-up while sending was that same call
    expect(BigInt(await provider.send('eth_getTransactionCount', [wallet.address, 'pending']))).toBe(
      BigInt(nonce + 1),
    );
    const seen = await provider.getTransaction(tx.hash);
    expect(seen?.hash).toBe(tx.hash);
    const receipt = await tx.wait(1, 90_000);
    expect(receipt?.status).toBe(1);
    expect(receipt?.gasUsed).toBe(21000n);
    // ethers answers a request repeated within 250 ms from its own cache, and the node can mine
    // and report the transfer sooner than that: wait the cache out before reading again.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await provider.getBalance(other)).toBe(before + parseEther('0.25'));
    const fee = (receipt?.gasUsed ?? 0n) * (receipt?.gasPrice ?? 0n);
    expect(await provider.getBalance(wallet.address)).toBe(senderBefore - parseEther('0.25') - fee);
    expect(await provider.getTransactionCount(wallet.address)).toBe(nonce + 1);
    // The next send asks for the pending nonce again: not from the cache either.
    await new Promise((resolve) => setTimeout(resolve, 300));
  });

  it('calls the contract and reads its event through eth_getLogs', async () => {
    const tx = await store.set(42n);
    const receipt = await tx.wait(1, 90_000);
    expect(receipt?.status).toBe(1);
    expect(await store.value()).toBe(42n);
    const events = await store.queryFilter(store.filters.ValueSet(), 0);
    expect(events).toHaveLength(1);
    const ev = events[0] as unknown as {
      args: [string, bigint];
      transactionHash: string;
      blockNumber: number;
    };
    expect(ev.args[0]).toBe(wallet.address);
    expect(ev.args[1]).toBe(42n);
    expect(ev.transactionHash).toBe(tx.hash);
    expect(ev.blockNumber).toBe(receipt?.blockNumber);
    const byTopic = await store.queryFilter(store.filters.ValueSet(wallet.address), receipt?.blockNumber);
    expect(byTopic.map((e) => e.transactionHash)).toEqual([tx.hash]);
    const nobody = await store.queryFilter(store.filters.ValueSet(other), 0);
    expect(nobody).toHaveLength(0);
  });

  it('listens to the event with contract.on (polled filter)', async () => {
    const seen: bigint[] = [];
    const listener = (_by: string, value: bigint) => {
      seen.push(value);
    };
    await store.on('ValueSet', listener);
    try {
      // let the listener install its filter before the event happens
      await new Promise((r) => setTimeout(r, 1000));
      // Explicit nonces: ethers answers a repeated nonce look-up from its 250 ms cache, so two sends in a
      // row could both take the first one.
      const nonce = Number(await provider.send('eth_getTransactionCount', [wallet.address, 'pending']));
      const sent = [await store.set(5n, { nonce }), await store.set(6n, { nonce: nonce + 1 })];
      for (const tx of sent) await tx.wait(1, 90_000);
      const deadline = Date.now() + 30_000;
      while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    } finally {
      await store.off('ValueSet', listener);
    }
    expect(seen).toEqual([5n, 6n]);
  });

  it('decodes a revert reason', async () => {
    let caught: unknown;
    try {
      await store.set.staticCall(0n);
    } catch (err) {
      caught = err;
    }
    expect(isCallException(caught)).toBe(true);
    expect((caught as { reason: string }).reason).toBe('zero');
    // estimateGas reverts the same way before anything is sent
    let estimate: unknown;
    try {
      await store.set(0n);
    } catch (err) {
      estimate = err;
    }
    expect(isCallException(estimate)).toBe(true);
    expect((estimate as { reason: string }).reason).toBe('zero');
    // sent anyway with a fixed gas limit: mined as failed, and the nonce moves
    const nonce = await provider.getTransactionCount(wallet.address);
    const tx = await store.set(0n, { gasLimit: 100_000n });
    let mined: unknown;
    try {
      await tx.wait(1, 90_000);
    } catch (err) {
      mined = err;
    }
    expect(isCallException(mined)).toBe(true);
    expect((mined as { receipt: { status: number } }).receipt.status).toBe(0);
    // The nonce was read just before sending, and the failed transaction can be mined and reported
    // within ethers' 250 ms request cache: wait it out before reading the nonce again.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await provider.getTransactionCount(wallet.address)).toBe(nonce + 1);
    expect(await store.value()).toBe(6n);
  });
});
