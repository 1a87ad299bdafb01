/**
 * web3.js v4 as a dapp uses it against `alder --network=dev` with mining on: an account in the
 * wallet deploys a contract, sends transfers and contract calls (send() resolves on the receipt),
 * reads events through getPastEvents (eth_getLogs), decodes a revert reason, and sees balances and
 * nonces move.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Contract, Web3 } from 'web3';
import {
  DEV_ADDRESSES,
  DEV_KEYS,
  type DevNode,
  STORE_ABI,
  startDevNode,
  storeBytecode,
  VALUE_SET_TOPIC,
} from '../helpers/devNetwork.js';

describe('web3.js v4 on the dev network', () => {
  let node: DevNode;
  let web3: Web3;
  let from: string;
  let store: Contract<typeof STORE_ABI>;
  const other = DEV_ADDRESSES.a;

  beforeAll(async () => {
    node = await startDevNode();
    web3 = new Web3(node.url);
    web3.eth.transactionPollingInterval = 200;
    web3.eth.transactionReceiptPollingInterval = 200;
    web3.eth.transactionConfirmationBlocks = 1;
    web3.eth.transactionPollingTimeout = 90_000;
    from = web3.eth.accounts.wallet.add(DEV_KEYS.c)[0]?.address as string;
  });
  afterAll(async () => {
    await node?.close();
  });

  it('reads the dev chain', async () => {
    expect(await web3.eth.getChainId()).toBe(1337n);
    expect(await web3.eth.net.getId()).toBe(2018n);
    expect(await web3.eth.getBalance(from)).toBe(web3.utils.toBigInt(web3.utils.toWei('90000', 'ether')));
    expect(await web3.eth.getTransactionCount(from)).toBe(0n);
  });

  it('deploys the contract and reads its view', async () => {
    const deployed = await new web3.eth.Contract(STORE_ABI).deploy({ data: storeBytecode() }).send({ from });
    expect(deployed.options.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    store = deployed as unknown as Contract<typeof STORE_ABI>;
    expect(await store.methods.value().call()).toBe(7n);
    expect(await web3.eth.getTransactionCount(from)).toBe(1n);
  });

  it('sends a transfer: balances and nonces move', async () => {
    const value = web3.utils.toBigInt(web3.utils.toWei('2', 'ether'));
    const before = await web3.eth.getBalance(other);
    const senderBefore = await web3.eth.getBalance(from);
    const nonce = await web3.eth.getTransactionCount(from);
    const receipt = await web3.eth.sendTransaction({ from, to: other, value });
    expect(receipt.status).toBe(1n);
    expect(receipt.gasUsed).toBe(21000n);
    expect(await web3.eth.getBalance(other)).toBe(before + value);
    const fee = web3.utils.toBigInt(receipt.gasUsed) * web3.utils.toBigInt(receipt.effectiveGasPrice);
    expect(await web3.eth.getBalance(from)).toBe(senderBefore - value - fee);
    expect(await web3.eth.getTransactionCount(from)).toBe(nonce + 1n);
    expect(await web3.eth.getTransactionCount(from, 'pending')).toBe(nonce + 1n);
    const tx = await web3.eth.getTransaction(receipt.transactionHash);
    expect(tx.blockHash).toBe(receipt.blockHash);
    expect(tx.nonce).toBe(nonce);
  });

  it('calls the contract and reads its event with getPastEvents', async () => {
    const receipt = await store.methods.set(42n).send({ from });
    expect(receipt.status).toBe(1n);
    expect(receipt.logs).toHaveLength(1);
    expect(receipt.logs[0]?.topics?.[0]).toBe(VALUE_SET_TOPIC);
    expect(await store.methods.value().call()).toBe(42n);
    const events = (await store.getPastEvents('ValueSet', {
      fromBlock: 0,
      toBlock: 'latest',
    })) as unknown as Array<{
      returnValues: { by: string; value: bigint };
      transactionHash: string;
      blockNumber: bigint;
    }>;
    expect(events).toHaveLength(1);
    expect(events[0]?.returnValues.by.toLowerCase()).toBe(from.toLowerCase());
    expect(events[0]?.returnValues.value).toBe(42n);
    expect(events[0]?.transactionHash).toBe(receipt.transactionHash);
    expect(events[0]?.blockNumber).toBe(receipt.blockNumber);
    const filtered = await store.getPastEvents('ValueSet', { filter: { by: other }, fromBlock: 0 });
    expect(filtered).toHaveLength(0);
    const logs = await web3.eth.getPastLogs({
      address: store.options.address,
      topics: [VALUE_SET_TOPIC],
      fromBlock: 0,
      toBlock: 'latest',
    });
    expect(logs).toHaveLength(1);
  });

  it('decodes a revert reason', async () => {
    let caught: unknown;
    try {
      await store.methods.set(0n).call({ from });
    } catch (err) {
      caught = err;
    }
    const inner = (caught as { cause?: { message?: string; data?: string } }).cause;
    expect(inner?.message).toMatch(/zero/);
    const reason = web3.eth.abi.decodeParameter('string', `0x${inner?.data?.slice(10)}`);
    expect(reason).toBe('zero');
    // sent anyway with a fixed gas limit: mined as failed, and the nonce moves
    const nonce = await web3.eth.getTransactionCount(from);
    let mined: unknown;
    try {
      await store.methods.set(0n).send({ from, gas: '100000' });
    } catch (err) {
      mined = err;
    }
    expect((mined as { receipt?: { status: bigint } }).receipt?.status).toBe(0n);
    expect(await web3.eth.getTransactionCount(from)).toBe(nonce + 1n);
    expect(await store.methods.value().call()).toBe(42n);
  });
});
