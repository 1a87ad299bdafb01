/**
 * BFT blocks that execute transactions, on a QBFT chain with Shanghai and Cancun from genesis: the
 * builder's header fields (empty withdrawals, blob gas, beacon root, BFT constants), the block reward
 * and fees paid to the mining beneficiary and COINBASE reading it, a transition that clears the
 * beneficiary (the proposer is paid again), and Prague blocks with execution requests — each block
 * imported on a second node with the same state root.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Block } from '@ethereumjs/block';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BFT_MIX_HASH } from '../../src/consensus/bft/rules.js';
import { sha256 } from '../../src/crypto/index.js';
import { SHARED } from '../helpers/node.js';
import {
  type BftTestChain,
  bftGenesis,
  FUNDED,
  openBftChain,
  sealsBy,
  type TestKey,
  testKey,
  validatorKeys,
} from './helpers.js';

const V = validatorKeys(4, 'exec');
const [V0, V1, V2] = V as [TestKey, TestKey, TestKey];
const BENEFICIARY = testKey('beneficiary').address;
const RECORDER = '0x00000000000000000000000000000000000c01b5';
const EMPTY_TRIE = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
const REWARD = 5n * 10n ** 18n;
const GWEI = 10n ** 9n;

describe('QBFT blocks with transactions, Shanghai and Cancun', () => {
  let a: BftTestChain;
  let b: BftTestChain;
  beforeAll(async () => {
    const genesis = bftGenesis(
      'qbft',
      V.map((v) => v.address),
      { blockreward: `0x${REWARD.toString(16)}`, miningbeneficiary: BENEFICIARY },
      {
        config: {
          shanghaiTime: 0,
          cancunTime: 0,
          transitions: { qbft: [{ block: 2, miningbeneficiary: '', blockreward: '7' }] },
        },
        // COINBASE PUSH1 0 SSTORE: records who COINBASE is.
        alloc: { [RECORDER]: { balance: '0x0', code: '0x4160005500' } },
      },
    );
    a = await openBftChain(genesis, V0);
    b = await openBftChain(genesis, V1);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  async function sendTx(nonce: number): Promise<void> {
    const tx = createFeeMarket1559Tx(
      {
        chainId: 4343,
        nonce,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: 2n * GWEI,
        gasLimit: 60000,
        to: RECORDER,
      },
      { common: a.backend.services.common },
    ).sign(FUNDED.key);
    await a.backend.services.txPool?.add(tx, true);
  }

  async function produce(): Promise<Block> {
    const chain = a.backend.services.chain;
    const parent = chain.headHeader();
    const built = await a.creator.createBlock(parent, 0, parent.timestamp + 1n);
    const sealed = a.creator.seal(built.block, sealsBy(a.engine, built.block, [V0, V1, V2]));
    expect(await a.creator.commit(sealed, built)).toBe('imported');
    expect(await b.backend.services.importer.importBlock(sealed)).toBe('imported');
    expect(bytesToHex(b.backend.services.chain.headHeader().stateRoot)).toBe(
      bytesToHex(sealed.header.stateRoot),
    );
    return sealed;
  }

  async function balance(chain: BftTestChain, address: string): Promise<bigint> {
    const state = chain.backend.services.world.at(chain.backend.services.chain.headHeader().stateRoot);
    return (await state.getAccount(createAddressFromString(address)))?.balance ?? 0n;
  }

  async function recorded(chain: BftTestChain): Promise<string> {
    const state = chain.backend.services.world.at(chain.backend.services.chain.headHeader().stateRoot);
    const v = await state.getStorage(createAddressFromString(RECORDER), new Uint8Array(32));
    return bytesToHex(v);
  }

  it('builds Cancun blocks with BFT constants that another node imports with the same state', async () => {
    await sendTx(0);
    const one = await produce();
    const h = one.header;
    expect(one.transactions).toHaveLength(1);
    expect(bytesToHex(h.mixHash)).toBe(BFT_MIX_HASH);
    expect(h.difficulty).toBe(1n);
    expect(bytesToHex(h.nonce)).toBe('0x0000000000000000');
    expect(bytesToHex(h.withdrawalsRoot as Uint8Array)).toBe(EMPTY_TRIE);
    expect(one.withdrawals).toEqual([]);
    expect(h.blobGasUsed).toBe(0n);
    expect(h.excessBlobGas).toBe(0n);
    expect(bytesToHex(h.parentBeaconBlockRoot as Uint8Array)).toBe(bytesToHex(new Uint8Array(32)));
    expect(h.coinbase.toString()).toBe(V0.address);
  });

  it('pays reward and fees to the mining beneficiary, which COINBASE reads', async () => {
    const one = a.backend.services.chain.getBlockByNumber(1n) as Block;
    const gasUsed = one.header.gasUsed;
    for (const chain of [a, b]) {
      expect(await balance(chain, BENEFICIARY)).toBe(REWARD + gasUsed * 2n * GWEI);
      expect(await balance(chain, V0.address)).toBe(0n);
      expect(await recorded(chain)).toBe(bytesToHex(hexToBytes(BENEFICIARY as `0x${string}`)));
    }
  });

  it('pays the proposer once a transition clears the beneficiary', async () => {
    await sendTx(1);
    const two = await produce();
    const fees = two.header.gasUsed * 2n * GWEI;
    for (const chain of [a, b]) {
      expect(await balance(chain, V0.address)).toBe(7n + fees);
      expect(await recorded(chain)).toBe(bytesToHex(hexToBytes(V0.address as `0x${string}`)));
    }
  });
});

describe('QBFT blocks on Prague', () => {
  // The system contracts (EIP-2935, 4788, 7002, 7251) as deployed in the shared Besu conformance genesis.
  const shared = JSON.parse(
    readFileSync(join(SHARED, 'conformance/besu/eth/simulateV1/chain-data/genesis.json'), 'utf8'),
  ) as { alloc: Record<string, { code?: string }> };
  const system = Object.fromEntries(
    Object.entries(shared.alloc)
      .filter(([address, acc]) => acc.code && address !== '7dcd17433742f4c0ca53122ab541d0ba67fc27df')
      .map(([address, acc]) => [address, { balance: '0x0', code: acc.code, nonce: '0x1' }]),
  );
  const WITHDRAWAL_REQUESTS = '0x00000961ef480eb55e80d19ad83579a64c007002';
  let a: BftTestChain;
  let b: BftTestChain;
  beforeAll(async () => {
    const genesis = bftGenesis(
      'qbft',
      V.map((v) => v.address),
      {},
      { config: { shanghaiTime: 0, cancunTime: 0, pragueTime: 0 }, alloc: system },
    );
    a = await openBftChain(genesis, V0);
    b = await openBftChain(genesis, V1);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('builds blocks with execution requests that another node imports', async () => {
    // A withdrawal request (48-byte public key, 8-byte amount) paying the 1 wei fee.
    const data = hexToBytes(`0x${'ab'.repeat(48)}${'00'.repeat(7)}01`);
    const tx = createFeeMarket1559Tx(
      {
        chainId: 4343,
        nonce: 0,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: 1n,
        gasLimit: 300000,
        to: WITHDRAWAL_REQUESTS,
        value: 1n,
        data,
      },
      { common: a.backend.services.common },
    ).sign(FUNDED.key);
    await a.backend.services.txPool?.add(tx, true);
    for (let i = 0; i < 2; i++) {
      const parent = a.backend.services.chain.headHeader();
      const built = await a.creator.createBlock(parent, 0, parent.timestamp + 1n);
      const sealed = a.creator.seal(built.block, sealsBy(a.engine, built.block, [V0, V1, V2]));
      expect(await a.creator.commit(sealed, built)).toBe('imported');
      expect(await b.backend.services.importer.importBlock(sealed)).toBe('imported');
      const empty = bytesToHex(sha256(new Uint8Array()));
      // Block 1 carries the request; block 2 none.
      if (i === 0) {
        expect(sealed.transactions).toHaveLength(1);
        expect(bytesToHex(sealed.header.requestsHash as Uint8Array)).not.toBe(empty);
      } else expect(bytesToHex(sealed.header.requestsHash as Uint8Array)).toBe(empty);
    }
  });
});
