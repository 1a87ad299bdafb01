/**
 * The call interpreter (`src/execution/fastCall/`) against the EVM library on the same state in
 * LMDB: thousands of generated programs — arithmetic on edge values, memory, storage with EIP-2200
 * refunds, transient storage, environment reads, nested calls of every kind with value, precompiles,
 * logs, static-call violations, reverts, bad jumps, running out of gas — each run by both, at
 * Berlin, London, Cancun and Prague rules, must give the same status, output, gas used (before and
 * after refunds) and halt reason. The fast simulator must also have run (nearly) all of them itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBlockHeader } from '@ethereumjs/block';
import { Hardfork } from '@ethereumjs/common';
import { Address, bigIntToBytes, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANCUN_AT_GENESIS, LONDON_AT_GENESIS } from '../../bench/genchain.mjs';
import { ChainStore } from '../../src/chain/chainStore.js';
import { initGenesis } from '../../src/chain/genesis.js';
import { createCommon, genesisHeaderFields, parseGenesis } from '../../src/config/genesis.js';
import { customCrypto } from '../../src/crypto/index.js';
import { Database } from '../../src/db/database.js';
import { type CallRequest, CallSimulator } from '../../src/execution/simulator.js';
import { TrieStore } from '../../src/state/trieStore.js';
import { WorldState } from '../../src/state/worldState.js';

const addr = (n: number) => new Address(setLengthLeft(bigIntToBytes(BigInt(n)), 20));
const word = (n: bigint) => setLengthLeft(bigIntToBytes(n), 32);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

const SENDER = addr(0x5e4d);
const PROGRAM = addr(0xa11);
/** Helpers the programs call. */
const STORE = addr(0xc1); // slot[calldata0] += 1, returns 32 bytes of slot 0 + CALLVALUE
const REVERTER = addr(0xc2); // reverts with 5 bytes
const BURNER = addr(0xc3); // loops until out of gas
const STATIC_WRITER = addr(0xc4); // STATICCALLs STORE (which writes: fails)
const EMPTY_FUNDED = addr(0xc5); // no code, has balance
const TARGETS = [
  STORE,
  REVERTER,
  BURNER,
  STATIC_WRITER,
  EMPTY_FUNDED,
  addr(0xdead),
  addr(1),
  addr(2),
  addr(4),
  SENDER,
  PROGRAM,
];

const EDGE = [
  0n,
  1n,
  2n,
  31n,
  32n,
  255n,
  256n,
  (1n << 255n) - 1n,
  1n << 255n,
  (1n << 256n) - 1n,
  (1n << 256n) - 2n,
  0x1234567890abcdefn,
  (1n << 64n) - 1n,
];

/** mulberry32: a small generator whose low bits are as random as its high ones. */
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

/** Bytecode writer. */
class Asm {
  bytes: number[] = [];
  push(v: bigint | number): this {
    const b = BigInt(v);
    if (b === 0n) {
      this.bytes.push(0x60, 0);
      return this;
    }
    const h = b.toString(16);
    const raw = hexToBytes(`0x${h.length % 2 ? `0${h}` : h}`);
    this.bytes.push(0x5f + raw.length, ...raw);
    return this;
  }
  op(...ops: number[]): this {
    this.bytes.push(...ops);
    return this;
  }
  /** XORs the top of the stack into memory word 0 (so the output reflects every result). */
  fold(): this {
    return this.push(0).op(0x51, 0x18).push(0).op(0x52);
  }
  code(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

function program(rand: () => number, hardfork: Hardfork): Uint8Array {
  const pick = <T>(xs: T[]): T => xs[rand() % xs.length];
  const a = new Asm();
  const small = () => BigInt(rand() % 300);
  const prague = hardfork === Hardfork.Prague;
  const cancun = prague || hardfork === Hardfork.Cancun;
  const steps = 1 + (rand() % 14);
  for (let i = 0; i < steps; i++) {
    switch (rand() % 16) {
      case 0: {
        // binary arithmetic and comparison
        const op = pick([
          0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17,
          0x18, 0x1a, 0x1b, 0x1c, 0x1d,
        ]);
        a.push(pick(EDGE)).push(pick(EDGE)).op(op).fold();
        break;
      }
      case 1: {
        const op = pick([0x08, 0x09]);
        a.push(pick(EDGE)).push(pick(EDGE)).push(pick(EDGE)).op(op).fold();
        break;
      }
      case 2:
        a.push(pick(EDGE))
          .op(pick([0x15, 0x19]))
          .fold();
        break;
      case 3: {
        // memory: stores, loads, copies, hashing (sometimes far out: out of gas)
        const far = rand() % 20 === 0;
        const off = far ? BigInt(rand()) * 1000n : small();
        a.push(pick(EDGE)).push(off).op(0x52);
        a.push(small()).op(0x51).fold();
        a.push(pick(EDGE)).push(small()).op(0x53);
        a.push(small()).push(small()).op(0x20).fold();
        if (cancun) a.push(small()).push(small()).push(small()).op(0x5e);
        break;
      }
      case 4: {
        // storage: a few slots and values, for every EIP-2200 transition
        const slotN = BigInt(rand() % 4);
        const value = BigInt(rand() % 3);
        if (rand() % 2) a.push(value).push(slotN).op(0x55);
        a.push(slotN).op(0x54).fold();
        break;
      }
      case 5:
        if (cancun) {
          a.push(small())
            .push(BigInt(rand() % 3))
            .op(0x5d);
          a.push(BigInt(rand() % 3))
            .op(0x5c)
            .fold();
        }
        break;
      case 6:
        a.op(
          pick([
            0x30, 0x32, 0x33, 0x34, 0x36, 0x38, 0x3a, 0x3d, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
            0x58, 0x59,
          ]),
        ).fold();
        if (cancun)
          a.op(pick([0x4a]))
            .fold()
            .push(0)
            .op(0x49)
            .fold();
        break;
      case 7: {
        // account reads, cold then warm
        const target = pick(TARGETS);
        a.push(BigInt(target.toString()))
          .op(pick([0x31, 0x3b, 0x3f]))
          .fold();
        a.push(small()).push(small()).push(small()).push(BigInt(target.toString())).op(0x3c);
        break;
      }
      case 8:
        a.push(small()).op(0x35).fold();
        a.push(small())
          .push(small())
          .push(small())
          .op(pick([0x37, 0x39]));
        break;
      case 9:
        a.push(pick([0n, 1n, 2n, 255n, 1000n]))
          .op(0x40)
          .fold();
        break;
      case 10:
      case 11: {
        // calls of every kind; some with value, some to precompiles
        const kind = pick([0xf1, 0xf2, 0xf4, 0xfa]);
        const target = pick(TARGETS);
        const gas = pick([0n, 100n, 5000n, 30000n, 200000n, (1n << 256n) - 1n]);
        a.push(32).push(64).push(36).push(0); // out size, out offset, in size, in offset
        if (kind === 0xf1 || kind === 0xf2) a.push(pick([0n, 0n, 1n, 10n ** 18n, 10n ** 30n]));
        a.push(BigInt(target.toString())).push(gas).op(kind).fold();
        a.op(0x3d).fold();
        a.push(pick([0n, 4n, 32n]))
          .push(0)
          .push(small())
          .op(0x3e);
        break;
      }
      case 12:
        a.push(small())
          .push(small())
          .op(0xa0 + (rand() % 5 === 0 ? 0 : rand() % 3));
        break;
      case 13: {
        // the same slot written several times: dirty writes, restores, clears (EIP-2200 refunds)
        const slotN = BigInt(rand() % 4);
        const writes = 2 + (rand() % 3);
        for (let w = 0; w < writes; w++)
          a.push(BigInt(rand() % 3))
            .push(slotN)
            .op(0x55);
        a.op(0x5a).fold();
        break;
      }
      case 14: {
        const roll = rand() % 16;
        if (roll < 2)
          a.push(pick([0n, 3n, 7n])).op(0x56); // bad jump (or one into data)
        else if (roll < 4) a.op(pick([0xfe, 0x0c, 0x21, 0xef]));
        break;
      }
      default:
        if (prague || cancun) a.op(0x5f).fold();
        else a.push(0).fold();
    }
  }
  const end = rand() % 10;
  if (end < 6) a.push(64).push(0).op(0xf3);
  else if (end < 8) a.push(32).push(0).op(0xfd);
  else if (end === 8) a.op(0x00);
  else a.op(0x50); // stack underflow on an empty stack
  return a.code();
}

describe('call interpreter against the EVM library', () => {
  let dir: string;
  let db: Database;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'alder-fastcall-'));
  });
  afterAll(async () => {
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Every fork up to Berlin, London, Cancun (merged) and Prague at genesis.
  const { londonBlock: _london, ...BERLIN } = LONDON_AT_GENESIS;
  const PRAGUE = { ...CANCUN_AT_GENESIS, pragueTime: 0 };
  const forks: Array<[Hardfork, Record<string, unknown>, number]> = [
    [Hardfork.Berlin, BERLIN, 200],
    [Hardfork.London, LONDON_AT_GENESIS, 250],
    [Hardfork.Cancun, CANCUN_AT_GENESIS, 400],
    [Hardfork.Prague, PRAGUE, 600],
  ];

  for (const [hardfork, forkConfig, count] of forks) {
    it(`gives the library's answers for ${count} generated programs at ${hardfork}`, async () => {
      const spec = parseGenesis({
        config: { chainId: 1337, ...forkConfig },
        gasLimit: '0x1c9c380',
        difficulty: '0x0',
        ...(forkConfig.londonBlock !== undefined ? { baseFeePerGas: '0x7' } : {}),
        alloc: {},
      });
      const common = createCommon(spec, { customCrypto: customCrypto() });
      expect(common.hardfork()).toBe(hardfork);
      db?.close();
      db = Database.open(join(dir, hardfork));
      const world = new WorldState(new TrieStore(db), common);
      const chain = new ChainStore(db, common);
      const store = new Asm()
        .push(0)
        .op(0x35)
        .op(0x80, 0x54)
        .push(1)
        .op(0x01, 0x90, 0x55)
        .push(0)
        .op(0x54, 0x34, 0x01)
        .push(0)
        .op(0x52)
        .push(32)
        .push(0)
        .op(0xf3)
        .code();
      const reverter = new Asm().push(0x1122334455n).push(0).op(0x52).push(5).push(27).op(0xfd).code();
      const burner = new Asm().op(0x5b).push(0).op(0x56).code();
      const staticWriter = new Asm()
        .push(0)
        .push(0)
        .push(0)
        .push(0)
        .push(BigInt(STORE.toString()))
        .op(0x5a, 0xfa)
        .push(0)
        .op(0x52)
        .push(32)
        .push(0)
        .op(0xf3)
        .code();
      const alloc = new Map<
        string,
        { balance: bigint; nonce: bigint; code?: Uint8Array; storage?: Array<[Uint8Array, Uint8Array]> }
      >([
        [SENDER.toString(), { balance: 10n ** 20n, nonce: 3n }],
        [
          PROGRAM.toString(),
          {
            balance: 5n * 10n ** 18n,
            nonce: 1n,
            storage: [
              [word(1n), word(1n)],
              [word(2n), word(2n)],
            ],
          },
        ],
        [STORE.toString(), { balance: 0n, nonce: 1n, code: store, storage: [[word(0n), word(7n)]] }],
        [REVERTER.toString(), { balance: 1n, nonce: 1n, code: reverter }],
        [BURNER.toString(), { balance: 0n, nonce: 1n, code: burner }],
        [STATIC_WRITER.toString(), { balance: 0n, nonce: 1n, code: staticWriter }],
        [EMPTY_FUNDED.toString(), { balance: 3n, nonce: 0n }],
      ]);
      const genesis = await initGenesis(chain, world, { header: genesisHeaderFields(spec), alloc });
      const header = createBlockHeader(
        {
          number: 1n,
          parentHash: genesis.hash(),
          stateRoot: genesis.header.stateRoot,
          gasLimit: 30_000_000n,
          timestamp: 12n,
          coinbase: addr(0xc01b),
          mixHash: word(0xabcdefn),
          ...(common.isActivatedEIP(1559) ? { baseFeePerGas: 7n } : {}),
          ...(common.isActivatedEIP(4844) ? { excessBlobGas: 0n, blobGasUsed: 0n } : {}),
        },
        { common, skipConsensusFormatValidation: true },
      );
      const fast = new CallSimulator(chain, world, 0n);
      const library = new CallSimulator(chain, world, 0n, undefined, true);

      const rand = prng(hardfork.length * 7919 + count);
      let compared = 0;
      const outcomes = new Map<string, number>();
      for (let i = 0; i < count; i++) {
        const code = program(rand, hardfork);
        const call: CallRequest = {
          from: SENDER.bytes,
          to: PROGRAM.bytes,
          data: word(BigInt(rand() % 3)),
          value: rand() % 5 === 0 ? 1000n : undefined,
          gas: rand() % 4 === 0 ? BigInt(30_000 + (rand() % 200_000)) : undefined,
        };
        const fees = rand() % 4;
        if (fees === 1) call.gasPrice = 9n;
        if (fees === 2 && common.isActivatedEIP(1559)) {
          call.maxFeePerGas = 20n;
          call.maxPriorityFeePerGas = 2n;
        }
        if (rand() % 6 === 0 && common.isActivatedEIP(2930)) call.accessList = [[STORE.bytes, [word(0n)]]];
        const overrides = new Map([[PROGRAM.toString(), { code }]]);
        const reportAccessList = rand() % 3 === 0;
        const settle = (p: Promise<unknown>) =>
          p.then(
            (r) => r as Record<string, unknown>,
            (e: Error) => ({ error: e.message }),
          );
        const [x, y] = await Promise.all([
          settle(fast.simulate(header, call, { overrides, reportAccessList })),
          settle(library.simulate(header, call, { overrides, reportAccessList })),
        ]);
        const view = (r: Record<string, unknown>) =>
          r.error !== undefined
            ? { error: r.error }
            : {
                status: r.status,
                output: hex(r.output as Uint8Array),
                gasUsed: r.gasUsed,
                gasUsedBeforeRefund: r.gasUsedBeforeRefund,
                haltReason: r.haltReason,
                accessList: (r.accessList as Array<[Uint8Array, Uint8Array[]]> | undefined)?.map(
                  ([a, keys]) => [hex(a), keys.map(hex)],
                ),
              };
        expect(
          view(x),
          `program ${i}: ${bytesToHex(code)} ${JSON.stringify(call, (_, v) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? hex(v) : v))}`,
        ).toEqual(view(y));
        compared++;
        const k = String(view(x).haltReason ?? view(x).status ?? view(x).error);
        outcomes.set(k, (outcomes.get(k) ?? 0) + 1);
      }
      expect(compared).toBe(count);

      // Self-recursion to the depth limit (or until the gas runs out), with and without a write.
      for (const write of [false, true]) {
        const recurse = new Asm();
        if (write) recurse.push(1).op(0x43, 0x55);
        recurse
          .push(0)
          .push(0)
          .push(0)
          .push(0)
          .op(0x30, 0x5a, 0xfa)
          .push(0)
          .op(0x52)
          .push(32)
          .push(0)
          .op(0xf3);
        for (const gas of [30_000_000n, 1_000_000_000n]) {
          const call: CallRequest = { from: SENDER.bytes, to: PROGRAM.bytes, gas };
          const overrides = new Map([[PROGRAM.toString(), { code: recurse.code() }]]);
          const [x, y] = await Promise.all([
            fast.simulate(header, call, { overrides }),
            library.simulate(header, call, { overrides }),
          ]);
          expect([x.status, hex(x.output), x.gasUsed, x.haltReason]).toEqual([
            y.status,
            hex(y.output),
            y.gasUsed,
            y.haltReason,
          ]);
        }
      }
      // The programs reach every kind of ending.
      for (const k of ['success', 'revert', 'Out of gas', 'Stack underflow', 'Invalid jump destination']) {
        expect(outcomes.get(k) ?? 0, k).toBeGreaterThan(0);
      }
      // Nearly everything ran on the interpreter (creation and SELFDESTRUCT are not generated).
      expect(fast.stats.fast).toBeGreaterThan(count * 0.9);
      expect(library.stats.fast).toBe(0);
    }, 120_000);
  }
});
