/**
 * debug_trace* beyond the spec cases, on the debug-geth chain: bad input answers Besu's errors and
 * changes nothing, tracer options do what they say, a timeout that expires is `Timeout expired`,
 * debug_traceBlock takes a block's RLP, and debug_traceCall applies state overrides.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE, openTestChain, type TestChain } from './chain.js';

const INVALID_TRACE = { code: -32602, message: 'Invalid transaction trace params' };

describe('debug_trace* options and bad input', () => {
  let chain: TestChain;
  beforeAll(async () => {
    const dir = join(CONFORMANCE, 'besu/debug-geth/chain-data');
    chain = await openTestChain({ genesis: join(dir, 'genesis.json'), blocks: join(dir, 'blocks.bin') });
  });
  afterAll(async () => chain?.close());

  it('unknown tracer, malformed options and config are Invalid transaction trace params', async () => {
    for (const options of [
      { tracer: 'nope' },
      { tracer: 'CallTracer' },
      { tracer: 7 },
      { disableStack: 'yes' },
      { tracer: 'callTracer', tracerConfig: 'x' },
      { tracer: 'callTracer', tracerConfig: { onlyTopCall: 1 } },
      { tracer: 'prestateTracer', tracerConfig: { diffMode: 'true' } },
      { timeout: '10 seconds' },
      { timeout: 5 },
      'struct',
    ]) {
      const got = await chain.call('debug_traceBlockByNumber', ['0xf', options]);
      expect(got.error, JSON.stringify(options)).toEqual(INVALID_TRACE);
    }
  });

  it('unknown transaction and block, genesis, bad hash and block parameters', async () => {
    const zero = `0x${'0'.repeat(63)}1`;
    expect((await chain.call('debug_traceTransaction', [zero])).error).toEqual({
      code: -32000,
      message: 'transaction not found',
    });
    expect((await chain.call('debug_traceBlockByHash', [zero])).error).toEqual({
      code: -32000,
      message: 'Block not found',
    });
    expect((await chain.call('debug_traceBlockByNumber', ['0x0'])).error).toEqual({
      code: -32000,
      message: 'genesis is not traceable',
    });
    expect((await chain.call('debug_traceBlockByNumber', ['0x1000'])).result).toBeNull();
    expect((await chain.call('debug_traceTransaction', ['0x12'])).error?.code).toBe(-32602);
    expect((await chain.call('debug_traceBlockByNumber', ['15'])).error?.code).toBe(-32602);
    expect((await chain.call('debug_traceBlock', ['0xzz'])).error).toEqual({
      code: -32602,
      message: 'Invalid block param (block not found)',
    });
  });

  it('a timeout that expires is Timeout expired; a generous one changes nothing', async () => {
    const slow = await chain.call('debug_traceBlockByNumber', ['0x19', { timeout: '1ns' }]);
    expect(slow.error).toEqual({ code: -32603, message: 'Timeout expired' });
    const ok = await chain.call('debug_traceBlockByNumber', ['0x19', { timeout: '30s' }]);
    const plain = await chain.call('debug_traceBlockByNumber', ['0x19']);
    expect(ok.result).toEqual(plain.result);
  });

  it('disableStack / disableStorage / memory switches shape every entry', async () => {
    type Trace = { result: { structLogs: Record<string, unknown>[] } }[];
    const all = (await chain.call('debug_traceBlockByNumber', ['0xc', { disableMemory: false }]))
      .result as Trace;
    const logs = all[0]?.result.structLogs ?? [];
    expect(logs.some((l) => Array.isArray(l.memory))).toBe(true);
    expect(logs.every((l) => Array.isArray(l.stack))).toBe(true);
    const geth = (await chain.call('debug_traceBlockByNumber', ['0xc', { enableMemory: true }])).result;
    expect(geth).toEqual(all);
    const bare = (
      await chain.call('debug_traceBlockByNumber', [
        '0xe',
        { disableStack: true, disableStorage: true, disableMemory: true },
      ])
    ).result as Trace;
    for (const l of bare[0]?.result.structLogs ?? [])
      expect(Object.keys(l)).toEqual(['pc', 'op', 'gas', 'gasCost', 'depth']);
  });

  it('callTracer: onlyTopCall drops sub-calls; withLog adds each frame its logs', async () => {
    type Frame = { calls?: Frame[]; logs?: { address: string; topics: string[]; data: string }[] };
    const full = (await chain.call('debug_traceBlockByNumber', ['0x13', { tracer: 'callTracer' }]))
      .result as { result: Frame }[];
    expect(full.some((t) => (t.result.calls?.length ?? 0) > 0)).toBe(true);
    const top = (
      await chain.call('debug_traceBlockByNumber', [
        '0x13',
        { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } },
      ])
    ).result as { result: Frame }[];
    for (const t of top) expect(t.result.calls).toBeUndefined();
    const logged = (
      await chain.call('debug_traceBlockByNumber', [
        '0xf',
        { tracer: 'callTracer', tracerConfig: { withLog: true } },
      ])
    ).result as { result: Frame }[];
    const first = logged[0]?.result.logs?.[0];
    expect(first?.address).toBe('0x00a0000000000000000000000000000000000000');
    expect(first?.topics.length).toBe(1);
  });

  it('each transaction traced alone matches its entry of the block trace', async () => {
    for (const number of ['0x4', '0x13', '0x15']) {
      const block = (await chain.call('debug_traceBlockByNumber', [number, { disableMemory: false }]))
        .result as {
        txHash: string;
        result: unknown;
      }[];
      expect(block.length).toBeGreaterThan(1);
      for (const entry of block) {
        const alone = await chain.call('debug_traceTransaction', [entry.txHash, { disableMemory: false }]);
        expect(alone.result).toEqual(entry.result);
      }
    }
  });

  it('transactions traced one by one in any order, skipping and after an aborted trace, match the block trace', async () => {
    for (const number of ['0x4', '0x13', '0x15']) {
      for (const options of [{ disableMemory: false }, { tracer: 'callTracer' }]) {
        const block = (await chain.call('debug_traceBlockByNumber', [number, options])).result as {
          txHash: string;
          result: unknown;
        }[];
        const n = block.length;
        // Last to first, then every other one, then each after an expired trace of the one before.
        const order = [
          ...block.map((_, i) => n - 1 - i),
          ...block.map((_, i) => i).filter((i) => i % 2 === 1),
        ];
        for (const i of order) {
          const alone = await chain.call('debug_traceTransaction', [block[i].txHash, options]);
          expect(alone.result).toEqual(block[i].result);
        }
        for (let i = 1; i < n; i++) {
          const expired = await chain.call('debug_traceTransaction', [
            block[i - 1].txHash,
            { ...options, timeout: '1ns' },
          ]);
          expect(expired.error).toBeDefined();
          const alone = await chain.call('debug_traceTransaction', [block[i].txHash, options]);
          expect(alone.result).toEqual(block[i].result);
        }
      }
    }
  });

  it('debug_traceBlock takes the block RLP and answers as debug_traceBlockByNumber', async () => {
    const rlp = (await chain.call('debug_getRawBlock', ['0x4'])).result as string;
    const byRlp = await chain.call('debug_traceBlock', [rlp]);
    const byNumber = await chain.call('debug_traceBlockByNumber', ['0x4']);
    expect(byRlp.result).toEqual(byNumber.result);
    expect((await chain.call('debug_traceBlock', [rlp, { tracer: 'x' }])).error).toEqual(INVALID_TRACE);
  });

  it('debug_traceCall runs on the chosen block with state overrides', async () => {
    const call = {
      from: '0x627306090abab3a6e1400e9345bc60c78a8bef57',
      to: `0x${'ab'.repeat(20)}`,
      gas: '0x10000',
    };
    const plain = (await chain.call('debug_traceCall', [call, 'latest'])).result as { structLogs: unknown[] };
    expect(plain.structLogs).toEqual([]);
    // PUSH1 0x2a PUSH1 0 SSTORE STOP
    const overridden = (
      await chain.call('debug_traceCall', [
        call,
        'latest',
        { stateOverrides: { [call.to]: { code: '0x602a60005500' } } },
      ])
    ).result as { structLogs: { op: string; storage?: Record<string, string> }[] };
    expect(overridden.structLogs.map((l) => l.op)).toEqual(['PUSH1', 'PUSH1', 'SSTORE', 'STOP']);
    expect(overridden.structLogs[2]?.storage).toEqual({
      [`0x${'0'.repeat(64)}`]: `0x${'0'.repeat(62)}2a`,
    });
    const calls = (await chain.call('debug_traceCall', [call, 'latest', { tracer: 'callTracer' }])).result;
    expect(calls).toMatchObject({ type: 'CALL', to: call.to, gas: '0x10000' });
    expect((await chain.call('debug_traceCall', [call, '0x99999'])).result).toBeNull();
  });
});
