/**
 * The TRACE group over the real transports: a node started with `alder` on Besu's trace chain
 * (imported once with `alder blocks import`), TRACE enabled with --rpc-http-api and --rpc-ws-api,
 * --rpc-max-trace-filter-range lowered. Bad input gets Besu's errors; a group that is not enabled
 * answers -32604.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { traceMethods } from '../../src/rpc/methods/trace/index.js';
import { useImportedNode } from '../helpers/conformance.js';
import { CONFORMANCE, freePort } from '../helpers/node.js';
import { testDispatcher } from '../rpc/helpers.js';

const TRACE = join(CONFORMANCE, 'besu/trace');
const CHAIN = {
  genesis: join(TRACE, 'chain-data/genesis.json'),
  blocks: join(TRACE, 'chain-data/blocks.bin'),
  options: [],
};

const wsPort = await freePort();
const node = useImportedNode(CHAIN, [
  '--rpc-http-api=ETH,NET,WEB3,TRACE',
  '--rpc-ws-enabled',
  '--rpc-ws-host=127.0.0.1',
  `--rpc-ws-port=${wsPort}`,
  '--rpc-ws-api=ETH,TRACE',
  '--rpc-max-trace-filter-range=5',
  '--miner-coinbase=0x0000000000000000000000000000000000000000',
]);

async function post(method: string, params: unknown[]): Promise<{ result?: unknown; error?: unknown }> {
  const r = await fetch(node().url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  expect(r.status).toBe(200);
  return (await r.json()) as { result?: unknown; error?: unknown };
}

function expected(file: string): unknown {
  return JSON.parse(readFileSync(join(TRACE, 'specs', file), 'utf8')).response.result;
}

describe('TRACE over HTTP and WebSocket', { timeout: 60_000 }, () => {
  it('serves trace_block and trace_replayBlockTransactions as Besu does, and lists the group', async () => {
    expect((await post('trace_block', ['0x6'])).result).toEqual(expected('trace-block/trace_block_0x6.json'));
    const replay = await post('trace_replayBlockTransactions', ['0x4', ['stateDiff']]);
    expect(replay.result).toEqual(
      expected('replay-trace-transaction/statediff/trace_replayBlockTransactions_diffOnly_0x4.json'),
    );
    const modules = (await post('rpc_modules', [])).result as Record<string, string>;
    expect(Object.keys(modules)).toContain('trace');
  });

  it('answers bad input with Besu errors', async () => {
    expect((await post('trace_filter', [{ fromBlock: '0x1', toBlock: '0x10' }])).error).toEqual({
      code: -32005,
      message: 'Requested range exceeds maximum RPC range limit',
    });
    expect((await post('trace_filter', [{ fromBlock: '0x5', toBlock: '0x2' }])).error).toEqual({
      code: -32602,
      message: 'Invalid params',
    });
    expect((await post('trace_filter', [{ fromBlock: '0x1', toBlock: '0x99' }])).error).toEqual({
      code: -32602,
      message: 'Invalid params',
    });
    expect((await post('trace_filter', ['nope'])).error).toEqual({
      code: -32602,
      message: 'Invalid filter params',
    });
    expect((await post('trace_replayBlockTransactions', ['0x4', ['bogus']])).error).toEqual({
      code: -32602,
      message: 'Invalid trace type params',
    });
    expect((await post('trace_block', ['0xzz'])).error).toEqual({
      code: -32602,
      message: 'Invalid block param (block not found)',
    });
    expect((await post('trace_block', ['0x999'])).result).toBeNull();
    expect((await post('trace_block', ['0x0'])).result).toEqual([]);
    expect((await post('trace_transaction', [`0x${'ab'.repeat(32)}`])).result).toEqual([]);
    expect((await post('trace_transaction', ['0x12'])).error).toEqual({
      code: -32602,
      message: 'Invalid transaction hash params',
    });
    expect((await post('trace_get', [`0x${'ab'.repeat(32)}`])).error).toEqual({
      code: -32602,
      message: 'Invalid number of params',
    });
    expect((await post('trace_get', [`0x${'ab'.repeat(32)}`, ['0x0']])).result).toBeNull();
    expect((await post('trace_rawTransaction', ['0x1234', ['trace']])).error).toEqual({
      code: -32602,
      message: 'Invalid transaction params (missing or incorrect)',
    });
    expect((await post('trace_call', [{ to: `0x${'00'.repeat(20)}` }, ['trace'], '0x999'])).error).toEqual({
      code: -32000,
      message: 'Block not found',
    });
    expect((await post('trace_callMany', [[[{ to: 5 }, ['trace']]], 'latest'])).error).toEqual({
      code: -32602,
      message: 'Invalid trace call many params',
    });
    // The group is enabled; DEBUG is not.
    expect((await post('debug_traceBlockByNumber', ['0x6'])).error).toEqual({
      code: -32604,
      message: 'Method not enabled',
    });
  });

  it('serves trace_filter within the range over WebSocket', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${wsPort}`);
    await new Promise((res, rej) => {
      ws.once('open', res);
      ws.once('error', rej);
    });
    try {
      const answer = new Promise<{ result: unknown }>((res) =>
        ws.once('message', (m) => res(JSON.parse(String(m)))),
      );
      ws.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'trace_filter',
          params: [
            {
              fromBlock: '0x2',
              toBlock: '0x6',
              after: 1,
              count: 2,
              fromAddress: ['0xfe3b557e8fb62b89f4916b721be55ceb828dbd73'],
            },
          ],
        }),
      );
      const { result } = await answer;
      const traces = result as Array<{ blockNumber: number; action: { from: string } }>;
      expect(traces).toHaveLength(2);
      for (const t of traces) expect(t.action.from).toBe('0xfe3b557e8fb62b89f4916b721be55ceb828dbd73');
    } finally {
      ws.close();
    }
  });
});

describe('TRACE group enablement', () => {
  it('answers -32604 for trace methods when TRACE is not enabled', async () => {
    const d = testDispatcher({ groups: ['ETH', 'NET', 'WEB3'], methods: traceMethods });
    const r = await d.handle('{"jsonrpc":"2.0","id":1,"method":"trace_block","params":["0x1"]}', {
      services: {} as never,
      transport: 'http',
    });
    expect(JSON.parse(r.body as string).error).toEqual({ code: -32604, message: 'Method not enabled' });
  });
});
