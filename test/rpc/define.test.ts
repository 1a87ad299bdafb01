import { describe, expect, it } from 'vitest';
import {
  INVALID_BLOCK_PARAMS,
  INVALID_CALL_PARAMS,
  INVALID_PARAM_COUNT,
  RpcError,
  UNKNOWN_BLOCK,
} from '../../src/rpc/errors.js';
import { deferred, defineMethod, optional, required, withDefault } from '../../src/rpc/methods/define.js';
import type { MethodContext } from '../../src/rpc/methods/types.js';
import { address, blockNumberParam, bool, uint64 } from '../../src/rpc/params.js';

const ctx = { transport: 'http' } as MethodContext;

function errorOf(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err instanceof RpcError ? err.toErrorObject() : err;
  }
  return undefined;
}

describe('defineMethod', () => {
  it('hands the handler the decoded values in position order', () => {
    const m = defineMethod({
      name: 'x_test',
      group: 'ETH',
      params: [required(address), required(uint64), optional(bool), withDefault(bool, true)],
      handler: (args) => args,
    });
    expect(m.handler(['0x01', '0x10'], ctx)).toEqual([
      '0x0000000000000000000000000000000000000001',
      16n,
      undefined,
      true,
    ]);
    expect(m.params).toHaveLength(4);
  });

  it('answers the error of the first parameter in Besu order', () => {
    const leftToRight = defineMethod({
      name: 'x_ltr',
      group: 'ETH',
      params: [required(address, INVALID_CALL_PARAMS), required(blockNumberParam, INVALID_BLOCK_PARAMS)],
      handler: () => null,
    });
    const blockFirst = defineMethod({
      name: 'x_blockFirst',
      group: 'ETH',
      params: [required(address, INVALID_CALL_PARAMS), required(blockNumberParam, INVALID_BLOCK_PARAMS)],
      order: [1, 0],
      handler: () => null,
    });
    expect(errorOf(() => leftToRight.handler(['xyz', 'xyz'], ctx))).toEqual(INVALID_CALL_PARAMS);
    expect(errorOf(() => blockFirst.handler(['xyz', 'xyz'], ctx))).toEqual(INVALID_BLOCK_PARAMS);
  });

  it('decodes a deferred parameter only when the handler asks, after its own checks', () => {
    let decodedAt = 'never';
    const m = defineMethod({
      name: 'x_deferred',
      group: 'ETH',
      params: [deferred(required(address, INVALID_CALL_PARAMS)), required(blockNumberParam)],
      handler([callee, block]) {
        if (block.kind === 'number' && block.number > 10n) throw new RpcError(UNKNOWN_BLOCK);
        decodedAt = 'handler';
        return callee();
      },
    });
    expect(errorOf(() => m.handler(['xyz', '0x20'], ctx))).toEqual(UNKNOWN_BLOCK);
    expect(decodedAt).toBe('never');
    expect(errorOf(() => m.handler(['xyz', '0x1'], ctx))).toEqual(INVALID_CALL_PARAMS);
    expect(m.handler(['0x02', '0x1'], ctx)).toBe('0x0000000000000000000000000000000000000002');
  });

  it('checks the parameter count before decoding when the method declares one', () => {
    const m = defineMethod({
      name: 'x_arity',
      group: 'ETH',
      arity: 1,
      params: [required(address)],
      handler: ([a]) => a,
    });
    expect(errorOf(() => m.handler(['xyz', 1], ctx))).toEqual(INVALID_PARAM_COUNT);
    expect(errorOf(() => m.handler([], ctx))).toEqual(INVALID_PARAM_COUNT);
  });

  it('refuses an order that does not name every position once', () => {
    expect(() =>
      defineMethod({
        name: 'x_bad',
        group: 'ETH',
        params: [required(address), required(bool)],
        order: [0, 0],
        handler: () => null,
      }),
    ).toThrow(/order/);
  });
});

describe('defineMethod requires', () => {
  it('runs the service check before decoding, so its error wins', () => {
    let present = false;
    const m = defineMethod({
      name: 'x_requires',
      group: 'MINER',
      params: [required(address, INVALID_CALL_PARAMS)],
      requires: () => {
        if (!present) throw new RpcError(UNKNOWN_BLOCK);
      },
      handler: ([a]) => a,
    });
    expect(errorOf(() => m.handler(['xyz'], ctx))).toEqual(UNKNOWN_BLOCK);
    present = true;
    expect(errorOf(() => m.handler(['xyz'], ctx))).toEqual(INVALID_CALL_PARAMS);
  });
});
