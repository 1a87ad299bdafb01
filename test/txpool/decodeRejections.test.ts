/**
 * Malformed and refused raw transactions through the pool's intake (`addRaw`, as eth_sendRawTransaction
 * calls it): each gets exactly the rejection reason and message it got when every transaction was
 * decoded by the library, now that the common types take the fast decoder first. The expected values
 * were recorded from the library-only intake.
 */
import { writeFileSync } from 'node:fs';
import { RLP } from '@ethereumjs/rlp';
import {
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  createTxFromRLP,
} from '@ethereumjs/tx';
import { bytesToHex, eoaCode7702SignAuthorization, hexToBytes, privateToAddress } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastDecodeTx } from '../../src/txpool/fastDecode.js';
import { type TxPool, TxPoolError } from '../../src/txpool/pool.js';
import type { TestChain } from '../methods/chain.js';
import { openPoolChain, pragueGenesisFile, removeGenesisFile } from './helpers.js';

const KEY = hexToBytes(`0x${'11'.repeat(32)}`);
const A = bytesToHex(privateToAddress(KEY));
const TO = `0x${'aa'.repeat(20)}`;
const GWEI = 10n ** 9n;
const SECP_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function genesisFile(): string {
  return pragueGenesisFile('alder-decode-', { [A]: { balance: '0x3635c9adc5dea00000' } });
}

type Fields = Array<Uint8Array | Fields>;
const b = (...xs: number[]) => Uint8Array.from(xs);
const big = (v: bigint) =>
  hexToBytes(`0x${v.toString(16).padStart(2 * Math.ceil(v.toString(16).length / 2), '0')}`);
/** A deep copy of a transaction's `raw()` (which hands out its own lists). */
const fieldsOf = (tx: { raw(): unknown }): Fields => structuredClone(tx.raw()) as Fields;
const typedRaw = (type: number, f: Fields) => Uint8Array.from([type, ...RLP.encode(f as never)]);

describe('raw transaction intake refuses as before', () => {
  let chain: TestChain;
  let pool: TxPool;
  const cases: Array<[string, Uint8Array]> = [];
  const valid: Uint8Array[] = [];

  beforeAll(async () => {
    const genesis = genesisFile();
    chain = await openPoolChain({ genesis });
    removeGenesisFile(genesis);
    pool = chain.services.txPool as TxPool;
    const common = chain.services.common;
    const t1559 = createFeeMarket1559Tx(
      {
        chainId: 1337,
        nonce: 0,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
        gasLimit: 21000,
        to: TO,
      },
      { common },
    ).sign(KEY);
    const f = () => fieldsOf(t1559);
    const with1559 = (edit: (x: Fields) => void) => {
      const x = f();
      edit(x);
      return typedRaw(2, x);
    };
    const good = t1559.serialize();
    const legacy = createLegacyTx(
      { nonce: 0, gasPrice: 10n * GWEI, gasLimit: 21000, to: TO },
      { common },
    ).sign(KEY);
    const lf = () => fieldsOf(legacy);
    const withLegacy = (edit: (x: Fields) => void) => {
      const x = lf();
      edit(x);
      return RLP.encode(x as never);
    };
    const t2930 = createAccessList2930Tx(
      {
        chainId: 1337,
        nonce: 0,
        gasPrice: 10n * GWEI,
        gasLimit: 30000,
        to: TO,
        accessList: [{ address: TO, storageKeys: [`0x${'01'.repeat(32)}`] }],
      },
      { common },
    ).sign(KEY);
    const with2930 = (edit: (x: Fields) => void) => {
      const x = fieldsOf(t2930);
      edit(x);
      return typedRaw(1, x);
    };
    const auth = eoaCode7702SignAuthorization(
      { chainId: '0x539', address: TO as `0x${string}`, nonce: '0x0' },
      KEY,
    );
    const t7702 = createEOACode7702Tx(
      {
        chainId: 1337,
        nonce: 0,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
        gasLimit: 100_000,
        to: TO,
        authorizationList: [auth],
      },
      { common },
    ).sign(KEY);
    const with7702 = (edit: (x: Fields) => void) => {
      const x = fieldsOf(t7702);
      edit(x);
      return typedRaw(4, x);
    };
    valid.push(good, legacy.serialize(), t2930.serialize(), t7702.serialize());
    cases.push(
      ['empty input', new Uint8Array(0)],
      ['unknown type 5', Uint8Array.from([5, ...good.subarray(1)])],
      ['type 0x7f', Uint8Array.from([0x7f, ...good.subarray(1)])],
      ['a lone empty list', b(0xc0)],
      ['a string at the top', RLP.encode(b(1, 2, 3))],
      ['1559: 11 fields', with1559((x) => x.pop())],
      ['1559: 13 fields', with1559((x) => x.push(b(1)))],
      ['1559: leading zero in nonce', with1559((x) => (x[1] = b(0, 5)))],
      ['1559: nonce zero as a 0x00 byte', with1559((x) => (x[1] = b(0)))],
      ['1559: leading zero in value', with1559((x) => (x[6] = b(0, 1)))],
      ['1559: nonce 2^64-1', with1559((x) => (x[1] = big((1n << 64n) - 1n)))],
      ['1559: nonce over 8 bytes', with1559((x) => (x[1] = big(1n << 64n)))],
      ['1559: gas limit over 2^64', with1559((x) => (x[4] = big(1n << 64n)))],
      ['1559: value over 32 bytes', with1559((x) => (x[6] = big(1n << 256n)))],
      ['1559: r over 32 bytes', with1559((x) => (x[10] = big(1n << 256n)))],
      ['1559: s over 32 bytes', with1559((x) => (x[11] = big(1n << 256n)))],
      [
        '1559: gas limit times fee cap over 2^256-1',
        with1559((x) => {
          x[3] = big(1n << 250n);
          x[4] = big(1n << 20n);
        }),
      ],
      ['1559: priority fee above fee cap', with1559((x) => (x[2] = big(20n * GWEI)))],
      ['1559: wrong chain id', with1559((x) => (x[0] = big(1n)))],
      ['1559: chain id as a list', with1559((x) => (x[0] = [b(5)]))],
      ['1559: high s', with1559((x) => (x[11] = big(SECP_N - (t1559.s as bigint))))],
      ['1559: y-parity 2', with1559((x) => (x[9] = b(2)))],
      ['1559: y-parity as 0x00', with1559((x) => (x[9] = b(0)))],
      ['1559: to as a list', with1559((x) => (x[5] = [b(1)]))],
      ['1559: to of 19 bytes', with1559((x) => (x[5] = new Uint8Array(19).fill(0xaa)))],
      ['1559: data as a list', with1559((x) => (x[7] = [b(1), b(2)]))],
      ['1559: nonce as a list', with1559((x) => (x[1] = []))],
      ['1559: access list as a string', with1559((x) => (x[8] = b(1, 2)))],
      ['1559: access list as an empty string', with1559((x) => (x[8] = new Uint8Array(0)))],
      ['1559: access entry of three items', with1559((x) => (x[8] = [[new Uint8Array(20), [], []]]))],
      ['1559: access address of 19 bytes', with1559((x) => (x[8] = [[new Uint8Array(19), []]]))],
      [
        '1559: access slot of 31 bytes',
        with1559((x) => (x[8] = [[new Uint8Array(20), [new Uint8Array(31)]]])),
      ],
      [
        '1559: access slots as a string',
        with1559((x) => (x[8] = [[new Uint8Array(20), new Uint8Array(32)]])),
      ],
      ['1559: unsigned (9 fields)', with1559((x) => x.splice(9, 3))],
      ['1559: r empty', with1559((x) => (x[10] = new Uint8Array(0)))],
      [
        '1559: r and s zero bytes',
        with1559((x) => {
          x[10] = new Uint8Array(0);
          x[11] = new Uint8Array(0);
        }),
      ],
      [
        '1559: creation with too large init code',
        with1559((x) => {
          x[5] = new Uint8Array(0);
          x[7] = new Uint8Array(49153).fill(1);
          x[4] = big(20_000_000n);
        }),
      ],
      ['1559: trailing byte', Uint8Array.from([...good, 0])],
      ['1559: truncated', good.subarray(0, good.length - 1)],
      ['1559: a single byte below 0x80 written long (0x81 0x05)', nonCanonicalByte(good)],
      ['1559: short list written in long form', longFormList(good)],
      ['1559: list length with a leading zero', zeroPaddedListLength(good)],
      ['legacy: 6 fields (unsigned)', withLegacy((x) => x.splice(6, 3))],
      ['legacy: 8 fields', withLegacy((x) => x.pop())],
      ['legacy: v 26', withLegacy((x) => (x[6] = b(26)))],
      ['legacy: v 36', withLegacy((x) => (x[6] = b(36)))],
      ['legacy: v for chain 1', withLegacy((x) => (x[6] = b(37)))],
      ['legacy: v empty', withLegacy((x) => (x[6] = new Uint8Array(0)))],
      ['legacy: leading zero in gas price', withLegacy((x) => (x[1] = b(0, 1)))],
      [
        'legacy: gas price times gas over 2^256-1',
        withLegacy((x) => {
          x[1] = big(1n << 250n);
          x[2] = big(1n << 20n);
        }),
      ],
      ['legacy: gas price over 32 bytes', withLegacy((x) => (x[1] = big(1n << 256n)))],
      ['legacy: r zero', withLegacy((x) => (x[7] = new Uint8Array(0)))],
      ['legacy: s at the curve order', withLegacy((x) => (x[8] = big(SECP_N)))],
      ['legacy: high s', withLegacy((x) => (x[8] = big(SECP_N - (legacy.s as bigint))))],
      ['legacy: v with a huge chain id', withLegacy((x) => (x[6] = big((1n << 70n) + 35n)))],
      ['legacy: trailing byte', Uint8Array.from([...legacy.serialize(), 0x80])],
      ['2930: leading zero in gas price', with2930((x) => (x[2] = b(0, 1)))],
      ['2930: 12 fields', with2930((x) => x.push(b(1)))],
      ['2930: wrong chain id', with2930((x) => (x[0] = big(5n)))],
      ['2930: y-parity 2', with2930((x) => (x[8] = b(2)))],
      ['7702: empty authorization list', with7702((x) => (x[9] = []))],
      ['7702: creation', with7702((x) => (x[5] = new Uint8Array(0)))],
      [
        '7702: authorization of five items',
        with7702((x) => (x[9] = [((x[9] as Fields)[0] as Fields).slice(0, 5)])),
      ],
      [
        '7702: authorization nonce over 2^64-1',
        with7702((x) => (((x[9] as Fields)[0] as Fields)[2] = big(1n << 64n))),
      ],
      [
        '7702: authorization y-parity over a byte',
        with7702((x) => (((x[9] as Fields)[0] as Fields)[3] = big(256n))),
      ],
      [
        '7702: authorization address of 21 bytes',
        with7702((x) => (((x[9] as Fields)[0] as Fields)[1] = new Uint8Array(21))),
      ],
      ['7702: authorization list as a string', with7702((x) => (x[9] = b(1)))],
    );
  });
  afterAll(async () => {
    await chain?.close();
  });

  it('gives every malformed transaction the reason and message it had before', async () => {
    // As bytes and as a Buffer (eth_sendRawTransaction's parameter is one).
    for (const form of [(raw: Uint8Array) => raw.slice(), (raw: Uint8Array) => Buffer.from(raw)]) {
      const seen: Record<string, [string, string] | 'accepted'> = {};
      for (const [name, raw] of cases) {
        try {
          await pool.addRaw(form(raw), true);
          seen[name] = 'accepted';
        } catch (err) {
          seen[name] =
            err instanceof TxPoolError
              ? [err.reason, err.message]
              : [String(err), String((err as Error).stack)];
        }
      }
      if (process.env.ALDER_RECORD_REJECTIONS)
        writeFileSync(process.env.ALDER_RECORD_REJECTIONS, JSON.stringify(seen, null, 2));
      expect(seen).toEqual(EXPECTED);
    }
  });

  it('decodes valid transactions into frozen library objects that answer with the bytes received', () => {
    const common = chain.services.common;
    for (const raw of valid) {
      const tx = pool.decode(raw);
      const lib = createTxFromRLP(raw, { common });
      expect(Object.getPrototypeOf(tx)).toBe(Object.getPrototypeOf(lib));
      expect(Object.isFrozen(tx)).toBe(true);
      expect(Object.keys(tx)).toEqual([...Object.keys(lib), 'serialize', 'getSenderAddress']);
      expect(tx.serialize()).toEqual(raw);
      expect(tx.hash()).toEqual(lib.hash());
      expect(tx.toJSON()).toEqual(lib.toJSON());
      expect(tx.getSenderAddress().toString()).toBe(A);
      expect(tx.getIntrinsicGas()).toBe(lib.getIntrinsicGas());
      expect(tx.common.hardfork()).toBe('prague');
    }
  });

  it('takes none of the inputs the library refuses through the fast path', () => {
    const common = chain.services.common;
    for (const [name, raw] of cases) {
      let refused = false;
      try {
        createTxFromRLP(raw, { common, freeze: false });
      } catch {
        refused = true;
      }
      if (refused) expect(fastDecodeTx(raw, common), name).toBeUndefined();
    }
  });
});

/** `good` with its nonce (0x80 for zero) replaced by a long-written single byte: 0x81 0x05. */
function nonCanonicalByte(good: Uint8Array): Uint8Array {
  const x = RLP.decode(good.subarray(1)) as Uint8Array[];
  x[1] = b(5);
  const enc = RLP.encode(x as never);
  // The nonce 5 is written as the single byte 0x05 right after the encoded chain id (0x82 0x05 0x39).
  const at = enc.indexOf(0x05, enc.indexOf(0x39) + 1);
  const out = Uint8Array.from([2, ...enc.subarray(0, at), 0x81, ...enc.subarray(at)]);
  // The list grew by one byte: fix its length prefix (a short list header here).
  if ((out[1] as number) <= 0xf7) out[1] = (out[1] as number) + 1;
  else out[(out[1] as number) - 0xf7 + 1] = (out[(out[1] as number) - 0xf7 + 1] as number) + 1;
  return out;
}

/** A 1559 transaction whose outer list (over 55 bytes) gets its length with a leading zero byte. */
function zeroPaddedListLength(good: Uint8Array): Uint8Array {
  const lenBytes = (good[1] as number) - 0xf7;
  return Uint8Array.from([2, 0xf7 + lenBytes + 1, 0, ...good.subarray(2)]);
}

/** The access list of one entry (under 56 bytes) written with a long-form header: 0xf8 0x17. */
function longFormList(good: Uint8Array): Uint8Array {
  const x = RLP.decode(good.subarray(1)) as unknown[];
  x[8] = [[new Uint8Array(20).fill(0xbb), []]];
  const enc = RLP.encode(x as never);
  const at = enc.findIndex((v, i) => v === 0xd7 && enc[i + 1] === 0xd6 && enc[i + 2] === 0x94);
  const inner = Uint8Array.from([...enc.subarray(0, at), 0xf8, 0x17, ...enc.subarray(at + 1)]);
  const payload = inner.subarray((inner[0] as number) - 0xf7 + 1);
  return Uint8Array.from([2, 0xf8, payload.length, ...payload]);
}

const EXPECTED: Record<string, [string, string] | 'accepted'> = {
  'empty input': ['DECODE', 'DECODE: Invalid serialized tx input. Must be array'],
  'unknown type 5': ['DECODE', 'DECODE: TypedTransaction with ID 5 unknown'],
  'type 0x7f': ['DECODE', 'DECODE: TypedTransaction with ID 127 unknown'],
  'a lone empty list': [
    'DECODE',
    'DECODE: Invalid transaction. Only expecting 6 values (for unsigned tx) or 9 values (for signed tx).',
  ],
  'a string at the top': ['DECODE', 'DECODE: Invalid serialized tx input. Must be array'],
  '1559: 11 fields': [
    'DECODE',
    'DECODE: Invalid EIP-1559 transaction. Only expecting 9 values (for unsigned tx) or 12 values (for signed tx).',
  ],
  '1559: 13 fields': [
    'DECODE',
    'DECODE: Invalid EIP-1559 transaction. Only expecting 9 values (for unsigned tx) or 12 values (for signed tx).',
  ],
  '1559: leading zero in nonce': ['DECODE', 'DECODE: nonce cannot have leading zeroes, received: 0x0005'],
  '1559: nonce zero as a 0x00 byte': ['DECODE', 'DECODE: nonce cannot have leading zeroes, received: 0x00'],
  '1559: leading zero in value': ['DECODE', 'DECODE: value cannot have leading zeroes, received: 0x0001'],
  '1559: nonce 2^64-1': [
    'DECODE',
    'DECODE: nonce cannot equal or exceed MAX_UINT64 (2^64-1), given 18446744073709551615',
  ],
  '1559: nonce over 8 bytes': [
    'DECODE',
    'DECODE: nonce cannot equal or exceed MAX_UINT64 (2^64-1), given 18446744073709551616',
  ],
  '1559: gas limit over 2^64': [
    'DECODE',
    'DECODE: gasLimit cannot exceed MAX_UINT64 (2^64-1), given 18446744073709551616',
  ],
  '1559: value over 32 bytes': [
    'DECODE',
    'DECODE: value cannot exceed MAX_INTEGER (2^256-1), given 115792089237316195423570985008687907853269984665640564039457584007913129639936',
  ],
  '1559: r over 32 bytes': [
    'DECODE',
    'DECODE: r cannot exceed MAX_INTEGER (2^256-1), given 115792089237316195423570985008687907853269984665640564039457584007913129639936',
  ],
  '1559: s over 32 bytes': [
    'DECODE',
    'DECODE: s cannot exceed MAX_INTEGER (2^256-1), given 115792089237316195423570985008687907853269984665640564039457584007913129639936',
  ],
  '1559: gas limit times fee cap over 2^256-1': [
    'DECODE',
    'DECODE: gasLimit * maxFeePerGas cannot exceed MAX_INTEGER (2^256-1) (tx type=2 hash=0x5b73b63455fbeaa9fc7dfaaa310fe02aa4056b2cd9e9a9bc6eea8519d40cf420 nonce=0 value=0 signed=true hf=prague maxFeePerGas=1809251394333065553493296640760748560207343510400633813116524750123642650624 maxPriorityFeePerGas=1000000000)',
  ],
  '1559: priority fee above fee cap': [
    'MAX_PRIORITY_FEE_EXCEEDS_MAX_FEE',
    'MAX_PRIORITY_FEE_EXCEEDS_MAX_FEE',
  ],
  '1559: wrong chain id': ['WRONG_CHAIN_ID', 'WRONG_CHAIN_ID'],
  '1559: chain id as a list': ['DECODE', 'DECODE: chainId cannot be an array'],
  '1559: high s': [
    'DECODE',
    'DECODE: Invalid Signature: s-values greater than secp256k1n/2 are considered invalid (tx type=2 hash=0xb7bb746a4a94a365b53e139e258bedd88e4f1da282d37bdfc66a11aeca518d4d nonce=0 value=0 signed=true hf=prague maxFeePerGas=10000000000 maxPriorityFeePerGas=1000000000)',
  ],
  '1559: y-parity 2': [
    'DECODE',
    'DECODE: The y-parity of the transaction should either be 0 or 1 (tx type=2 hash=0xda72d5ad7721ec8141fac4151e2334de7b39c0a91973fc6e40fd51d36b21deaa nonce=0 value=0 signed=true hf=prague maxFeePerGas=10000000000 maxPriorityFeePerGas=1000000000)',
  ],
  '1559: y-parity as 0x00': ['DECODE', 'DECODE: v cannot have leading zeroes, received: 0x00'],
  '1559: to as a list': ['DECODE', 'DECODE: to cannot be an array'],
  '1559: to of 19 bytes': ['DECODE', 'DECODE: Invalid address length'],
  '1559: data as a list': ['DECODE', 'DECODE: data cannot be an array'],
  '1559: nonce as a list': ['DECODE', 'DECODE: nonce cannot be an array'],
  '1559: access list as a string': [
    'DECODE',
    "DECODE: Cannot read properties of undefined (reading 'startsWith')",
  ],
  '1559: access list as an empty string': ['UPFRONT_COST_EXCEEDS_BALANCE', 'UPFRONT_COST_EXCEEDS_BALANCE'],
  '1559: access entry of three items': [
    'DECODE',
    'DECODE: Invalid EIP-2930 transaction: access list item should have 2 elements',
  ],
  '1559: access address of 19 bytes': [
    'DECODE',
    'DECODE: Invalid EIP-2930 transaction: address length should be 20 bytes',
  ],
  '1559: access slot of 31 bytes': [
    'DECODE',
    'DECODE: Invalid EIP-2930 transaction: storage slot length should be 32 bytes',
  ],
  '1559: access slots as a string': [
    'DECODE',
    'DECODE: Invalid EIP-2930 transaction: storage slot length should be 32 bytes',
  ],
  '1559: unsigned (9 fields)': ['DECODE', 'DECODE: signature values out of range'],
  '1559: r empty': ['DECODE', 'DECODE: signature values out of range'],
  '1559: r and s zero bytes': ['DECODE', 'DECODE: signature values out of range'],
  '1559: creation with too large init code': [
    'DECODE',
    'DECODE: the initcode size of this transaction is too large: it is 49153 while the max is 49152',
  ],
  '1559: trailing byte': ['DECODE', 'DECODE: invalid RLP: remainder must be zero'],
  '1559: truncated': ['DECODE', 'DECODE: invalid RLP: total length is larger than the data'],
  '1559: a single byte below 0x80 written long (0x81 0x05)': [
    'DECODE',
    'DECODE: invalid RLP encoding: invalid prefix, single byte < 0x80 are not prefixed',
  ],
  '1559: short list written in long form': ['DECODE', 'DECODE: invalid RLP: encoded list too short'],
  '1559: list length with a leading zero': ['DECODE', 'DECODE: invalid RLP: extra zeros'],
  'legacy: 6 fields (unsigned)': ['DECODE', 'DECODE: signature values out of range'],
  'legacy: 8 fields': [
    'DECODE',
    'DECODE: Invalid transaction. Only expecting 6 values (for unsigned tx) or 9 values (for signed tx).',
  ],
  'legacy: v 26': [
    'DECODE',
    'DECODE: Legacy txs need either v = 27/28 or v >= 37 (EIP-155 replay protection), got v = 26',
  ],
  'legacy: v 36': ['WRONG_CHAIN_ID', 'WRONG_CHAIN_ID'],
  'legacy: v for chain 1': ['WRONG_CHAIN_ID', 'WRONG_CHAIN_ID'],
  // Before: a plain 'Cannot call hash method if transaction is not signed' error (JSON-RPC internal error).
  'legacy: v empty': ['DECODE', 'DECODE: signature values out of range'],
  'legacy: leading zero in gas price': [
    'DECODE',
    'DECODE: gasPrice cannot have leading zeroes, received: 0x0001',
  ],
  'legacy: gas price times gas over 2^256-1': [
    'DECODE',
    'DECODE: gas limit * gasPrice cannot exceed MAX_INTEGER (2^256-1)',
  ],
  'legacy: gas price over 32 bytes': [
    'DECODE',
    'DECODE: gasPrice cannot exceed MAX_INTEGER (2^256-1), given 115792089237316195423570985008687907853269984665640564039457584007913129639936',
  ],
  'legacy: r zero': ['DECODE', 'DECODE: signature values out of range'],
  'legacy: s at the curve order': ['DECODE', 'DECODE: signature values out of range'],
  'legacy: high s': [
    'INVALID_SIGNATURE',
    'INVALID_SIGNATURE: Invalid Signature: s-values greater than secp256k1n/2 are considered invalid (tx type=0 hash=0x1c4e804e147c7172f40e2cc610d020eab883b2490bccbf1dcd2138ef1e602080 nonce=0 value=0 signed=true hf=prague gasPrice=10000000000)',
  ],
  'legacy: v with a huge chain id': ['WRONG_CHAIN_ID', 'WRONG_CHAIN_ID'],
  'legacy: trailing byte': ['DECODE', 'DECODE: invalid RLP: remainder must be zero'],
  '2930: leading zero in gas price': [
    'DECODE',
    'DECODE: gasPrice cannot have leading zeroes, received: 0x0001',
  ],
  '2930: 12 fields': [
    'DECODE',
    'DECODE: Invalid EIP-2930 transaction. Only expecting 8 values (for unsigned tx) or 11 values (for signed tx).',
  ],
  '2930: wrong chain id': ['WRONG_CHAIN_ID', 'WRONG_CHAIN_ID'],
  '2930: y-parity 2': [
    'DECODE',
    'DECODE: The y-parity of the transaction should either be 0 or 1 (tx type=1 hash=0x9b70c09fc63b17cd436b731f7a62488ff3012f715a83c968fa03f1f208def172 nonce=0 value=0 signed=true hf=prague gasPrice=10000000000 accessListCount=1)',
  ],
  '7702: empty authorization list': [
    'DECODE',
    'DECODE: Invalid EIP-7702 transaction: authorization list is empty',
  ],
  '7702: creation': [
    'DECODE',
    'DECODE: tx should have a "to" field and cannot be used to create contracts (tx type=4 hash=0x27e08b801b5495ca4b43f1af19d7206ea09c9fba0c86b61d98cf23c20b629f0b nonce=0 value=0 signed=true hf=prague maxFeePerGas=10000000000 maxPriorityFeePerGas=1000000000)',
  ],
  '7702: authorization of five items': [
    'DECODE',
    'DECODE: Invalid EIP-7702 transaction: authorization list item should have 6 elements',
  ],
  '7702: authorization nonce over 2^64-1': [
    'DECODE',
    'DECODE: Invalid EIP-7702 transaction: nonce exceeds 2^64 - 1',
  ],
  '7702: authorization y-parity over a byte': [
    'DECODE',
    'DECODE: Invalid EIP-7702 transaction: yParity should be fit within 1 byte (0 - 255)',
  ],
  '7702: authorization address of 21 bytes': [
    'DECODE',
    'DECODE: Invalid EIP-7702 transaction: address length should be 20 bytes',
  ],
  '7702: authorization list as a string': [
    'DECODE',
    'DECODE: EIP-7702 authorization list invalid: chainId is not defined',
  ],
};
