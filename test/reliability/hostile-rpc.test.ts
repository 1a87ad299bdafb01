/**
 * Hostile requests against the real node: ids that overflow a double, deep nesting and huge element
 * counts, slow senders, and bursts of connections beyond the active limit (HTTP and WebSocket).
 */
import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePort, type NodeProcess, removeDir, startNode, tempDir } from '../helpers/node.js';
import { peakRssMiB, rawPost, rssMiB, slowSender, wsExchange } from './helpers.js';

const BLOCK_NUMBER = (id: string): string =>
  `{"jsonrpc":"2.0","id":${id},"method":"eth_blockNumber","params":[]}`;

describe('hostile JSON-RPC input against bin/alder', () => {
  let node: NodeProcess;
  let wsUrl: string;
  const dir = tempDir('alder-hostile-');
  beforeAll(async () => {
    const wsPort = await freePort();
    // No mining: the answers' timing is the server's, not a sealing loop's.
    node = await startNode([
      '--network=dev',
      `--data-path=${dir}`,
      '--rpc-ws-enabled',
      '--rpc-ws-host=127.0.0.1',
      `--rpc-ws-port=${wsPort}`,
      '--rpc-ws-max-active-connections=3',
    ]);
    wsUrl = `ws://127.0.0.1:${wsPort}`;
  }, 60_000);
  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });

  it('answers an id beyond a double as "Infinity", alone and in batches, over HTTP and WebSocket', async () => {
    const single = await rawPost(node.port, BLOCK_NUMBER('1e400'));
    expect(single.status).toBe(200);
    expect(JSON.parse(single.body).id).toBe('Infinity');
    const batch = await rawPost(
      node.port,
      `[${BLOCK_NUMBER('1e400')},${BLOCK_NUMBER('-1e400')},${BLOCK_NUMBER('7')}]`,
    );
    expect((JSON.parse(batch.body) as { id: unknown }[]).map((a) => a.id)).toEqual([
      'Infinity',
      '-Infinity',
      7,
    ]);
    // An invalid request echoes the id as a Java int, as Besu does: Integer.MAX_VALUE.
    const invalid = await rawPost(
      node.port,
      '{"jsonrpc":"2.0","id":1e400,"method":"eth_blockNumber","params":{}}',
    );
    expect(JSON.parse(invalid.body)).toMatchObject({ id: 2147483647, error: { code: -32600 } });

    const [wsSingle, wsBatch] = await wsExchange(wsUrl, [
      BLOCK_NUMBER('1e400'),
      `[${BLOCK_NUMBER('1e400')},${BLOCK_NUMBER('2')}]`,
    ]);
    expect(JSON.parse(wsSingle as string).id).toBe('Infinity');
    expect((JSON.parse(wsBatch as string) as { id: unknown }[]).map((a) => a.id)).toEqual(['Infinity', 2]);
  });

  it('refuses 5 MB of nesting fast, without a memory spike or stalling other clients', async () => {
    const pid = node.child.pid as number;
    const before = rssMiB(pid);
    const nested = '['.repeat(5 * 1024 * 1024 - 100);
    const [deep, other] = await Promise.all([
      rawPost(node.port, nested),
      (async () => {
        await new Promise((r) => setTimeout(r, 5));
        return rawPost(node.port, BLOCK_NUMBER('1'));
      })(),
    ]);
    expect(deep.status).toBe(400);
    expect(JSON.parse(deep.body)).toMatchObject({
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
    expect(deep.ms).toBeLessThan(2000);
    expect(JSON.parse(other.body).result).toMatch(/^0x/);
    expect(other.ms).toBeLessThan(2000);
    // Many values in one request: refused before the tree is built.
    const wide = await rawPost(node.port, `[${'[],'.repeat(1_000_000)}[]]`);
    expect(wide.status).toBe(400);
    // Depth 1000 is still parsed (and answered as an invalid request).
    const ok = await rawPost(node.port, `${'['.repeat(999)}${']'.repeat(999)}`);
    expect(JSON.parse(ok.body)).toMatchObject([{ error: { code: -32600 } }]);
    // A number of 2000 digits is refused, as Jackson refuses it.
    const long = await rawPost(node.port, BLOCK_NUMBER('1'.repeat(2000)));
    expect(long.status).toBe(400);
    expect(peakRssMiB(pid) - before).toBeLessThan(300);

    const [wsDeep] = await wsExchange(wsUrl, ['['.repeat(1000 * 1000)]);
    expect(JSON.parse(wsDeep as string)).toMatchObject({ id: null, error: { code: -32603 } });
  });

  it('streams batch answers (chunked), in order, each element whole', async () => {
    const batch = Array.from({ length: 1000 }, (_, i) =>
      JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_getBlockByNumber', params: ['0x0', true] }),
    );
    const r = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `[${batch.join(',')}]`,
    });
    expect(r.headers.get('transfer-encoding')).toBe('chunked');
    const answers = (await r.json()) as { id: number; result: { number: string } }[];
    expect(answers.map((a) => a.id)).toEqual(batch.map((_, i) => i));
    expect(answers.every((a) => a.result.number === '0x0')).toBe(true);
  });

  it('closes connections that send their headers byte by byte (10 s header timeout)', async () => {
    const head = `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Padding: ${'x'.repeat(400)}\r\n\r\n`;
    // The server sends 408 and closes; this sender reads nothing, yet the socket does not outlive it.
    const open = await Promise.all(Array.from({ length: 5 }, () => slowSender(node.port, head, 50, 20_000)));
    for (const ms of open) {
      expect(ms).toBeGreaterThan(9_000);
      expect(ms).toBeLessThan(14_000);
    }
  }, 30_000);

  it('answers 300 simultaneous requests on separate connections (80 active, the rest queued)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) => rawPost(node.port, BLOCK_NUMBER(String(i)))),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200).length).toBe(300);
    expect(answers.map((a) => JSON.parse(a.body).id)).toEqual(answers.map((_, i) => i));
  });

  it('serves 150 concurrent requests through viem’s HTTP transport', async () => {
    const client = createPublicClient({ transport: http(node.url, { retryCount: 0 }) });
    const results = await Promise.allSettled(Array.from({ length: 150 }, () => client.getBlockNumber()));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  });

  it('queues WebSocket connections beyond the active limit and admits them as others close', async () => {
    const open = (): Promise<{ ws: WebSocket; opened: Promise<boolean> }> => {
      const ws = new WebSocket(wsUrl);
      const opened = new Promise<boolean>((res) => {
        ws.once('open', () => res(true));
        ws.once('unexpected-response', (_req, r) => res(r.statusCode === 200));
        ws.once('error', () => res(false));
      });
      return Promise.resolve({ ws, opened });
    };
    const first = await Promise.all([open(), open(), open()]);
    for (const c of first) expect(await c.opened).toBe(true);
    const fourth = await open();
    const state = await Promise.race([
      fourth.opened,
      new Promise((r) => setTimeout(() => r('waiting'), 300)),
    ]);
    expect(state).toBe('waiting');
    // Fill the queue (10 × 3 = 30; the fourth is one of them): the next one is refused with 503.
    const queued = await Promise.all(Array.from({ length: 29 }, () => open()));
    const refused = new WebSocket(wsUrl);
    const status = await new Promise<number>((res) => {
      refused.once('unexpected-response', (_req, r) => res(r.statusCode ?? 0));
      refused.once('open', () => res(101));
      refused.once('error', () => res(-1));
    });
    expect(status).toBe(503);
    (first[0] as { ws: WebSocket }).ws.close();
    expect(await fourth.opened).toBe(true);
    const [answer] = await new Promise<string[]>((res) => {
      fourth.ws.once('message', (d) => res([d.toString()]));
      fourth.ws.send(BLOCK_NUMBER('5'));
    });
    expect(JSON.parse(answer as string).id).toBe(5);
    for (const c of [...first, fourth, ...queued]) c.ws.terminate();
    refused.terminate();
  });
});
