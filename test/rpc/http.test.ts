import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcMethod } from '../../src/rpc/methods/types.js';
import { RawJson } from '../../src/rpc/rawJson.js';
import { type HttpAuthHook, type RunningHttpServer, startHttpServer } from '../../src/rpc/server/http.js';
import { raw, services, testDispatcher } from './helpers.js';

const JSON_HEADERS = { 'Content-Type': 'application/json' };

async function start(
  overrides: Partial<Parameters<typeof startHttpServer>[0]> = {},
): Promise<RunningHttpServer> {
  return startHttpServer({
    host: '127.0.0.1',
    port: 0,
    dispatcher: testDispatcher(),
    services,
    maxRequestContentLength: 1024,
    hostAllowlist: ['localhost', '127.0.0.1'],
    corsOrigins: [],
    maxActiveConnections: 80,
    ...overrides,
  });
}

describe('HTTP server: JSON-RPC route', () => {
  let server: RunningHttpServer;
  let url: string;
  beforeAll(async () => {
    server = await start();
    url = `http://127.0.0.1:${server.port}/`;
  });
  afterAll(() => server.close());

  it('answers a request over fetch with application/json', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe('{"jsonrpc":"2.0","id":1,"result":"0x10"}');
  });

  it('accepts other request content types, as Besu does', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: '{"id":1,"method":"eth_blockNumber"}',
    });
    expect(res.status).toBe(200);
  });

  it('parse error and empty batch: 400 without Content-Type', async () => {
    const r = await raw(server.port, { body: '{oops' });
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toBeUndefined();
    expect(r.body).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
    const empty = await raw(server.port, { body: '' });
    expect(empty.status).toBe(400);
    expect((await raw(server.port, { body: '[]' })).body).toContain('-32600');
  });

  it('invalid request: 400; other errors: 200', async () => {
    expect((await raw(server.port, { body: '{"id":1}' })).status).toBe(400);
    expect((await raw(server.port, { body: '{"id":1,"method":"nope"}' })).status).toBe(200);
    expect((await raw(server.port, { body: '{"id":1,"method":"admin_peers"}' })).status).toBe(200);
  });

  it('notification: 200 with an empty body', async () => {
    const r = await raw(server.port, { body: '{"jsonrpc":"2.0","method":"eth_blockNumber"}' });
    expect(r.status).toBe(200);
    expect(r.body).toBe('');
  });

  it('batch: 200 array in order; over the limit: 200 single -32005', async () => {
    const ok = await fetch(url, {
      method: 'POST',
      body: JSON.stringify([
        { id: 1, method: 'eth_blockNumber' },
        { id: 2, method: 'eth_chainId' },
      ]),
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x10' },
      { jsonrpc: '2.0', id: 2, result: '0x539' },
    ]);
    const big = JSON.stringify(Array.from({ length: 6 }, (_, i) => ({ id: i, method: 'eth_blockNumber' })));
    const r = await raw(server.port, { body: big });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32005, message: 'Number of requests exceeds max batch size' },
    });
  });

  it('body over the limit: 413 (declared or streamed)', async () => {
    const body = JSON.stringify({ id: 1, method: 'eth_echo', params: ['x'.repeat(2000)] });
    const r = await raw(server.port, { body });
    expect(r.status).toBe(413);
    const streamed = await raw(server.port, { body, headers: { 'Transfer-Encoding': 'chunked' } });
    expect(streamed.status).toBe(413);
    const fits = await raw(server.port, {
      body: JSON.stringify({ id: 1, method: 'eth_echo', params: ['x'] }),
    });
    expect(fits.status).toBe(200);
  });

  it('an Accept header that excludes JSON: 406', async () => {
    const r = await raw(server.port, {
      body: '{"id":1,"method":"eth_blockNumber"}',
      headers: { Accept: 'text/html' },
    });
    expect(r.status).toBe(406);
    const ok = await raw(server.port, {
      body: '{"id":1,"method":"eth_blockNumber"}',
      headers: { Accept: 'text/html, application/json;q=0.9' },
    });
    expect(ok.status).toBe(200);
  });
});

describe('HTTP server: other routes', () => {
  let server: RunningHttpServer;
  let ready = true;
  let lastParam: string | undefined;
  beforeAll(async () => {
    server = await start({
      readiness: (param) => {
        lastParam = param('minPeers');
        return ready;
      },
    });
  });
  afterAll(() => server.close());

  it('GET / is 201 with an empty body', async () => {
    const r = await raw(server.port, { method: 'GET' });
    expect(r.status).toBe(201);
    expect(r.body).toBe('');
  });

  it('GET /liveness is 200 UP, pretty-printed', async () => {
    const r = await raw(server.port, { method: 'GET', path: '/liveness' });
    expect(r.status).toBe(200);
    expect(r.body).toBe('{\n  "status" : "UP"\n}');
  });

  it('GET /readiness follows the callback and passes query parameters', async () => {
    ready = true;
    const up = await raw(server.port, { method: 'GET', path: '/readiness?minPeers=0' });
    expect(up.status).toBe(200);
    expect(JSON.parse(up.body)).toEqual({ status: 'UP' });
    expect(lastParam).toBe('0');
    ready = false;
    const down = await raw(server.port, { method: 'GET', path: '/readiness' });
    expect(down.status).toBe(503);
    expect(JSON.parse(down.body)).toEqual({ status: 'DOWN' });
  });

  it('POST /login without authentication: 400 Authentication not enabled', async () => {
    const r = await raw(server.port, { path: '/login', body: '{"username":"a","password":"b"}' });
    expect(r.status).toBe(400);
    expect(r.statusMessage).toBe('Authentication not enabled');
    expect(r.body).toBe('');
  });

  it('unknown path 404, wrong method 405', async () => {
    expect((await raw(server.port, { method: 'GET', path: '/nope' })).status).toBe(404);
    expect((await raw(server.port, { method: 'PUT', path: '/' })).status).toBe(405);
    expect((await raw(server.port, { method: 'POST', path: '/liveness' })).status).toBe(405);
  });
});

describe('HTTP server: host allowlist', () => {
  let server: RunningHttpServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.close());

  const body = '{"id":1,"method":"eth_blockNumber"}';

  it('allows listed hosts with or without port, case-insensitively', async () => {
    for (const host of ['localhost', 'LOCALHOST:8545', '127.0.0.1:1']) {
      expect((await raw(server.port, { body, headers: { Host: host } })).status).toBe(200);
    }
  });

  it('refuses other hosts with 403 Host not authorized', async () => {
    for (const host of ['evil.com', 'evil.com:8545', 'localhost:abc', '[::1]:8545', 'localhost:1:2']) {
      const r = await raw(server.port, { body, headers: { Host: host } });
      expect(r.status).toBe(403);
      expect(r.body).toBe('{"message":"Host not authorized."}');
    }
    expect(
      (await raw(server.port, { method: 'GET', path: '/liveness', headers: { Host: 'evil.com' } })).status,
    ).toBe(403);
  });

  it('* allows any host', async () => {
    const open = await start({ hostAllowlist: ['*'] });
    try {
      expect((await raw(open.port, { body, headers: { Host: 'evil.com' } })).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});

describe('HTTP server: CORS', () => {
  const body = '{"id":1,"method":"eth_blockNumber"}';
  const preflight = (origin: string) => ({
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type',
    },
  });

  it('no origins configured: requests without Origin pass, with Origin are refused', async () => {
    const server = await start();
    try {
      expect((await raw(server.port, { body })).status).toBe(200);
      const r = await raw(server.port, { body, headers: { Origin: 'http://a.example' } });
      expect(r.status).toBe(403);
      expect(r.statusMessage).toBe('CORS Rejected - Invalid origin');
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('listed origins: preflight 204 with allow headers, disallowed origin 403', async () => {
    const server = await start({ corsOrigins: ['http://a.example', 'http://b\\.example:3000'] });
    try {
      const ok = await raw(server.port, preflight('http://a.example'));
      expect(ok.status).toBe(204);
      expect(ok.headers['access-control-allow-origin']).toBe('http://a.example');
      expect(ok.headers['access-control-allow-headers']).toBe('*,content-type');
      const denied = await raw(server.port, preflight('http://c.example'));
      expect(denied.status).toBe(403);
      expect(denied.headers['access-control-allow-origin']).toBeUndefined();
      const post = await raw(server.port, { body, headers: { Origin: 'http://b.example:3000' } });
      expect(post.status).toBe(200);
      expect(post.headers['access-control-allow-origin']).toBe('http://b.example:3000');
      expect(post.headers.vary).toBe('origin');
    } finally {
      await server.close();
    }
  });

  it('* allows any origin and answers with *', async () => {
    const server = await start({ corsOrigins: ['*'] });
    try {
      const r = await raw(server.port, preflight('http://anything.example'));
      expect(r.status).toBe(204);
      expect(r.headers['access-control-allow-origin']).toBe('*');
      const post = await raw(server.port, { body, headers: { Origin: 'http://x.example' } });
      expect(post.headers['access-control-allow-origin']).toBe('*');
    } finally {
      await server.close();
    }
  });
});

describe('HTTP server: authentication hook', () => {
  const auth: HttpAuthHook = {
    required: true,
    async login(body) {
      return body.includes('good')
        ? { status: 200, body: '{"token":"t"}', contentType: 'application/json' }
        : {
            status: 401,
            body: 'Authentication failed: the username or password is incorrect.',
            contentType: 'text/plain',
          };
    },
    async authenticate(header) {
      if (header === undefined || !header.startsWith('Bearer ')) return { error: 'missing' };
      if (header === 'Bearer eth') return { user: { permissions: ['eth:*'] } };
      return { error: 'invalid' };
    },
    permit: (user) => (method) => user !== undefined && method.name.startsWith('eth_'),
  };
  let server: RunningHttpServer;
  beforeAll(async () => {
    server = await start({ auth });
  });
  afterAll(() => server.close());

  it('no token: 401 with id null before parsing', async () => {
    const r = await raw(server.port, { body: '{"id":5,"method":"eth_blockNumber"}' });
    expect(r.status).toBe(401);
    expect(r.body).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-40100,"message":"Unauthorized"}}');
    expect((await raw(server.port, { body: 'garbage' })).status).toBe(401);
  });

  it('invalid token: 401 with the request id', async () => {
    const r = await raw(server.port, {
      body: '{"id":5,"method":"eth_blockNumber"}',
      headers: { Authorization: 'Bearer bad' },
    });
    expect(r.status).toBe(401);
    expect(r.body).toBe('{"jsonrpc":"2.0","id":5,"error":{"code":-40100,"message":"Unauthorized"}}');
  });

  it('valid token: permitted methods run, others 401, unknown still -32601', async () => {
    const headers = { Authorization: 'Bearer eth' };
    expect((await raw(server.port, { body: '{"id":1,"method":"eth_blockNumber"}', headers })).status).toBe(
      200,
    );
    expect((await raw(server.port, { body: '{"id":1,"method":"net_version"}', headers })).status).toBe(401);
    const unknown = await raw(server.port, {
      body: '{"id":1,"method":"nope_nope"}',
      headers: { Authorization: 'Bearer bad' },
    });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toContain('-32601');
    const batch = await raw(server.port, {
      body: '[{"id":1,"method":"eth_blockNumber"},{"id":2,"method":"net_version"}]',
      headers,
    });
    expect(batch.status).toBe(200);
    expect(JSON.parse(batch.body)[1].error.code).toBe(-40100);
  });

  it('/login is outside the auth check and answered by the hook', async () => {
    const good = await raw(server.port, { path: '/login', body: '{"good":1}' });
    expect(good.status).toBe(200);
    expect(good.body).toBe('{"token":"t"}');
    expect((await raw(server.port, { path: '/login', body: '{}' })).status).toBe(401);
    expect((await raw(server.port, { method: 'GET', path: '/liveness' })).status).toBe(200);
  });
});

describe('HTTP server: connections and pretty JSON', () => {
  it('queues requests beyond the active limit and answers 503 only when the queue is full', async () => {
    const server = await start({ maxActiveConnections: 1, maxQueuedConnections: 1 });
    // A connection that has not finished its headers holds no slot.
    const idle = connect(server.port, '127.0.0.1');
    // One request that never sends its body holds the only slot; a second waits in the queue.
    const holder = connect(server.port, '127.0.0.1');
    try {
      await new Promise((resolve) => idle.once('connect', resolve));
      idle.write('POST / HTTP/1.1\r\nHost: localhost\r\n');
      await new Promise((resolve) => holder.once('connect', resolve));
      holder.write(
        'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n',
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      const queued = raw(server.port, { body: '{"id":1,"method":"eth_blockNumber"}' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await raw(server.port, { body: '{"id":2,"method":"eth_blockNumber"}' })).status).toBe(503);
      holder.destroy();
      const served = await queued;
      expect(served.status).toBe(200);
      expect(JSON.parse(served.body).id).toBe(1);
    } finally {
      holder.destroy();
      idle.destroy();
      await server.close();
    }
  });

  it('answers 408 and closes when headers or body arrive too slowly', async () => {
    const server = await start({ headerTimeoutMs: 300, bodyTimeoutMs: 300 });
    const timed = (first: string): Promise<{ text: string; ms: number }> =>
      new Promise((resolve) => {
        const started = Date.now();
        const socket = connect(server.port, '127.0.0.1');
        let text = '';
        socket.on('connect', () => socket.write(first));
        const drip = setInterval(() => socket.writable && socket.write(' '), 20);
        socket.on('data', (d) => {
          text += d;
        });
        socket.on('close', () => {
          clearInterval(drip);
          resolve({ text, ms: Date.now() - started });
        });
      });
    try {
      const head = await timed('POST / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
      expect(head.text).toMatch(/^HTTP\/1\.1 408 /);
      expect(head.ms).toBeLessThan(3000);
      const body = await timed(
        'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
      );
      expect(body.text).toMatch(/^HTTP\/1\.1 408 /);
      expect(body.ms).toBeLessThan(3000);
    } finally {
      await server.close();
    }
  });

  it('pretty-prints responses when asked, in Jackson layout', async () => {
    const server = await start({ prettyJson: true });
    try {
      const r = await raw(server.port, {
        body: '{"id":1,"method":"eth_echo","params":[{"a":[1,{"b":2}]},[]]}',
      });
      expect(r.body).toBe(
        '{\n  "jsonrpc" : "2.0",\n  "id" : 1,\n  "result" : [ {\n    "a" : [ 1, {\n      "b" : 2\n    } ]\n  }, [ ] ]\n}',
      );
    } finally {
      await server.close();
    }
  });
});

describe('HTTP server: answers of known ASCII text', () => {
  // Handlers answering with text marked ASCII (as the block and log caches do) and with text that
  // only claims nothing: the bytes on the wire and Content-Length must be the UTF-8 ones either way.
  const methods: RpcMethod[] = [
    { name: 'eth_ascii', group: 'ETH', handler: () => new RawJson('["0x01","0xabcdef"]', true) },
    { name: 'eth_text', group: 'ETH', handler: () => new RawJson('["caf\u00e9 \u20ac"]') },
  ];

  /** The raw answer bytes of one request (head and body), read until the server closes. */
  function exchange(port: number, body: string): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const parts: Buffer[] = [];
      const payload = Buffer.from(body);
      socket.on('connect', () => {
        socket.write(
          `POST / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: ${payload.length}\r\n\r\n`,
        );
        socket.write(payload);
      });
      socket.on('data', (d) => parts.push(d));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(parts)));
    });
  }

  function split(answer: Buffer): { length: number; body: Buffer } {
    const end = answer.indexOf('\r\n\r\n');
    const head = answer.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]);
    return { length, body: answer.subarray(end + 4) };
  }

  it('writes ASCII answers and non-ASCII ids and results as UTF-8 with their byte length', async () => {
    const server = await start({ dispatcher: testDispatcher({ methods }) });
    try {
      const cases: Array<[string, string]> = [
        ['{"id":1,"method":"eth_ascii"}', '{"jsonrpc":"2.0","id":1,"result":["0x01","0xabcdef"]}'],
        [
          '{"id":"\u00fc\u20ac\ud83d\ude00","method":"eth_ascii"}',
          '{"jsonrpc":"2.0","id":"\u00fc\u20ac\ud83d\ude00","result":["0x01","0xabcdef"]}',
        ],
        ['{"id":2,"method":"eth_text"}', '{"jsonrpc":"2.0","id":2,"result":["caf\u00e9 \u20ac"]}'],
      ];
      for (const [request, expected] of cases) {
        const { length, body } = split(await exchange(server.port, request));
        expect(body.toString('utf8')).toBe(expected);
        expect(length).toBe(Buffer.byteLength(expected));
        expect(body.length).toBe(length);
      }
    } finally {
      await server.close();
    }
  });
});
