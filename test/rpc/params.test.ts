import { describe, expect, it } from 'vitest';
import {
  INVALID_ADDRESS_PARAMS,
  INVALID_BLOCK_NUMBER_PARAMS,
  INVALID_BLOCK_PARAMS,
  INVALID_PARAM_COUNT,
  INVALID_PARAMS,
  INVALID_TRANSACTION_HASH_PARAMS,
  INVALID_TRANSACTION_ID_PARAMS,
  RpcError,
  type RpcErrorSpec,
} from '../../src/rpc/errors.js';
import {
  address,
  addressBytes,
  blockNumberParam,
  blockParam,
  bool,
  data,
  hash32,
  javaLongDecode,
  long,
  optional,
  optionalParam,
  param,
  quantity,
  requireParamCount,
  uint64,
} from '../../src/rpc/params.js';

function errorOf(fn: () => unknown): { code: number; message: string } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RpcError);
    return { code: (err as RpcError).code, message: (err as RpcError).message };
  }
  throw new Error('expected an RpcError');
}

const spec = (s: RpcErrorSpec) => ({ code: s.code, message: s.message });
const HASH = '0xb73cee02246c6f32ac0f459934e89102c2ce904d966a4fc2ab6309c3e104b9cb';

describe('javaLongDecode', () => {
  it('follows java.lang.Long.decode', () => {
    expect(javaLongDecode('0x10')).toBe(16n);
    expect(javaLongDecode('0X1f')).toBe(31n);
    expect(javaLongDecode('#ff')).toBe(255n);
    expect(javaLongDecode('25')).toBe(25n);
    expect(javaLongDecode('010')).toBe(8n);
    expect(javaLongDecode('0')).toBe(0n);
    expect(javaLongDecode('-0x10')).toBe(-16n);
    expect(javaLongDecode('+7')).toBe(7n);
    expect(javaLongDecode('0x7fffffffffffffff')).toBe((1n << 63n) - 1n);
    expect(javaLongDecode('-0x8000000000000000')).toBe(-(1n << 63n));
    // Up to 13 digits and beyond: the same values whichever way they are read.
    expect(javaLongDecode('0xFfFfFfFfFfFfF')).toBe((1n << 52n) - 1n);
    expect(javaLongDecode('0x10000000000000')).toBe(1n << 52n);
    expect(javaLongDecode('0x000000000000003e3')).toBe(995n);
    for (const bad of [
      '',
      '-',
      '0x',
      '0x8000000000000000',
      '08',
      '0x-1',
      '1a',
      ' 1',
      '0x0L',
      'latest',
      '0x1 ',
      '0xg',
    ]) {
      expect(javaLongDecode(bad), bad).toBeUndefined();
    }
  });
});

describe('blockParam (number, tag, hash or EIP-1898 object)', () => {
  it('tags, case-insensitive', () => {
    for (const tag of ['latest', 'earliest', 'pending', 'safe', 'finalized'] as const) {
      expect(blockParam(tag)).toEqual({ kind: 'tag', tag });
      expect(blockParam(tag.toUpperCase())).toEqual({ kind: 'tag', tag });
    }
  });

  it('numbers: hex, decimal, negative', () => {
    expect(blockParam('0x19')).toEqual({ kind: 'number', number: 25n });
    expect(blockParam('25')).toEqual({ kind: 'number', number: 25n });
    expect(blockParam('-0x10')).toEqual({ kind: 'number', number: -16n });
  });

  it('hashes of 65+ characters, and refuses 17–64 characters', () => {
    expect(blockParam(HASH)).toEqual({ kind: 'hash', hash: HASH, requireCanonical: false });
    expect(blockParam(HASH.toUpperCase().replace('0X', '0x'))).toEqual({
      kind: 'hash',
      hash: HASH,
      requireCanonical: false,
    });
    expect(errorOf(() => blockParam(`${HASH}1234`))).toEqual(spec(INVALID_BLOCK_PARAMS));
    expect(errorOf(() => blockParam('0x0000000000000001'))).toEqual(spec(INVALID_BLOCK_PARAMS));
    expect(errorOf(() => blockParam('invalidtag'))).toEqual(spec(INVALID_BLOCK_PARAMS));
  });

  it('EIP-1898 objects', () => {
    expect(blockParam({ blockHash: HASH })).toEqual({ kind: 'hash', hash: HASH, requireCanonical: false });
    expect(blockParam({ blockHash: HASH, requireCanonical: true })).toEqual({
      kind: 'hash',
      hash: HASH,
      requireCanonical: true,
    });
    expect(blockParam({ blockHash: HASH, requireCanonical: 'true' })).toMatchObject({
      requireCanonical: true,
    });
    expect(blockParam({ blockNumber: '0x19' })).toEqual({ kind: 'number', number: 25n });
    expect(blockParam({ blockNumber: 25 })).toEqual({ kind: 'number', number: 25n });
    for (const bad of [
      {},
      { blockNumber: 'latest' },
      { blockHash: null },
      { blockHash: 'xyz' },
      [1],
      5,
      true,
    ]) {
      expect(errorOf(() => blockParam(bad))).toEqual(spec(INVALID_BLOCK_PARAMS));
    }
  });

  it('missing: the method error', () => {
    expect(errorOf(() => param([], 1, blockParam))).toEqual(spec(INVALID_BLOCK_PARAMS));
    expect(errorOf(() => param(['0x1', null], 1, blockParam))).toEqual(spec(INVALID_BLOCK_PARAMS));
    expect(errorOf(() => param(['x'], 0, blockParam, INVALID_BLOCK_NUMBER_PARAMS))).toEqual(
      spec(INVALID_BLOCK_NUMBER_PARAMS),
    );
  });
});

describe('blockNumberParam (tags and numbers only)', () => {
  it('has no length limit and refuses hashes and objects', () => {
    expect(blockNumberParam('0x0000000000000001')).toEqual({ kind: 'number', number: 1n });
    expect(blockNumberParam('LATEST')).toEqual({ kind: 'tag', tag: 'latest' });
    expect(errorOf(() => blockNumberParam(HASH))).toEqual(spec(INVALID_BLOCK_PARAMS));
    expect(errorOf(() => blockNumberParam({ blockNumber: '0x1' }))).toEqual(spec(INVALID_BLOCK_PARAMS));
    expect(errorOf(() => blockNumberParam(1))).toEqual(spec(INVALID_BLOCK_PARAMS));
  });
});

describe('address', () => {
  it('is lenient like Address.fromHexString and normalises to lowercase', () => {
    expect(address('0x8888F1F195AFA192CFEE860698584C030F4C9DB1')).toBe(
      '0x8888f1f195afa192cfee860698584c030f4c9db1',
    );
    expect(address('a94f5374fce5edbc8e2a8697c15331677e6ebf0b')).toBe(
      '0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b',
    );
    expect(address('0x1')).toBe('0x0000000000000000000000000000000000000001');
  });

  it('refuses bad values with its error', () => {
    for (const bad of ['0x8888f1f195afa192cfee860698584c030f4c9db1ff', 'foo', '0xzz', 12, {}]) {
      expect(errorOf(() => address(bad))).toEqual(spec(INVALID_ADDRESS_PARAMS));
    }
  });
});

describe('hash32, data, quantities, bool', () => {
  it('hash32 wants exactly 32 bytes', () => {
    expect(hash32(HASH.toUpperCase().replace('0X', '0x'))).toBe(HASH);
    expect(hash32(HASH.slice(2))).toBe(HASH);
    expect(errorOf(() => hash32('0x0', INVALID_TRANSACTION_HASH_PARAMS))).toEqual(
      spec(INVALID_TRANSACTION_HASH_PARAMS),
    );
    expect(errorOf(() => hash32(`${HASH}00`))).toEqual(spec(INVALID_PARAMS));
  });

  it('data wants even-length hex', () => {
    expect(Array.from(data('0x0123'))).toEqual([1, 0x23]);
    expect(data('0x')).toHaveLength(0);
    expect(Array.from(data('ff'))).toEqual([255]);
    expect(errorOf(() => data('0x123'))).toEqual(spec(INVALID_PARAMS));
    expect(errorOf(() => data('0xgg'))).toEqual(spec(INVALID_PARAMS));
  });

  it('data reads either case and refuses every other character, short or long', () => {
    expect(Array.from(data('0xABcd'))).toEqual([0xab, 0xcd]);
    // Only a lowercase prefix is a prefix; `0X` is two more (invalid) digits.
    expect(errorOf(() => data('0XAB'))).toEqual(spec(INVALID_PARAMS));
    for (const bad of ['0x0g', '0x 1', '0x\u01001', '0x\u00ff0', '0x0x', 'zz', '0x-1']) {
      expect(errorOf(() => data(bad))).toEqual(spec(INVALID_PARAMS));
    }
    // Long inputs take the native decoder: same bytes, same refusals.
    const long = 'a1'.repeat(3000);
    expect(Buffer.from(data(`0x${long}`)).toString('hex')).toBe(long);
    expect(Buffer.from(data(long.toUpperCase())).toString('hex')).toBe(long);
    expect(errorOf(() => data(`0x${long}g0`))).toEqual(spec(INVALID_PARAMS));
    expect(errorOf(() => data(`0x${long}0`))).toEqual(spec(INVALID_PARAMS));
  });

  it('addressBytes: the 20 bytes of what address accepts', () => {
    const full = '0x00000000000000000000000000000000000A1dE7';
    expect(Buffer.from(addressBytes(full)).toString('hex')).toBe(address(full).slice(2));
    expect(Buffer.from(addressBytes('0xa1de7')).toString('hex')).toBe(
      '00000000000000000000000000000000000a1de7',
    );
    expect(Buffer.from(addressBytes('a1de7')).toString('hex')).toBe(
      '00000000000000000000000000000000000a1de7',
    );
    for (const bad of [`0x${'0'.repeat(39)}g`, `0x${'1'.repeat(41)}`, '0xzz', 7, null]) {
      expect(errorOf(() => addressBytes(bad))).toEqual(spec(INVALID_ADDRESS_PARAMS));
    }
  });

  it('quantity: UInt256, lenient', () => {
    expect(quantity('0x10')).toBe(16n);
    expect(quantity('10')).toBe(16n);
    expect(quantity('0x')).toBe(0n);
    expect(quantity(`0x${'f'.repeat(64)}`)).toBe((1n << 256n) - 1n);
    expect(errorOf(() => quantity(`0x1${'0'.repeat(64)}`))).toEqual(spec(INVALID_PARAMS));
    expect(errorOf(() => quantity(16))).toEqual(spec(INVALID_PARAMS));
  });

  it('uint64 and long', () => {
    expect(uint64('0xff')).toBe(255n);
    expect(uint64('ff')).toBe(255n);
    expect(uint64(7)).toBe(7n);
    expect(uint64('0xffffffffffffffff')).toBe((1n << 64n) - 1n);
    expect(errorOf(() => uint64('0x10000000000000000'))).toEqual(spec(INVALID_PARAMS));
    expect(long('0x0')).toBe(0n);
    expect(errorOf(() => long('0x0L', INVALID_TRANSACTION_ID_PARAMS))).toEqual(
      spec(INVALID_TRANSACTION_ID_PARAMS),
    );
  });

  it('bool reads like Jackson', () => {
    expect(bool(true)).toBe(true);
    expect(bool('false')).toBe(false);
    expect(bool('TRUE')).toBe(true);
    expect(bool(0)).toBe(false);
    expect(errorOf(() => bool('yes'))).toEqual(spec(INVALID_PARAMS));
  });
});

describe('optional parameters and arity', () => {
  it('absent or null is undefined', () => {
    expect(optionalParam([], 0, address)).toBeUndefined();
    expect(optionalParam([null], 0, address)).toBeUndefined();
    expect(optional(address)(undefined)).toBeUndefined();
    expect(optionalParam(['0x1'], 0, address)).toBe('0x0000000000000000000000000000000000000001');
    expect(errorOf(() => optionalParam(['xyz'], 0, address))).toEqual(spec(INVALID_ADDRESS_PARAMS));
  });

  it('requireParamCount answers Invalid number of params', () => {
    expect(errorOf(() => requireParamCount([1, 2], 1))).toEqual(spec(INVALID_PARAM_COUNT));
    expect(() => requireParamCount([1], 1)).not.toThrow();
  });
});
