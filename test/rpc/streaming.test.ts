/**
 * Streamed results (`StreamingResult`) through the real HTTP and WebSocket servers: a large answer
 * arrives whole and parses; an early failure is still answered with an error object; a client that
 * goes away part-way stops the producer; batches and WebSocket messages carry streamed elements.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createDispatcher } from '../../src/rpc/dispatch.js';
import { INVALID_PARAMS, RpcError } from '../../src/rpc/errors.js';
import type { RpcMethod } from '../../src/rpc/methods/types.js';
import { type RunningHttpServer, startHttpServer } from '../../src/rpc/server/http.js';
import { startWsServer, type WsServer } from '../../src/rpc/server/ws.js';
import { HOLD_CHARS, StreamingResult } from '../../src/rpc/streaming.js';
import { services } from './helpers.js';

const PIECE = 'x'.repeat(1000);
const producer = { stopped: false, written: 0 };

const methods: RpcMethod[] = [
  {
    name: 'eth_stream',
    group: 'ETH',
    handler: (params) =>
      new StreamingResult(async (write) => {
        const n = params[0] as number;
        await write('[');
        for (let i = 0; i < n; i++) {
          const w = write(`${i === 0 ? '' : ','}"${PIECE}"`);
          if (w) await w;
        }
        await write(']');
      }),
  },
  {
    name: 'eth_streamFails',
    group: 'ETH',
    handler: () =>
      new StreamingResult(async (write) => {
        await write('["a"');
        throw new RpcError(INVALID_PARAMS);
      }),
  },
  {
    name: 'eth_streamForever',
    group: 'ETH',
    handler: () =>
      new StreamingResult(async (write) => {
        producer.stopped = false;
        producer.written = 0;
        await write('[');
        try {
          for (let i = 0; i < 1e7; i++) {
            const w = write(`${i === 0 ? '' : ','}"${PIECE}"`);
            producer.written++;
            if (w) await w;
          }
        } finally {
          producer.stopped = true;
        }
        await write(']');
      }),
  },
];

const dispatcher = createDispatcher({ methods, enabledGroups: ['ETH'], maxBatchSize: 10 });

function post(port: number, body: string): Promise<{ status: number; text: string; chunked: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'Content-Type': 'application/json' } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(parts).toString('utf8'),
            chunked: res.headers['transfer-encoding'] === 'chunked',
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('streamed results over HTTP', () => {
  let server: RunningHttpServer;
  beforeAll(async () => {
    server = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      dispatcher,
      services,
      maxRequestContentLength: 1 << 20,
      hostAllowlist: ['*'],
      corsOrigins: [],
      maxActiveConnections: 10,
    });
  });
  afterAll(() => server.close());

  it('a large answer arrives whole, chunked', async () => {
    const n = Math.ceil((3 * HOLD_CHARS) / PIECE.length);
    const r = await post(server.port, `{"jsonrpc":"2.0","id":7,"method":"eth_stream","params":[${n}]}`);
    expect(r.chunked).toBe(true);
    const body = JSON.parse(r.text) as { id: number; result: string[] };
    expect(body.id).toBe(7);
    expect(body.result.length).toBe(n);
  });

  it('a small streamed answer is an ordinary one', async () => {
    const r = await post(server.port, '{"jsonrpc":"2.0","id":1,"method":"eth_stream","params":[2]}');
    expect(JSON.parse(r.text).result).toEqual([PIECE, PIECE]);
  });

  it('a failure before anything was sent is answered with the error', async () => {
    const r = await post(server.port, '{"jsonrpc":"2.0","id":2,"method":"eth_streamFails","params":[]}');
    expect(JSON.parse(r.text)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32602, message: 'Invalid params' },
    });
  });

  it('streamed elements of a batch stay in order', async () => {
    const r = await post(
      server.port,
      '[{"jsonrpc":"2.0","id":1,"method":"eth_stream","params":[1]},{"jsonrpc":"2.0","id":2,"method":"eth_streamFails"},{"jsonrpc":"2.0","id":3,"method":"eth_stream","params":[3]}]',
    );
    const body = JSON.parse(r.text) as { id: number; result?: string[]; error?: unknown }[];
    expect(body.map((b) => b.id)).toEqual([1, 2, 3]);
    expect(body[0]?.result?.length).toBe(1);
    expect(body[1]?.error).toBeDefined();
    expect(body[2]?.result?.length).toBe(3);
  });

  it('a client that disconnects part-way stops the producer', async () => {
    await new Promise<void>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          method: 'POST',
          path: '/',
          headers: { 'Content-Type': 'application/json' },
        },
        (res) => {
          let got = 0;
          res.on('data', (c: Buffer) => {
            got += c.length;
            if (got > 4 * HOLD_CHARS) {
              req.destroy();
              resolve();
            }
          });
          res.on('error', () => undefined);
        },
      );
      req.on('error', () => undefined);
      req.setTimeout(10_000, () => reject(new Error('no data')));
      req.end('{"jsonrpc":"2.0","id":1,"method":"eth_streamForever","params":[]}');
    });
    const deadline = Date.now() + 5000;
    while (!producer.stopped && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(producer.stopped).toBe(true);
    // It stopped near where the reader left, not after writing everything.
    expect(producer.written).toBeLessThan(100_000);
  });
});

describe('streamed results over WebSocket', () => {
  let server: WsServer;
  beforeAll(async () => {
    server = await startWsServer({
      host: '127.0.0.1',
      port: 0,
      dispatcher: createDispatcher({ methods, enabledGroups: ['ETH'], maxBatchSize: 0 }),
      services,
      maxFrameSize: 1 << 20,
      maxActiveConnections: 4,
      hostAllowlist: ['*'],
    });
  });
  afterAll(() => server.close());

  it('a large answer is one fragmented message; answers after it keep their order', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}`, { maxPayload: 64 << 20 });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const n = Math.ceil((3 * HOLD_CHARS) / PIECE.length);
    const messages: string[] = [];
    const done = new Promise<void>((resolve) => {
      ws.on('message', (data) => {
        messages.push(data.toString());
        if (messages.length === 2) resolve();
      });
    });
    ws.send(`{"jsonrpc":"2.0","id":1,"method":"eth_stream","params":[${n}]}`);
    ws.send('{"jsonrpc":"2.0","id":2,"method":"eth_stream","params":[1]}');
    await done;
    ws.close();
    const first = JSON.parse(messages[0] as string) as { id: number; result: string[] };
    expect(first.id).toBe(1);
    expect(first.result.length).toBe(n);
    expect(JSON.parse(messages[1] as string).id).toBe(2);
  });
});
