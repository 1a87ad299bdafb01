/**
 * Block execution on the call interpreter and the own transaction runner (fastCall/blockTx) against
 * the EVM library's `runTx` and EVM, transaction by transaction: a
 * block of generated contract-creation transactions (storage writes, logs, value calls into the
 * contracts created before, inner CREATE and CREATE2 of contracts that store, log, revert or
 * SELFDESTRUCT, SELFDESTRUCT to the caller, to itself, to fresh accounts, 0xEF and empty deployments,
 * reverts and invalid opcodes) is executed on two real LMDB nodes from the same genesis, one with the
 * interpreter and one without. Every receipt (status, cumulative gas, logs, bloom) and the state root
 * must be byte-identical, at London (SELFDESTRUCT deletes), at Cancun (EIP-6780, EIP-3860) and at
 * Prague (EIP-7623's calldata floor). Legacy and EIP-2930 transfers with access lists, and a call whose
 * calldata costs more under the floor than its execution, follow the generated ones.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Block, createBlockHeader } from '@ethereumjs/block';
import { Hardfork } from '@ethereumjs/common';
import {
  createAccessList2930Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from '@ethereumjs/tx';
import {
  Address,
  bigIntToBytes,
  bytesToHex,
  generateAddress,
  hexToBytes,
  privateToAddress,
} from '@ethereumjs/util';
import { encodeReceipt } from '@ethereumjs/vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANCUN_AT_GENESIS, LONDON_AT_GENESIS } from '../../bench/genchain.mjs';
import { ChainStore } from '../../src/chain/chainStore.js';
import { initGenesis } from '../../src/chain/genesis.js';
import { createCommon, genesisHeaderFields, parseGenesis } from '../../src/config/genesis.js';
import { createConsensusEngine } from '../../src/consensus/factory.js';
import { customCrypto } from '../../src/crypto/index.js';
import { Database } from '../../src/db/database.js';
import { runBlockTx } from '../../src/execution/fastCall/blockTx.js';
import { BlockImporter } from '../../src/execution/importer.js';
import { TrieStore } from '../../src/state/trieStore.js';
import { WorldState } from '../../src/state/worldState.js';

const KEY = hexToBytes(`0x${'42'.repeat(32)}`);
const SENDER = new Address(privateToAddress(KEY));
const COINBASE = '0x000000000000000000000000000000000000c0fe';
/** An account with balance and no code, and one with code that only stops. */
const FUNDED = '0x00000000000000000000000000000000000f00d0';
const STOPPER = '0x00000000000000000000000000000000000057a9';
/** An EIP-7702 delegated account (its code points at STOPPER): the interpreter leaves calls to it. */
const DELEGATED = '0x0000000000000000000000000000000000de1e9a';
const TXS = 90;

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

class Asm {
  bytes: number[] = [];
  push(v: bigint | number): this {
    const b = BigInt(v);
    if (b === 0n) {
      this.bytes.push(0x60, 0);
      return this;
    }
    const raw = bigIntToBytes(b);
    this.bytes.push(0x5f + raw.length, ...raw);
    return this;
  }
  /** A PUSH2 of `v` whatever its size (offsets patched in a second pass keep their width). */
  push2(v: number): this {
    this.bytes.push(0x61, (v >> 8) & 0xff, v & 0xff);
    return this;
  }
  op(...ops: number[]): this {
    this.bytes.push(...ops);
    return this;
  }
  code(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

/** Init code that deploys `runtime`. */
function deployer(runtime: Uint8Array): Uint8Array {
  const head = new Asm()
    .push2(runtime.length)
    .push2(15)
    .push(0)
    .op(0x39)
    .push2(runtime.length)
    .push(0)
    .op(0xf3);
  expect(head.bytes.length).toBe(15);
  return Uint8Array.from([...head.bytes, ...runtime]);
}

/** Runtimes the generated contracts deploy (called later with value, or created by inner CREATEs). */
function runtimes(): Uint8Array[] {
  return [
    // counts calls in slot 0, logs the caller, returns
    new Asm()
      .push(0)
      .op(0x54)
      .push(1)
      .op(0x01)
      .push(0)
      .op(0x55)
      .op(0x33)
      .push(0)
      .op(0x52)
      .push(32)
      .push(0)
      .op(0xa0, 0x00)
      .code(),
    // SELFDESTRUCT to the caller
    new Asm().op(0x33, 0xff).code(),
    // SELFDESTRUCT to itself
    new Asm().op(0x30, 0xff).code(),
    // reverts with data
    new Asm().push(0xbadn).push(0).op(0x52).push(32).push(0).op(0xfd).code(),
    // stores the call value, sends half its balance to a fresh account
    new Asm()
      .op(0x34)
      .push(7)
      .op(0x55)
      .push(0)
      .push(0)
      .push(0)
      .push(0)
      .push(2)
      .op(0x47, 0x04)
      .push(0xf4e5)
      .op(0x5a, 0xf1, 0x50)
      .code(),
  ];
}

/** Inner init codes: deployments of the runtimes, and init codes that fail or destroy themselves. */
function initcodes(): Uint8Array[] {
  const deploys = runtimes().map(deployer);
  return [
    ...deploys,
    new Asm().push(1).push(3).op(0x55).op(0x33, 0xff).code(), // stores, then SELFDESTRUCTs in init
    new Asm().push(0xef).push(0).op(0x53).push(1).push(0).op(0xf3).code(), // deploys 0xef
    new Asm().push(0x42).push(0).op(0xa1).push(0).push(0).op(0xfd).code(), // logs, then reverts
    new Asm().op(0xfe).code(), // invalid
    new Uint8Array(0),
  ];
}

/** A contract-creation transaction's init code: random steps, then a deployment or a failure. */
function program(rand: () => number, created: string[]): Uint8Array {
  const children = initcodes();
  const build = (blobStart: number): Asm => {
    const a = new Asm();
    const local = prng(seedFor);
    const pick = <T>(xs: T[]): T => xs[local() % xs.length];
    const steps = 2 + (local() % 8);
    for (let i = 0; i < steps; i++) {
      switch (local() % 7) {
        case 0:
          a.push(local() % 50)
            .push(local() % 4)
            .op(0x55);
          break;
        case 1:
          a.push(local() % 4).op(0x54, 0x50);
          break;
        case 2:
          a.push(local())
            .push(0)
            .op(0x52)
            .push(local() % 3)
            .push(local() % 40)
            .push(0)
            .op(0xa1);
          break;
        case 3: {
          // CALL a created contract, a funded account, a stopper, a precompile or a fresh address
          const targets = [...created, FUNDED, STOPPER, '0x0000000000000000000000000000000000000004'];
          const target =
            local() % 5 === 0
              ? `0x${(0xabc000 + (local() % 50)).toString(16)}`
              : targets[local() % targets.length];
          a.push(0)
            .push(0)
            .push(0)
            .push(0)
            .push(local() % 3 === 0 ? 0 : local() % 1000)
            .push(BigInt(target))
            .op(0x5a, 0xf1, 0x50);
          break;
        }
        case 4:
        case 5: {
          // CREATE or CREATE2 of a child init code copied from the end of this code
          const idx = local() % children.length;
          let offset = blobStart;
          for (let j = 0; j < idx; j++) offset += children[j].length;
          const len = children[idx].length;
          a.push2(len).push2(offset).push(0).op(0x39);
          if (local() % 2 === 0)
            a.push2(len)
              .push(0)
              .push(local() % 100)
              .op(0xf0);
          else
            a.push(local() % 3)
              .push2(len)
              .push(0)
              .push(local() % 100)
              .op(0xf5);
          a.push(local() % 2).op(0x55);
          break;
        }
        default:
          a.push(local() % 300).op(0x31, 0x50);
      }
    }
    const end = local() % 10;
    if (end < 4) {
      const idx = local() % 5;
      let offset = blobStart;
      for (let j = 0; j < idx; j++) offset += children[j].length;
      // the child's runtime sits 15 bytes into its deployer
      const runtime = children[idx].length - 15;
      a.push2(runtime)
        .push2(offset + 15)
        .push(0)
        .op(0x39)
        .push2(runtime)
        .push(0)
        .op(0xf3);
    } else if (end === 4)
      a.push(BigInt(pick([COINBASE, FUNDED, '0x0000000000000000000000000000000000dead01']))).op(0xff);
    else if (end === 5) a.op(0x30, 0xff);
    else if (end === 6) a.push(0).push(0).op(0xfd);
    else if (end === 7) a.op(0xfe);
    else a.op(0x00);
    return a;
  };
  const seedFor = rand();
  const main = build(0);
  const code = build(main.bytes.length);
  expect(code.bytes.length).toBe(main.bytes.length);
  return Uint8Array.from([...code.bytes, ...children.flatMap((c) => [...c])]);
}

interface Node {
  dir: string;
  db: Database;
  importer: BlockImporter;
  chain: ChainStore;
}

async function openNode(genesis: object, useInterpreter: boolean): Promise<Node> {
  const spec = parseGenesis(genesis);
  const common = createCommon(spec, { customCrypto: customCrypto() });
  const dir = mkdtempSync(join(tmpdir(), 'alder-fastdiff-'));
  const db = Database.open(join(dir, 'database'));
  const world = new WorldState(new TrieStore(db), common);
  const chain = new ChainStore(db, common);
  await initGenesis(chain, world, { header: genesisHeaderFields(spec), alloc: spec.alloc });
  const engine = createConsensusEngine(spec, { chain, dataPath: dir, customCrypto: customCrypto() });
  const importer = new BlockImporter(chain, world, engine, { skipPowValidation: true });
  importer.processor.useInterpreter = useInterpreter;
  return { dir, db, importer, chain };
}

/** Executes `txs` as block 1 on `node`: the receipts (consensus encoding) and the state root. */
async function execute(
  node: Node,
  txs: TypedTransaction[],
): Promise<{ receipts: string[]; root: string; statuses: number[] }> {
  const parent = node.chain.headHeader();
  const common = node.chain.common.copy();
  common.setHardforkBy({ blockNumber: 1n, timestamp: parent.timestamp + 12n });
  const header = createBlockHeader(
    {
      parentHash: parent.hash(),
      number: 1n,
      timestamp: parent.timestamp + 12n,
      gasLimit: parent.gasLimit,
      coinbase: hexToBytes(COINBASE),
      baseFeePerGas: parent.calcNextBaseFee(),
      excessBlobGas: common.isActivatedEIP(4844) ? 0n : undefined,
      blobGasUsed: common.isActivatedEIP(4844) ? 0n : undefined,
      parentBeaconBlockRoot: common.isActivatedEIP(4788) ? new Uint8Array(32) : undefined,
    },
    { common, skipConsensusFormatValidation: true },
  );
  const block = new Block(header, [], [], common.isActivatedEIP(4895) ? [] : undefined);
  const processor = node.importer.processor;
  const { result } = await node.importer.executeOnParent(parent, async (vm) => {
    vm.common.setHardforkBy({ blockNumber: 1n, timestamp: header.timestamp });
    await processor.startBlock(vm, header);
    const receipts: string[] = [];
    const statuses: number[] = [];
    let gas = 0n;
    for (const tx of txs) {
      // Without the interpreter (the library node) this is the library's runTx.
      const r = await runBlockTx(vm, { tx, block, blockGasUsed: gas });
      gas += r.totalGasSpent;
      receipts.push(bytesToHex(encodeReceipt(r.receipt, tx.type)));
      statuses.push('status' in r.receipt ? r.receipt.status : -1);
    }
    const stateRoot = await vm.stateManager.getStateRoot();
    return { result: { receipts, root: bytesToHex(stateRoot), statuses }, stateRoot };
  });
  return result;
}

function genesisFor(config: object): object {
  const london = 'londonBlock' in config;
  return {
    config: { chainId: 1337, ...config },
    gasLimit: '0x10000000',
    difficulty: '0x0',
    ...(london ? { baseFeePerGas: '0x7' } : {}),
    alloc: {
      [SENDER.toString()]: { balance: '0x33b2e3c9fd0803ce8000000' },
      [FUNDED]: { balance: '0x1000' },
      [STOPPER]: { balance: '0x0', code: '0x00' },
      [DELEGATED]: { balance: '0x0', code: `0xef0100${STOPPER.slice(2)}` },
    },
  };
}

describe('block execution on the call interpreter against the EVM library', () => {
  const nodes: Node[] = [];
  let before: ReturnType<typeof prng>;

  beforeAll(() => {
    before = prng(7);
  });

  afterAll(async () => {
    for (const n of nodes) {
      await n.importer.idle();
      await n.db.close();
      rmSync(n.dir, { recursive: true, force: true });
    }
  });

  const prague = {
    ...CANCUN_AT_GENESIS,
    pragueTime: 0,
    blobSchedule: {
      ...(CANCUN_AT_GENESIS as { blobSchedule: object }).blobSchedule,
      prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
    },
  };
  const forks: Array<[Hardfork, object]> = [
    [Hardfork.London, LONDON_AT_GENESIS],
    [Hardfork.Cancun, CANCUN_AT_GENESIS],
    [Hardfork.Prague, prague],
  ];
  for (const [hardfork, config] of forks) {
    it(`gives the library's receipts and state root for ${TXS} generated transactions at ${hardfork}`, async () => {
      const genesis = genesisFor(config);
      const fast = await openNode(genesis, true);
      const library = await openNode(genesis, false);
      nodes.push(fast, library);
      expect(fast.chain.common.hardfork()).toBe(hardfork);
      const rand = prng(hardfork.length * 1000 + (before() % 1000));
      const created: string[] = [];
      const txs: TypedTransaction[] = [];
      for (let nonce = 0; nonce < TXS; nonce++) {
        txs.push(
          createFeeMarket1559Tx(
            {
              nonce: BigInt(nonce),
              gasLimit: 2_000_000n,
              maxFeePerGas: 1000n,
              maxPriorityFeePerGas: 2n,
              value: BigInt(rand() % 3) * 5000n,
              data: program(rand, created),
              chainId: 1337n,
            },
            { common: fast.chain.common },
          ).sign(KEY),
        );
        created.push(bytesToHex(generateAddress(SENDER.bytes, bigIntToBytes(BigInt(nonce)))));
      }
      const common = fast.chain.common;
      let nonce = BigInt(TXS);
      // Transfers to a contract created above, with its storage slots on the access list.
      const to = created[3] as string;
      const accessList = [{ address: to, storageKeys: [`0x${'00'.repeat(31)}01`, `0x${'00'.repeat(32)}`] }];
      txs.push(
        createLegacyTx(
          { nonce: nonce++, gasLimit: 100_000n, gasPrice: 1000n, to, value: 7n },
          { common },
        ).sign(KEY),
        createAccessList2930Tx(
          { nonce: nonce++, gasLimit: 100_000n, gasPrice: 1000n, to, value: 9n, accessList, chainId: 1337n },
          { common },
        ).sign(KEY),
        createFeeMarket1559Tx(
          {
            nonce: nonce++,
            gasLimit: 100_000n,
            maxFeePerGas: 1000n,
            maxPriorityFeePerGas: 1000n,
            to: FUNDED,
            accessList,
            chainId: 1337n,
          },
          { common },
        ).sign(KEY),
        // 2,000 non-zero calldata bytes to a contract that stops: the EIP-7623 floor is what it pays.
        createFeeMarket1559Tx(
          {
            nonce: nonce++,
            gasLimit: 200_000n,
            maxFeePerGas: 1000n,
            maxPriorityFeePerGas: 3n,
            to: STOPPER,
            data: new Uint8Array(2000).fill(0xab),
            chainId: 1337n,
          },
          { common },
        ).sign(KEY),
      );
      const a = await execute(fast, txs);
      const b = await execute(library, txs);
      expect(a.receipts).toHaveLength(txs.length);
      for (let i = 0; i < txs.length; i++) expect(a.receipts[i], `receipt ${i}`).toBe(b.receipts[i]);
      expect(a.root).toBe(b.root);
      // The interpreter ran (nearly) all of them; the library run none.
      expect(fast.importer.processor.interpreterStats?.fast).toBeGreaterThan(TXS * 0.9);
      expect(library.importer.processor.interpreterStats?.fast).toBe(0);
      // Every transaction ran on the own transaction runner there, none on the library node.
      expect(fast.importer.processor.interpreterStats?.ownTxs).toBe(txs.length);
      expect(fast.importer.processor.interpreterStats?.libraryTxs).toBe(0);
      expect(library.importer.processor.interpreterStats?.ownTxs).toBe(0);
      // The block did something: successes and failures among the receipts.
      expect(a.statuses.filter((s) => s === 1).length).toBeGreaterThan(TXS / 4);
      expect(a.statuses.filter((s) => s === 0).length).toBeGreaterThan(TXS / 10);
    }, 60_000);
  }

  it('leaves a transaction that fails a check to the library, which gives its error', async () => {
    const node = await openNode(genesisFor(CANCUN_AT_GENESIS), true);
    nodes.push(node);
    const common = node.chain.common;
    const tx = (nonce: bigint, gasLimit = 21_000n) =>
      createFeeMarket1559Tx(
        { nonce, gasLimit, maxFeePerGas: 1000n, maxPriorityFeePerGas: 2n, to: FUNDED, chainId: 1337n },
        { common },
      ).sign(KEY);
    await expect(execute(node, [tx(5n)])).rejects.toThrow(/the tx doesn't have the correct nonce/);
    await expect(execute(node, [tx(0n, 20_000n)])).rejects.toThrow(/INTRINSIC_GAS_TOO_LOW/);
    const stats = node.importer.processor.interpreterStats;
    expect(stats?.libraryTxs).toBe(2);
    expect(stats?.ownTxs).toBe(0);
    // The node goes on: the same block with a valid transaction runs on the own runner.
    const ok = await execute(node, [tx(0n)]);
    expect(ok.statuses).toEqual([1]);
    expect(stats?.ownTxs).toBe(1);
  });

  it('runs a transaction whose message the interpreter leaves on the library, from its start', async () => {
    const genesis = genesisFor(prague);
    const fast = await openNode(genesis, true);
    const library = await openNode(genesis, false);
    nodes.push(fast, library);
    const common = fast.chain.common;
    const tx = (nonce: bigint, to: string, value: bigint) =>
      createFeeMarket1559Tx(
        {
          nonce,
          gasLimit: 100_000n,
          maxFeePerGas: 1000n,
          maxPriorityFeePerGas: 2n,
          to,
          value,
          chainId: 1337n,
        },
        { common },
      ).sign(KEY);
    // Between two transactions of its own, the runner meets delegated code in the second's message.
    const txs = [tx(0n, FUNDED, 5n), tx(1n, DELEGATED, 7n), tx(2n, FUNDED, 11n)];
    const a = await execute(fast, txs);
    const b = await execute(library, txs);
    expect(a.statuses).toEqual([1, 1, 1]);
    expect(a.receipts).toEqual(b.receipts);
    // The runner wrote nothing of its attempt: the state root is the library's.
    expect(a.root).toBe(b.root);
    const stats = fast.importer.processor.interpreterStats;
    expect(stats?.ownTxs).toBe(2);
    expect(stats?.libraryTxs).toBe(1);
    expect(stats?.reasons.get('delegated code')).toBeGreaterThan(0);
  });
});
