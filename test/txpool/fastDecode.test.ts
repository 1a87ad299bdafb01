/**
 * The pool's fast transaction decoder against the library's: for many signed transactions of every
 * type it handles, on several forks and chains, the objects must be indistinguishable (class, own
 * properties in order, values, and every method's answer once frozen); whatever it is not sure of it
 * must leave to the library.
 */
import type { Common } from '@ethereumjs/common';
import { Common as LibCommon, Mainnet } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import {
  Capability,
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  createTxFromRLP,
  type TypedTransaction,
} from '@ethereumjs/tx';
import { Address, bigIntToUnpaddedBytes, bytesToHex, eoaCode7702SignAuthorization } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { ecsign, LONDON_AT_GENESIS } from '../../bench/genchain.mjs';
import { createCommon, parseGenesis } from '../../src/config/genesis.js';
import { customCrypto } from '../../src/crypto/index.js';
import { fastDecodeTx } from '../../src/txpool/fastDecode.js';
import { shareCommon } from '../../src/util/sharedCommon.js';

const SECP_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const MAX_U64 = (1n << 64n) - 1n;
const MAX_U256 = (1n << 256n) - 1n;

/** A deterministic generator (mulberry32), so a failure names a reproducible transaction. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const bytes = (n: number, zeros = 0.2) =>
    Uint8Array.from({ length: n }, () => (next() < zeros ? 0 : 1 + int(255)));
  const big = (bits: number) => {
    let v = 0n;
    for (let i = 0; i < bits; i += 32) v = (v << 32n) | BigInt(int(2 ** 32));
    return v & ((1n << BigInt(bits)) - 1n);
  };
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  return { next, int, bytes, big, pick };
}

const BLOBS = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
  osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
};

/** A node Common (native crypto) for a chain, at its block-1 fork, shared as the pool shares it. */
function nodeCommon(chainId: number, forks: Record<string, unknown>): Common {
  const spec = parseGenesis({
    config: { chainId, ...forks },
    gasLimit: '0x1c9c380',
    difficulty: '0x1',
    alloc: {},
    timestamp: '0x0',
    extraData: '0x',
    nonce: '0x0',
    ...(forks.londonBlock !== undefined ? { baseFeePerGas: '0x7' } : {}),
  });
  // Native signing too (the node's Common recovers natively; signing only makes the test's inputs).
  const common = createCommon(spec, { customCrypto: { ...customCrypto(), ecsign } });
  common.setHardforkBy({ blockNumber: 1n, timestamp: 1n });
  return shareCommon(common);
}

/** Every fork to Prague active from genesis (merged, blob schedules). */
const PRAGUE_AT_GENESIS = {
  ...LONDON_AT_GENESIS,
  terminalTotalDifficulty: 0,
  shanghaiTime: 0,
  cancunTime: 0,
  pragueTime: 0,
  blobSchedule: BLOBS,
};

const CHAINS = {
  prague: () => nodeCommon(1337, PRAGUE_AT_GENESIS),
  osaka: () => nodeCommon(1337, { ...PRAGUE_AT_GENESIS, osakaTime: 0 }),
  london: () => nodeCommon(1, LONDON_AT_GENESIS),
  berlin: () => nodeCommon(7, { ...LONDON_AT_GENESIS, londonBlock: undefined }),
  homestead: () => nodeCommon(5, { homesteadBlock: 0 }),
  chainstart: () => nodeCommon(9, {}),
};

const KEYS = [1, 2, 3].map((k) => Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? k : 0x5a)));
/** Signs legacy transactions without EIP-155 (v 27/28). */
const PRE_155 = new LibCommon({ chain: Mainnet, hardfork: 'tangerineWhistle', customCrypto: { ecsign } });

type R = ReturnType<typeof prng>;

function accessListOf(r: R) {
  return Array.from({ length: r.pick([0, 0, 1, 2, 3]) }, () => ({
    address: bytesToHex(r.bytes(20)) as `0x${string}`,
    storageKeys: Array.from({ length: r.pick([0, 1, 2, 4]) }, () => bytesToHex(r.bytes(32)) as `0x${string}`),
  }));
}

/** Fields shared by every type: edge values and random ones within the constructors' bounds. */
function baseFields(r: R, maxGas: bigint) {
  const create = r.next() < 0.2;
  return {
    nonce: r.pick([0n, 1n, r.big(32), r.big(63), MAX_U64 - 1n]),
    gasLimit: r.pick([21000n, 1n, maxGas, r.big(20) + 21000n]),
    to: create ? undefined : (bytesToHex(r.bytes(20)) as `0x${string}`),
    value: r.pick([0n, 1n, r.big(64), r.big(256), MAX_U256]),
    data: r.pick([new Uint8Array(0), r.bytes(1), r.bytes(r.int(300)), r.bytes(4000, 0.5), Uint8Array.of(0)]),
  };
}

/** The fee fields as the library builds them (gasLimit · fee stays within 2^256 - 1). */
function fee(r: R) {
  return r.pick([0n, 1n, 7n, r.big(40), r.big(120)]);
}

function signedTxs(common: Common, chainId: bigint, r: R, count: number): Uint8Array[] {
  const maxGas = common.isActivatedEIP(7825) ? 1n << 24n : MAX_U64;
  const out: Uint8Array[] = [];
  const signWith = (tx: TypedTransaction) => tx.sign(r.pick(KEYS)).serialize();
  for (let i = 0; i < count; i++) {
    const f = baseFields(r, maxGas);
    const kind = i % 5;
    if (kind === 0) {
      // Legacy: EIP-155 on this chain when its forks have it, and pre-EIP-155 (v 27/28).
      const pre155 = r.next() < 0.4 || !common.gteHardfork('spuriousDragon');
      out.push(signWith(createLegacyTx({ ...f, gasPrice: fee(r) }, { common: pre155 ? PRE_155 : common })));
    } else if (kind === 1 && common.isActivatedEIP(2930)) {
      out.push(
        signWith(
          createAccessList2930Tx(
            { ...f, chainId, gasPrice: fee(r), accessList: accessListOf(r) },
            { common },
          ),
        ),
      );
    } else if (kind === 4 && common.isActivatedEIP(7702)) {
      const auths = Array.from({ length: 1 + r.int(3) }, () =>
        eoaCode7702SignAuthorization(
          {
            chainId: bytesToHex(bigIntToUnpaddedBytes(r.pick([0n, chainId]))) as `0x${string}`,
            address: bytesToHex(r.bytes(20)) as `0x${string}`,
            nonce: bytesToHex(bigIntToUnpaddedBytes(r.pick([0n, 5n, MAX_U64]))) as `0x${string}`,
          },
          r.pick(KEYS),
        ),
      );
      const maxFeePerGas = fee(r);
      out.push(
        signWith(
          createEOACode7702Tx(
            {
              ...f,
              to: f.to ?? (bytesToHex(r.bytes(20)) as `0x${string}`),
              chainId,
              maxFeePerGas,
              maxPriorityFeePerGas: maxFeePerGas / BigInt(1 + r.int(3)),
              accessList: accessListOf(r),
              authorizationList: auths,
            },
            { common },
          ),
        ),
      );
    } else if (common.isActivatedEIP(1559)) {
      const maxFeePerGas = fee(r);
      out.push(
        signWith(
          createFeeMarket1559Tx(
            {
              ...f,
              chainId,
              maxFeePerGas,
              maxPriorityFeePerGas: r.pick([0n, maxFeePerGas, maxFeePerGas / 2n]),
              accessList: accessListOf(r),
            },
            { common },
          ),
        ),
      );
    } else {
      out.push(signWith(createLegacyTx({ ...f, gasPrice: fee(r) }, { common })));
    }
  }
  return out;
}

/**
 * A value with its byte arrays as `Class:hex` strings (vitest compares typed arrays element by element,
 * which made this test slow), the rest (classes, objects, arrays, bigints) kept for a strict comparison.
 */
function comparable(v: unknown): unknown {
  if (v instanceof Uint8Array)
    return `${v.constructor.name}:${Buffer.from(v.buffer, v.byteOffset, v.length).toString('hex')}`;
  if (Array.isArray(v)) return v.map(comparable);
  if (v instanceof Address) return { Address: comparable(v.bytes) };
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, comparable(x)]));
  return v;
}

type Outcome = { value: unknown } | { error: string };
function outcome(f: () => unknown): Outcome {
  try {
    return { value: f() };
  } catch (err) {
    return { error: String((err as Error).message) };
  }
}

const CAPABILITIES = [
  Capability.EIP155ReplayProtection,
  Capability.EIP1559FeeMarket,
  Capability.EIP2718TypedTransaction,
  Capability.EIP2930AccessLists,
  Capability.EIP7702EOACode,
  4844,
];

/** For each byte array among a transaction's own values (depth first), whether it shares `raw`'s memory. */
function viewsOf(tx: TypedTransaction, raw: Uint8Array): boolean[] {
  const out: boolean[] = [];
  const walk = (v: unknown): void => {
    if (v instanceof Uint8Array) out.push(v.buffer === raw.buffer);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v instanceof Address) walk(v.bytes);
  };
  for (const [key, value] of Object.entries(tx)) if (key !== 'common' && key !== 'txOptions') walk(value);
  return out;
}

/** Everything the rest of the node can see of a transaction, fast-decoded against the library's. */
function expectSameTx(fast: TypedTransaction, lib: TypedTransaction, raw: Uint8Array, label: string): void {
  expect(Object.getPrototypeOf(fast), label).toBe(Object.getPrototypeOf(lib));
  expect(Object.keys(fast), label).toEqual(Object.keys(lib));
  const fastProps = Object.getOwnPropertyDescriptors(fast);
  const libProps = Object.getOwnPropertyDescriptors(lib);
  for (const [key, d] of Object.entries(libProps)) {
    const mine = fastProps[key] as PropertyDescriptor;
    expect([mine.writable, mine.enumerable, mine.configurable], `${label} ${key}`).toEqual([
      d.writable,
      d.enumerable,
      d.configurable,
    ]);
    if (key === 'common' || key === 'keccakFunction') expect(mine.value, `${label} ${key}`).toBe(d.value);
    else if (key === 'txOptions') {
      expect(Object.keys(mine.value), label).toEqual(Object.keys(d.value));
      expect(mine.value.common, label).toBe(d.value.common);
      expect(mine.value.freeze, label).toBe(d.value.freeze);
    } else expect(comparable(mine.value), `${label} ${key}`).toStrictEqual(comparable(d.value));
  }
  // Which byte arrays are views into the input (a Buffer's decoded items are) and which are copies.
  expect(viewsOf(fast, raw), label).toEqual(viewsOf(lib, raw));
  expect(Object.isFrozen(fast), label).toBe(Object.isFrozen(lib));
  Object.freeze(fast);
  Object.freeze(lib);
  const t = (x: TypedTransaction) => x as unknown as Record<string, (...a: unknown[]) => unknown>;
  const calls: Array<[string, (x: TypedTransaction) => unknown]> = [
    ['hash', (x) => x.hash()],
    ['serialize', (x) => x.serialize()],
    ['raw', (x) => x.raw()],
    ['sender', (x) => x.getSenderAddress().toString()],
    ['publicKey', (x) => x.getSenderPublicKey()],
    ['toJSON', (x) => x.toJSON()],
    ['intrinsicGas', (x) => x.getIntrinsicGas()],
    ['dataGas', (x) => x.getDataGas()],
    ['minimumGasLimit', (x) => t(x).getMinimumGasLimit?.()],
    ['isSigned', (x) => x.isSigned()],
    ['messageToSign', (x) => x.getMessageToSign()],
    ['hashedMessageToSign', (x) => x.getHashedMessageToSign()],
    ['verifySignature', (x) => x.verifySignature()],
    ['validationErrors', (x) => x.getValidationErrors()],
    ['upfrontCost', (x) => x.getUpfrontCost(7n)],
    ['effectivePriorityFee', (x) => x.getEffectivePriorityFee(7n)],
    ['toCreationAddress', (x) => x.toCreationAddress()],
    ['errorStr', (x) => x.errorStr()],
    ['supports', (x) => CAPABILITIES.map((c) => x.supports(c))],
  ];
  for (const [name, call] of calls) {
    expect(comparable(outcome(() => call(fast))), `${label} ${name}`).toStrictEqual(
      comparable(outcome(() => call(lib))),
    );
  }
  expect(bytesToHex(fast.serialize()), label).toBe(bytesToHex(raw));
}

/** Re-encodes a typed transaction's field list with `edit` applied. */
function typedWith(raw: Uint8Array, edit: (f: unknown[]) => void): Uint8Array {
  const fields = RLP.decode(raw.subarray(1)) as unknown[];
  edit(fields);
  return Uint8Array.from([raw[0] as number, ...RLP.encode(fields as never)]);
}

describe('fast transaction decoding', () => {
  for (const [name, make] of Object.entries(CHAINS)) {
    it(`decodes signed transactions exactly as the library on ${name}`, () => {
      const common = make();
      const chainId = common.chainId();
      const r = prng(name.length * 7919 + Number(chainId));
      const raws = signedTxs(common, chainId, r, 120);
      // High-s signatures (valid before Homestead only) and a legacy v of another chain (before EIP-155).
      const legacy = createLegacyTx({ nonce: 3, gasPrice: 9n, gasLimit: 21000n }, { common: PRE_155 }).sign(
        KEYS[0] as Uint8Array,
      );
      raws.push(
        createLegacyTx(
          { ...legacy.toJSON(), v: legacy.v === 27n ? 28n : 27n, s: SECP_N - (legacy.s as bigint) },
          { common: PRE_155 },
        ).serialize(),
        createLegacyTx(
          { nonce: 3, gasPrice: 9n, gasLimit: 21000n },
          { common: new LibCommon({ chain: Mainnet }) },
        )
          .sign(KEYS[1] as Uint8Array)
          .serialize(),
      );
      let fastCount = 0;
      for (const [i, bytes] of raws.entries()) {
        // Every other one as a Buffer, as eth_sendRawTransaction's parameter arrives: the library's
        // fields are then views into it (except an EIP-2930 transaction's), and so must the fast ones be.
        const raw = i % 2 === 1 ? Buffer.from(bytes) : bytes;
        const label = `${name} #${i} ${raw.constructor.name} ${bytesToHex(raw).slice(0, 40)}`;
        const lib = outcome(() => createTxFromRLP(raw, { common, freeze: false }));
        const fast = fastDecodeTx(raw, common);
        if ('error' in lib) {
          expect(fast, `${label}: the library refuses it (${lib.error})`).toBeUndefined();
          continue;
        }
        expect(fast, `${label}: a valid signed transaction takes the fast path`).toBeDefined();
        fastCount++;
        expectSameTx(fast as TypedTransaction, lib.value as TypedTransaction, raw, label);
      }
      expect(fastCount).toBeGreaterThan(raws.length / 2);
    });
  }

  it('leaves to the library what it accepts in unusual forms', () => {
    const common = CHAINS.prague();
    const key = KEYS[0] as Uint8Array;
    const signed = createFeeMarket1559Tx(
      { chainId: 1337n, nonce: 1n, maxFeePerGas: 10n, gasLimit: 21000n, to: `0x${'aa'.repeat(20)}` },
      { common },
    ).sign(key);
    const raw = signed.serialize();
    const unusual = [
      typedWith(raw, (f) => {
        f[8] = new Uint8Array(0); // access list as an empty string
      }),
      typedWith(raw, (f) => {
        f[0] = Uint8Array.of(0, 5, 0x39); // chain id with a leading zero
      }),
      typedWith(raw, (f) => {
        f[10] = new Uint8Array(0); // r empty: unsigned to the library
      }),
      typedWith(raw, (f) => f.splice(9, 3)), // unsigned form
      createLegacyTx({ nonce: 1, gasPrice: 1, gasLimit: 21000 }, { common }).serialize(), // unsigned legacy
    ];
    for (const u of unusual) {
      expect(fastDecodeTx(u, common), bytesToHex(u)).toBeUndefined();
      // The library decodes them (what the pool then says is its own business).
      expect(() => createTxFromRLP(u, { common, freeze: false })).not.toThrow();
    }
  });

  it('leaves to the library what the active fork refuses at construction', () => {
    const osaka = CHAINS.osaka();
    const key = KEYS[0] as Uint8Array;
    const fields = { chainId: 1337n, nonce: 1n, maxFeePerGas: 10n, to: `0x${'aa'.repeat(20)}` as const };
    const prague = CHAINS.prague();
    // EIP-7825's gas limit cap (Osaka), signed where it does not apply.
    const overCap = createFeeMarket1559Tx({ ...fields, gasLimit: (1n << 24n) + 1n }, { common: prague })
      .sign(key)
      .serialize();
    expect(fastDecodeTx(overCap, prague)).toBeDefined();
    expect(fastDecodeTx(overCap, osaka)).toBeUndefined();
    expect(() => createTxFromRLP(overCap, { common: osaka, freeze: false })).toThrow(/EIP-7825/);
    // EIP-3860's init code limit, and each type before its fork.
    const initCode = createFeeMarket1559Tx(
      { ...fields, chainId: 1n, to: undefined, gasLimit: 10_000_000n, data: new Uint8Array(49153).fill(1) },
      { common: CHAINS.london() },
    )
      .sign(key)
      .serialize();
    expect(fastDecodeTx(initCode, CHAINS.london())).toBeDefined();
    const shanghaiCreate = typedWith(initCode, (f) => {
      f[0] = Uint8Array.of(0x05, 0x39);
    });
    expect(fastDecodeTx(shanghaiCreate, prague)).toBeUndefined();
    expect(() => createTxFromRLP(shanghaiCreate, { common: prague, freeze: false })).toThrow(/initcode/);
    const berlin = CHAINS.berlin();
    const typed1559 = typedWith(overCap, (f) => {
      f[0] = Uint8Array.of(7);
    });
    expect(fastDecodeTx(typed1559, berlin)).toBeUndefined();
    expect(() => createTxFromRLP(typed1559, { common: berlin, freeze: false })).toThrow(
      /EIP-1559 not enabled/,
    );
  });

  it('leaves a Common it would have to copy to the library semantics (a copy per transaction)', () => {
    const common = createCommon(
      parseGenesis({
        config: { chainId: 1337, ...LONDON_AT_GENESIS },
        gasLimit: '0x1c9c380',
        difficulty: '0x1',
        alloc: {},
        baseFeePerGas: '0x7',
      }),
      { customCrypto: customCrypto() },
    );
    const raw = createFeeMarket1559Tx(
      { chainId: 1337n, nonce: 1n, maxFeePerGas: 10n, gasLimit: 21000n, to: `0x${'aa'.repeat(20)}` },
      { common },
    )
      .sign(KEYS[0] as Uint8Array)
      .serialize();
    const fast = fastDecodeTx(raw, common) as TypedTransaction;
    const lib = createTxFromRLP(raw, { common, freeze: false });
    expect(fast.common).not.toBe(common);
    expect(fast.common.hardfork()).toBe(lib.common.hardfork());
    expect(fast.getIntrinsicGas()).toBe(lib.getIntrinsicGas());
    expect(fast.hash()).toEqual(lib.hash());
  });
});
