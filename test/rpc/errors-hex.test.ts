import { describe, expect, it } from 'vitest';
import { LogQueryError } from '../../src/filters/logQuery.js';
import { FilterLimitError } from '../../src/filters/manager.js';
import { NoCoinbaseError } from '../../src/mining/service.js';
import {
  INTERNAL_ERROR,
  NONCE_TOO_LOW,
  RpcError,
  revertError,
  setRpcErrorLogger,
  toErrorObject,
  withDetail,
} from '../../src/rpc/errors.js';
import {
  address,
  bytes,
  hexToBigInt,
  hexToBytes,
  padded,
  quantity,
  quotedBytes,
} from '../../src/rpc/format/hex.js';
import { SubscriptionNotFoundError } from '../../src/rpc/subscriptions/manager.js';
import { TxPoolError } from '../../src/txpool/pool.js';

describe('errors', () => {
  it('adds a detail as "<base> (<detail>)"', () => {
    expect(withDetail(NONCE_TOO_LOW, 'transaction nonce 1 below sender account nonce 5')).toEqual({
      code: -32001,
      message: 'Nonce too low (transaction nonce 1 below sender account nonce 5)',
    });
    expect(withDetail(NONCE_TOO_LOW, undefined)).toBe(NONCE_TOO_LOW);
  });

  it('maps RpcError as is, omits null data, and hides anything else behind -32603', () => {
    const logged: unknown[] = [];
    setRpcErrorLogger({ error: (details) => logged.push(details) });
    expect(toErrorObject(new RpcError(NONCE_TOO_LOW))).toEqual({ code: -32001, message: 'Nonce too low' });
    expect(toErrorObject(new RpcError(NONCE_TOO_LOW, null))).toEqual({
      code: -32001,
      message: 'Nonce too low',
    });
    expect(toErrorObject(new Error('secret'))).toEqual({
      code: INTERNAL_ERROR.code,
      message: 'Internal error',
    });
    expect(logged).toHaveLength(1);
  });

  it('maps the domain errors of the layers below to Besu codes and messages', () => {
    expect(toErrorObject(new TxPoolError('NONCE_TOO_LOW', 'nonce 1 below 5'))).toEqual({
      code: -32001,
      message: 'Nonce too low',
    });
    expect(toErrorObject(new TxPoolError('DECODE'))).toEqual({ code: -32602, message: 'Invalid params' });
    expect(toErrorObject(new FilterLimitError())).toEqual({ code: -32000, message: 'Filter limit reached' });
    expect(toErrorObject(new NoCoinbaseError())).toEqual({
      code: -32010,
      message: 'Coinbase not set. Unable to start mining without a coinbase',
    });
    expect(toErrorObject(new SubscriptionNotFoundError())).toEqual({
      code: -32000,
      message: 'Subscription not found',
    });
    expect(toErrorObject(new LogQueryError('UNKNOWN_BLOCK_HASH'))).toEqual({
      code: -32000,
      message: 'Block not found',
    });
    expect(toErrorObject(new LogQueryError('RANGE_TOO_WIDE'))).toEqual({
      code: -32005,
      message: 'Requested range exceeds maximum RPC range limit',
    });
  });

  it('builds revert errors with code 3, decoded Error(string) reason and raw data', () => {
    const userError =
      '0x08c379a00000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000000a75736572206572726f72';
    expect(revertError(userError).toErrorObject()).toEqual({
      code: 3,
      message: 'Execution reverted (user error)',
      data: userError,
    });
    const panic = '0x4e487b710000000000000000000000000000000000000000000000000000000000000001';
    expect(revertError(panic).toErrorObject()).toEqual({
      code: 3,
      message: 'Execution reverted',
      data: panic,
    });
    expect(revertError('0x08c379a0dead').message).toBe('Execution reverted (ABI decode error)');
    expect(revertError(new Uint8Array()).toErrorObject()).toEqual({
      code: 3,
      message: 'Execution reverted',
      data: '0x',
    });
  });
});

describe('hex', () => {
  it('quantity is minimal', () => {
    expect(quantity(0)).toBe('0x0');
    expect(quantity(0n)).toBe('0x0');
    expect(quantity(255)).toBe('0xff');
    expect(quantity(2n ** 256n - 1n)).toBe(`0x${'f'.repeat(64)}`);
    expect(() => quantity(-1)).toThrow();
    expect(() => quantity(1.5)).toThrow();
  });

  it('bytes and hexToBytes round-trip, short and long', () => {
    for (const n of [0, 1, 20, 32, 33, 300]) {
      const b = Uint8Array.from({ length: n }, (_, i) => (i * 37) & 0xff);
      const hex = bytes(b);
      expect(hex).toBe(`0x${Buffer.from(b).toString('hex')}`);
      expect(Array.from(hexToBytes(hex))).toEqual(Array.from(b));
    }
    expect(() => hexToBytes('0x123')).toThrow();
    expect(Array.from(hexToBytes('0x123', true))).toEqual([1, 0x23]);
    expect(() => hexToBytes('0xzz')).toThrow();
  });

  it('quotedBytes is bytes as a JSON string, up to the scratch size and beyond it', () => {
    for (const n of [0, 1, 32, 2046, 2047, 5000]) {
      const b = Uint8Array.from({ length: n }, (_, i) => (i * 101 + 7) & 0xff);
      expect(quotedBytes(b)).toBe(JSON.stringify(bytes(b)));
    }
  });

  it('address, padded, hexToBigInt', () => {
    expect(address('0xABCDEF0000000000000000000000000000000001')).toBe(
      '0xabcdef0000000000000000000000000000000001',
    );
    expect(padded(1n)).toBe(`0x${'0'.repeat(63)}1`);
    expect(padded(new Uint8Array([1, 2]), 4)).toBe('0x00000102');
    expect(() => padded(1n << 256n)).toThrow();
    expect(hexToBigInt('0x')).toBe(0n);
    expect(hexToBigInt('0xff')).toBe(255n);
  });
});
