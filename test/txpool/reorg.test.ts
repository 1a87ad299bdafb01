import type { Block } from '@ethereumjs/block';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { createFeeMarket1559Tx, type TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, bytesToHex, hexToBytes, privateToAddress } from '@ethereumjs/util';
import { buildBlock, createVM, type VM } from '@ethereumjs/vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LONDON_AT_GENESIS } from '../../bench/genchain.mjs';
import type { TestChain } from '../methods/chain.js';
import { openPoolChain, removeGenesisFile, writeGenesisFile } from './helpers.js';

const K1 = hexToBytes(`0x${'44'.repeat(32)}`);
const K2 = hexToBytes(`0x${'55'.repeat(32)}`);
const A1 = bytesToHex(privateToAddress(K1));
const A2 = bytesToHex(privateToAddress(K2));
const TO = `0x${'bb'.repeat(20)}` as const;
const GWEI = 10n ** 9n;
const FUNDS = 10n ** 21n;

function genesisFile(): string {
  return writeGenesisFile('alder-reorg-', {
    config: {
      chainId: 1337,
      ...LONDON_AT_GENESIS,
      ethash: {},
    },
    nonce: '0x42',
    timestamp: '0x0',
    extraData: '0x',
    gasLimit: '0x1c9c380',
    difficulty: '0x20000',
    baseFeePerGas: '0x7',
    alloc: {
      [A1]: { balance: `0x${FUNDS.toString(16)}` },
      [A2]: { balance: `0x${FUNDS.toString(16)}` },
    },
  });
}

describe('transactions of blocks a reorg removes', () => {
  let chain: TestChain;
  let vm: VM;
  let genesis: Block;
  const tx = (key: Uint8Array, nonce: number) =>
    createFeeMarket1559Tx(
      { chainId: 1337, nonce, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 21000, to: TO },
      { common: chain.services.common },
    ).sign(key);

  /** Builds a block on `parent` with the block builder over an in-memory copy of the state. */
  async function mine(parent: Block, txs: TypedTransaction[], timestampStep: bigint): Promise<Block> {
    await vm.stateManager.setStateRoot(parent.header.stateRoot);
    const builder = await buildBlock(vm, {
      parentBlock: parent,
      headerData: {
        timestamp: parent.header.timestamp + timestampStep,
        coinbase: `0x${'c0'.repeat(20)}`,
      },
      blockOpts: { calcDifficultyFromHeader: parent.header, putBlockIntoBlockchain: false },
    });
    for (const t of txs) await builder.addTransaction(t);
    const { block } = await builder.build();
    return block;
  }

  beforeAll(async () => {
    const file = genesisFile();
    chain = await openPoolChain({ genesis: file });
    removeGenesisFile(file);
    const s = chain.services;
    genesis = s.chain.getBlock(s.chain.canonicalHash(0n) as Uint8Array) as Block;
    const common = s.common.copy();
    const state = new MerkleStateManager({ common, caches: new Caches() });
    for (const a of [A1, A2]) await state.putAccount(new Address(hexToBytes(a)), new Account(0n, FUNDS));
    await state.flush();
    expect(bytesToHex(await state.getStateRoot())).toBe(bytesToHex(genesis.header.stateRoot));
    // BLOCKHASH is not used by these blocks; the builder only needs something to ask.
    const blockchain = {
      async getBlock() {
        return genesis;
      },
      async putBlock() {},
      shallowCopy() {
        return this;
      },
    };
    vm = await createVM({ common, stateManager: state, blockchain: blockchain as never });
  });
  afterAll(async () => {
    await chain?.close();
  });

  it('re-injects what the new chain lacks and serves it as pending', async () => {
    const s = chain.services;
    const pool = s.txPool!;
    const t1 = tx(K1, 0);
    const t2 = tx(K2, 0);
    for (const t of [t1, t2])
      expect(await chain.call('eth_sendRawTransaction', [bytesToHex(t.serialize())])).toEqual({
        result: bytesToHex(t.hash()),
      });
    expect(pool.size).toBe(2);

    const a1 = await mine(genesis, [t1, t2], 10n);
    expect(await s.importer.importBlock(a1)).toBe('imported');
    await pool.settled();
    expect(bytesToHex(s.chain.head().hash)).toBe(bytesToHex(a1.hash()));
    expect(pool.size).toBe(0);
    expect((await chain.call('eth_getTransactionCount', [A1, 'pending'])).result).toBe('0x1');

    // The side chain: b1 holds only t2; b2 makes it heavier than a1.
    const b1 = await mine(genesis, [t2], 12n);
    const b2 = await mine(b1, [], 12n);
    expect(await s.importer.importBlock(b1)).toBe('imported');
    await pool.settled();
    expect(bytesToHex(s.chain.head().hash)).toBe(bytesToHex(a1.hash()));
    expect(await s.importer.importBlock(b2)).toBe('imported');
    await pool.settled();
    expect(bytesToHex(s.chain.head().hash)).toBe(bytesToHex(b2.hash()));

    expect(pool.size).toBe(1);
    expect(pool.get(t1.hash())?.local).toBe(true);
    expect(pool.get(t2.hash())).toBeUndefined();

    const pending = (await chain.call('eth_getTransactionByHash', [bytesToHex(t1.hash())])).result;
    expect(pending).toMatchObject({
      hash: bytesToHex(t1.hash()),
      from: A1,
      nonce: '0x0',
      blockHash: null,
      blockNumber: null,
      transactionIndex: null,
    });
    expect((await chain.call('eth_getTransactionReceipt', [bytesToHex(t1.hash())])).result).toBeNull();
    expect((await chain.call('eth_getTransactionCount', [A1, 'latest'])).result).toBe('0x0');
    expect((await chain.call('eth_getTransactionCount', [A1, 'pending'])).result).toBe('0x1');

    const mined = (await chain.call('eth_getTransactionReceipt', [bytesToHex(t2.hash())])).result as {
      blockHash: string;
    };
    expect(mined.blockHash).toBe(bytesToHex(b1.hash()));
    expect((await chain.call('eth_getTransactionCount', [A2, 'pending'])).result).toBe('0x1');
    const status = (await chain.call('txpool_status')).result;
    expect(status).toEqual({ pending: '0x1', queued: '0x0' });
  });
});
