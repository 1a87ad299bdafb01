import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { Client, type Harness, refusedUpgrade, sleep, startHarness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Raw HTTP to the WS port (fetch cannot set Host). */
function http(
  port: number,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; statusMessage: string; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          statusMessage: res.statusMessage ?? '',
          body: text,
          headers: res.headers,
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('WebSocket JSON-RPC requests', () => {
  it('answers single requests and batches of any size', async () => {
    h = await startHarness();
    const c = await Client.connect(h.url);
    expect(await c.call('eth_blockNumber')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x10' });

    const batch = Array.from({ length: 3000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' }));
    c.sendRaw(JSON.stringify(batch));
    const answer = await c.next();
    expect(answer).toHaveLength(3000);
    expect(answer[2999]).toEqual({ jsonrpc: '2.0', id: 2999, result: '0x539' });
    c.close();
  });

  it('applies the WebSocket parse rules', async () => {
    h = await startHarness();
    const c = await Client.connect(h.url);
    const internal = { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } };
    const invalid = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } };
    c.sendRaw('');
    expect(await c.next()).toEqual(invalid);
    c.sendRaw('   ');
    expect(await c.next()).toEqual(internal);
    c.sendRaw('{not json');
    expect(await c.next()).toEqual(internal);
    c.sendRaw('123');
    expect(await c.next()).toEqual(internal);
    c.sendRaw('"eth_blockNumber"');
    expect(await c.next()).toEqual(internal);
    c.sendRaw('[]');
    expect(await c.next()).toEqual([]);
    c.sendRaw('[1, {"jsonrpc":"2.0","id":7,"method":"eth_chainId"}]');
    expect(await c.next()).toEqual([invalid, { jsonrpc: '2.0', id: 7, result: '0x539' }]);
    // binary frames are requests too
    c.sendRaw(Buffer.from('{"jsonrpc":"2.0","id":8,"method":"eth_chainId"}'));
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 8, result: '0x539' });
    // a notification gets no answer; a batch of notifications an empty array
    c.sendRaw('{"jsonrpc":"2.0","method":"eth_chainId"}');
    expect(await c.silent()).toBe(true);
    c.sendRaw('[{"jsonrpc":"2.0","method":"eth_chainId"}]');
    expect(await c.next()).toEqual([]);
    c.close();
  });

  it('answers in order, one message at a time', async () => {
    h = await startHarness();
    const c = await Client.connect(h.url);
    for (let i = 1; i <= 200; i++)
      c.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_chainId' }));
    for (let i = 1; i <= 200; i++) expect((await c.next()).id).toBe(i);
    c.close();
  });
});

describe('HTTP requests to the WebSocket port', () => {
  it('only POST /login is served; anything else is 400', async () => {
    h = await startHarness();
    const get = await http(h.server.port, 'GET', '/', undefined, { Host: 'localhost' });
    expect(get.status).toBe(400);
    expect(get.body).toBe("Websocket endpoint can't handle HTTP requests");
    const post = await http(h.server.port, 'POST', '/', '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}', {
      Host: 'localhost',
      'Content-Type': 'application/json',
    });
    expect(post.status).toBe(400);
    expect(h.calls).toEqual([]);
    const loginGet = await http(h.server.port, 'GET', '/login');
    expect(loginGet.status).toBe(400);
    // auth off: login is refused with an empty body and Besu's status text
    const login = await http(h.server.port, 'POST', '/login', '{"username":"a","password":"b"}');
    expect(login).toMatchObject({ status: 400, statusMessage: 'Authentication not enabled', body: '' });
  });
});

describe('Host allowlist', () => {
  it('refuses the handshake (403) and HTTP requests from hosts off the list', async () => {
    h = await startHarness();
    expect(await refusedUpgrade(h.url, { headers: { Host: 'evil.example' } })).toBe(403);
    expect(await refusedUpgrade(h.url, { headers: { Host: 'localhost.evil.example:8546' } })).toBe(403);
    expect(await refusedUpgrade(h.url, { headers: { Host: 'localhost:854600' } })).toBe(403);
    expect(await refusedUpgrade(h.url, { headers: { Host: '[::1]:8546' } })).toBe(403);
    const res = await http(h.server.port, 'POST', '/login', '{}', { Host: 'evil.example' });
    expect(res.status).toBe(403);
    expect(res.body).toBe('{"message":"Host not authorized."}');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    // listed hosts, with or without port, any case
    const ok = await Client.connect(h.url, { headers: { Host: 'LOCALHOST:8546' } });
    expect((await ok.call('eth_chainId')).result).toBe('0x539');
    ok.close();
  });

  it('"*" allows any host', async () => {
    h = await startHarness({ hostAllowlist: ['*'] });
    const c = await Client.connect(h.url, { headers: { Host: 'anything.example' } });
    expect((await c.call('eth_chainId')).result).toBe('0x539');
    c.close();
  });
});

describe('limits', () => {
  it('closes with 1009 on a frame over the frame size, without executing it', async () => {
    h = await startHarness({ maxFrameSize: 1024 });
    const c = await Client.connect(h.url);
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'web3_sha3', params: ['x'.repeat(1500)] });
    c.sendRaw(big);
    expect((await c.closed).code).toBe(1009);
    await sleep(50);
    expect(h.calls).toEqual([]);
  });

  it('accepts a fragmented message up to 4× the frame size and refuses one beyond', async () => {
    h = await startHarness({ maxFrameSize: 1024 });
    const c = await Client.connect(h.url);
    const payload = (n: number) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'web3_sha3', params: ['y'.repeat(n)] });
    const sendFragmented = (text: string) => {
      const buf = Buffer.from(text);
      for (let i = 0; i < buf.length; i += 1000) {
        c.ws.send(buf.subarray(i, i + 1000), { fin: i + 1000 >= buf.length, binary: false });
      }
    };
    sendFragmented(payload(3500));
    expect((await c.next()).result).toHaveLength(3500);
    sendFragmented(payload(4200));
    expect((await c.closed).code).toBe(1009);
    expect(h.calls).toEqual(['web3_sha3']);
  });

  it('queues connections beyond the active limit and refuses with 503 when the queue is full', async () => {
    h = await startHarness({ maxActiveConnections: 2, maxQueuedConnections: 1 });
    const a = await Client.connect(h.url);
    const b = await Client.connect(h.url);
    const waiting = Client.connect(h.url);
    await sleep(50);
    expect(await refusedUpgrade(h.url)).toBe(503);
    a.close();
    await a.closed;
    const c = await waiting;
    expect((await c.call('eth_chainId')).result).toBe('0x539');
    b.close();
    c.close();
  });

  it('closes a connection whose reader falls behind (send queue bound) and ends its subscriptions', async () => {
    h = await startHarness({ maxSendQueueBytes: 256 * 1024, sendQueueCloseGraceMs: 5000 });
    const c = await Client.connect(h.url);
    const sub = await c.call('eth_subscribe', ['newPendingTransactions', { includeTransactions: true }]);
    expect(sub.result).toBe('0x1');
    expect(h.subscriptions.size).toBe(1);
    // stop reading: the kernel buffers fill, then ws's queue grows
    (c.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    const tx = { hash: `0x${'ab'.repeat(32)}`, input: `0x${'00'.repeat(50_000)}` };
    for (let i = 0; i < 2000 && h.subscriptions.size > 0; i++) {
      h.source.emit('pending', tx.hash, () => tx);
      if (i % 50 === 0) await sleep(1);
    }
    expect(h.subscriptions.size).toBe(0);
    (c.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    const closed = await c.closed;
    expect(closed).toEqual({ code: 1008, reason: 'Send queue limit exceeded' });
  });

  it('a client flooding requests without reading cannot grow the server without bound', async () => {
    h = await startHarness({ maxSendQueueBytes: 128 * 1024 });
    const c = await Client.connect(h.url);
    (c.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'web3_sha3', params: ['z'.repeat(60_000)] });
    for (let i = 0; i < 400; i++) c.sendRaw(big);
    await sleep(500);
    expect(h.server.connectionCount()).toBe(0);
    (c.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect((await c.closed).code).toBe(1008);
  });
});

describe('connection lifecycle', () => {
  it('ends subscriptions when the connection closes', async () => {
    h = await startHarness();
    const c = await Client.connect(h.url);
    await c.call('eth_subscribe', ['newHeads']);
    await c.call('eth_subscribe', ['syncing']);
    expect(h.subscriptions.size).toBe(2);
    c.close();
    await c.closed;
    await sleep(50);
    expect(h.subscriptions.size).toBe(0);
  });

  it('close() stops the server and drops connections', async () => {
    h = await startHarness();
    const c = await Client.connect(h.url);
    await h.close();
    h = undefined;
    expect((await c.closed).code).toBe(1006);
    await expect(Client.connect(`ws://127.0.0.1:${(c.ws as WebSocket).url.split(':')[2]}`)).rejects.toThrow();
  });
});
