/**
 * Authentication end to end over real sockets: the HTTP server and the WS server, each with its own
 * createAuth instance, in both modes; every attack of issue 5 refused with the right status while the
 * recording methods prove nothing ran.
 */
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAuth, type RpcAuth } from '../../src/rpc/auth/index.js';
import { hashPassword } from '../../src/rpc/auth/password.js';
import { createDispatcher } from '../../src/rpc/dispatch.js';
import { type RunningHttpServer, startHttpServer } from '../../src/rpc/server/http.js';
import type { Services } from '../../src/rpc/services.js';
import { Client, type Harness, recordingMethods, startHarness } from '../ws/helpers.js';
import { claims, nowSeconds, signToken, tempDir, testKey, writeTemp } from './helpers.js';

const UNAUTHORIZED_NULL = { jsonrpc: '2.0', id: null, error: { code: -40100, message: 'Unauthorized' } };
const unauthorized = (id: number) => ({
  jsonrpc: '2.0',
  id,
  error: { code: -40100, message: 'Unauthorized' },
});

interface Servers {
  http: RunningHttpServer;
  httpUrl: string;
  httpCalls: string[];
  ws: Harness;
  httpAuth: RpcAuth;
  wsAuth: RpcAuth;
}

async function startServers(make: (transport: 'HTTP' | 'WS') => Promise<RpcAuth>): Promise<Servers> {
  const httpAuth = await make('HTTP');
  const wsAuth = await make('WS');
  const { methods, calls } = recordingMethods();
  const dispatcher = createDispatcher({
    methods,
    enabledGroups: ['ETH', 'NET', 'WEB3', 'ADMIN'],
    maxBatchSize: 5,
  });
  const http = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    dispatcher,
    services: {} as Services,
    maxRequestContentLength: 64 * 1024,
    hostAllowlist: ['localhost', '127.0.0.1'],
    corsOrigins: ['https://good.example'],
    maxActiveConnections: 80,
    auth: httpAuth,
  });
  const ws = await startHarness({ auth: wsAuth });
  return { http, httpUrl: `http://127.0.0.1:${http.port}`, httpCalls: calls, ws, httpAuth, wsAuth };
}

async function stopServers(s: Servers | undefined) {
  if (!s) return;
  await s.http.close();
  await s.ws.close();
}

async function rpc(url: string, body: unknown, token?: string, extra: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(token !== undefined ? { Authorization: `Bearer ${token}` } : {}),
      ...extra,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: test reads JSON answers
  let parsed: any;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
}

const call = (method: string, id = 1, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });

async function login(baseUrl: string, username: string, password: string) {
  const res = await fetch(`${baseUrl}/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  return {
    status: res.status,
    statusText: res.statusText,
    type: res.headers.get('content-type'),
    text: await res.text(),
  };
}

let dir: string;
let credentials: string;
beforeAll(async () => {
  dir = tempDir();
  const hash = await hashPassword('pegasys');
  credentials = writeTemp(
    dir,
    'auth.toml',
    `[Users.admin]
password = "${hash}"
permissions = ["*:*"]

[Users.reader]
password = "${hash}"
permissions = ["eth:blockNumber", "net:*"]

[Users.prefix]
password = "${hash}"
permissions = ["eth:getBal", "eth:get*", "ETH:*"]

[Users.tenant]
password = "${hash}"
permissions = ["eth:*"]
privacyPublicKey = "A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo="
`,
  );
});

describe('username/password mode', () => {
  let s: Servers;
  let now = nowSeconds();
  const clock = () => now;
  beforeAll(async () => {
    s = await startServers((transport) =>
      createAuth({ enabled: true, credentialsFile: credentials, transport, now: clock }),
    );
  });
  afterAll(() => stopServers(s));
  afterEach(() => {
    s.httpCalls.length = 0;
    s.ws.calls.length = 0;
    now = nowSeconds();
  });

  it('login on the HTTP port: token, wrong password, missing fields', async () => {
    const ok = await login(s.httpUrl, 'admin', 'pegasys');
    expect(ok.status).toBe(200);
    expect(ok.type).toBe('application/json');
    expect(JSON.parse(ok.text)).toEqual({ token: expect.stringMatching(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/) });
    expect(await login(s.httpUrl, 'admin', 'nope')).toMatchObject({
      status: 401,
      text: 'Authentication failed: the username or password is incorrect.',
    });
    expect(await login(s.httpUrl, 'ghost', 'pegasys')).toMatchObject({ status: 401 });
    const missing = await fetch(`${s.httpUrl}/login`, { method: 'POST', body: '{"username":"admin"}' });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toBe('Authentication failed: username and password are required.');
  });

  it('login on the WS port, and each port accepts only its own tokens', async () => {
    const wsLogin = await login(`http://127.0.0.1:${s.ws.server.port}`, 'admin', 'pegasys');
    expect(wsLogin.status).toBe(200);
    const wsToken = JSON.parse(wsLogin.text).token as string;
    const httpToken = JSON.parse((await login(s.httpUrl, 'admin', 'pegasys')).text).token as string;

    // the HTTP token on HTTP, the WS token on WS
    expect((await rpc(s.httpUrl, call('eth_blockNumber'), httpToken)).body.result).toBe('0x10');
    const good = await Client.connect(s.ws.url, { headers: { Authorization: `Bearer ${wsToken}` } });
    expect((await good.call('eth_blockNumber')).result).toBe('0x10');
    good.close();
    s.httpCalls.length = 0;
    s.ws.calls.length = 0;

    // crossed over: refused, nothing runs
    expect(await rpc(s.httpUrl, call('eth_blockNumber', 3), wsToken)).toEqual({
      status: 401,
      body: unauthorized(3),
    });
    const crossed = await Client.connect(s.ws.url, { headers: { Authorization: `Bearer ${httpToken}` } });
    expect(await crossed.call('eth_blockNumber')).toEqual(unauthorized(1));
    crossed.close();
    expect(s.httpCalls).toEqual([]);
    expect(s.ws.calls).toEqual([]);
  });

  it('HTTP: no token ⇒ 401 with id null before parsing; bad token ⇒ 401 per request', async () => {
    expect(await rpc(s.httpUrl, call('eth_blockNumber', 9))).toEqual({
      status: 401,
      body: UNAUTHORIZED_NULL,
    });
    expect(await rpc(s.httpUrl, 'not json at all')).toEqual({ status: 401, body: UNAUTHORIZED_NULL });
    expect(await rpc(s.httpUrl, call('eth_blockNumber', 9), 'garbage')).toEqual({
      status: 401,
      body: unauthorized(9),
    });
    // only the exact "Bearer " scheme counts; a token in the query string is not read
    const token = JSON.parse((await login(s.httpUrl, 'admin', 'pegasys')).text).token as string;
    expect(
      await rpc(s.httpUrl, call('eth_blockNumber', 9), undefined, { Authorization: `bearer ${token}` }),
    ).toEqual({
      status: 401,
      body: UNAUTHORIZED_NULL,
    });
    expect((await rpc(`${s.httpUrl}/?token=${token}`, call('eth_blockNumber', 9))).status).toBe(401);
    // Besu's order: unknown and disabled methods are reported even to an invalid token
    expect((await rpc(s.httpUrl, call('eth_noSuchMethod', 2), 'garbage')).body.error.code).toBe(-32601);
    expect(s.httpCalls).toEqual([]);
  });

  it('permissions: exact strings only, per request and per batch entry', async () => {
    const reader = JSON.parse((await login(s.httpUrl, 'reader', 'pegasys')).text).token as string;
    expect((await rpc(s.httpUrl, call('eth_blockNumber'), reader)).body.result).toBe('0x10');
    expect((await rpc(s.httpUrl, call('net_version'), reader)).body.result).toBe('1337');
    expect(await rpc(s.httpUrl, call('eth_chainId', 4), reader)).toEqual({
      status: 401,
      body: unauthorized(4),
    });
    expect(await rpc(s.httpUrl, call('admin_peers', 5), reader)).toEqual({
      status: 401,
      body: unauthorized(5),
    });

    const mixed = await rpc(
      s.httpUrl,
      [call('eth_blockNumber', 1), call('admin_peers', 2), call('net_version', 3), call('eth_getBalance', 4)],
      reader,
    );
    expect(mixed.status).toBe(200);
    expect(mixed.body).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x10' },
      unauthorized(2),
      { jsonrpc: '2.0', id: 3, result: '1337' },
      unauthorized(4),
    ]);
    expect(s.httpCalls).toEqual(['eth_blockNumber', 'net_version', 'eth_blockNumber', 'net_version']);

    s.httpCalls.length = 0;
    const prefix = JSON.parse((await login(s.httpUrl, 'prefix', 'pegasys')).text).token as string;
    expect(await rpc(s.httpUrl, call('eth_getBalance', 6), prefix)).toEqual({
      status: 401,
      body: unauthorized(6),
    });
    expect(await rpc(s.httpUrl, call('eth_blockNumber', 7), prefix)).toEqual({
      status: 401,
      body: unauthorized(7),
    });
    expect(s.httpCalls).toEqual([]);
  });

  it('WS: every message and batch entry is checked; no token means unauthorised, not disconnected', async () => {
    const anon = await Client.connect(s.ws.url);
    expect(await anon.call('eth_blockNumber')).toEqual(unauthorized(1));
    expect(await anon.call('eth_subscribe', ['newHeads'])).toEqual(unauthorized(2));
    anon.close();
    const queryToken = JSON.parse(
      (await login(`http://127.0.0.1:${s.ws.server.port}`, 'admin', 'pegasys')).text,
    ).token;
    const viaQuery = await Client.connect(`${s.ws.url}/?token=${queryToken}`);
    expect(await viaQuery.call('eth_blockNumber')).toEqual(unauthorized(1));
    viaQuery.close();
    expect(s.ws.calls).toEqual([]);

    const reader = JSON.parse(
      (await login(`http://127.0.0.1:${s.ws.server.port}`, 'reader', 'pegasys')).text,
    ).token;
    const c = await Client.connect(s.ws.url, { headers: { Authorization: `Bearer ${reader}` } });
    c.sendRaw(JSON.stringify([call('eth_blockNumber', 1), call('admin_peers', 2), call('eth_chainId', 3)]));
    expect(await c.next()).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x10' },
      unauthorized(2),
      unauthorized(3),
    ]);
    expect(s.ws.calls).toEqual(['eth_blockNumber']);
    c.close();
  });

  it('WS: a token that expires while the connection is open stops authorising requests; subscriptions go on', async () => {
    const wsBase = `http://127.0.0.1:${s.ws.server.port}`;
    const token = JSON.parse((await login(wsBase, 'admin', 'pegasys')).text).token as string;
    const c = await Client.connect(s.ws.url, { headers: { Authorization: `Bearer ${token}` } });
    expect((await c.call('eth_blockNumber')).result).toBe('0x10');
    const sub = (await c.call('eth_subscribe', ['newHeads'])).result as string;
    expect(sub).toMatch(/^0x[0-9a-f]+$/);

    now += 299;
    expect((await c.call('eth_blockNumber')).result).toBe('0x10');
    now += 1; // exp reached
    expect(await c.call('eth_blockNumber')).toEqual(unauthorized(4));
    expect(await c.call('eth_unsubscribe', [sub])).toEqual(unauthorized(5));
    expect(c.ws.readyState).toBe(c.ws.OPEN);
    expect(s.ws.calls).toEqual(['eth_blockNumber', 'eth_blockNumber']);

    s.ws.source.head({ number: '0x1', hash: `0x${'11'.repeat(32)}` });
    expect(await c.next()).toEqual({
      jsonrpc: '2.0',
      method: 'eth_subscription',
      params: { subscription: sub, result: { number: '0x1', hash: `0x${'11'.repeat(32)}` } },
    });
    // the same token on HTTP-style checks is expired as well
    expect((await s.wsAuth.verifyToken(token)).ok).toBe(false);
    c.close();
  });

  it('the privacy public key travels with the user', async () => {
    const token = JSON.parse((await login(s.httpUrl, 'tenant', 'pegasys')).text).token as string;
    const { user } = await s.httpAuth.authenticate(`Bearer ${token}`);
    expect(user).toEqual({
      username: 'tenant',
      permissions: ['eth:*'],
      privacyPublicKey: 'A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=',
    });
  });

  it('oversized bodies, Host headers off the list and refused CORS origins execute nothing', async () => {
    const token = JSON.parse((await login(s.httpUrl, 'admin', 'pegasys')).text).token as string;
    const huge = JSON.stringify(call('web3_sha3', 1, ['x'.repeat(100_000)]));
    expect((await rpc(s.httpUrl, huge, token)).status).toBe(413);
    const tooManyInBatch = await rpc(
      s.httpUrl,
      Array.from({ length: 6 }, (_, i) => call('eth_chainId', i)),
      token,
    );
    expect(tooManyInBatch.body.error.code).toBe(-32005);
    const preflight = await fetch(s.httpUrl, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    const crossOrigin = await rpc(s.httpUrl, call('eth_chainId'), token, { Origin: 'https://evil.example' });
    expect(crossOrigin.status).toBe(403);
    const offList = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: s.http.port,
          method: 'POST',
          path: '/',
          headers: {
            Host: 'evil.example',
            Authorization: `Bearer ${token}`,
            'Content-Type': 'application/json',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(call('eth_chainId')));
    });
    expect(offList).toBe(403);
    expect(s.httpCalls).toEqual([]);
  });
});

describe('external public-key mode: the attacks', () => {
  let s: Servers;
  const rsa = () => testKey('rsa2048').privateKey;
  beforeAll(async () => {
    const pem = writeTemp(tempDir(), 'pub.pem', testKey('rsa2048').publicPem);
    s = await startServers((transport) => createAuth({ enabled: true, jwtPublicKeyFile: pem, transport }));
  });
  afterAll(() => stopServers(s));
  afterEach(() => {
    s.httpCalls.length = 0;
    s.ws.calls.length = 0;
  });

  const b64u = (x: string) => Buffer.from(x).toString('base64url');
  const now = nowSeconds();
  const attacks: Record<string, () => string> = {
    'alg none': () => `${b64u('{"alg":"none","typ":"JWT"}')}.${b64u(JSON.stringify(claims()))}.`,
    'HS256 signed with the public key': () => {
      const input = `${b64u('{"alg":"HS256","typ":"JWT"}')}.${b64u(JSON.stringify(claims()))}`;
      return `${input}.${createHmac('sha256', testKey('rsa2048').publicPem).update(input).digest('base64url')}`;
    },
    expired: () => signToken({ alg: 'RS256' }, claims({ iat: now - 600, exp: now - 10 }), rsa()),
    'not yet valid (nbf)': () => signToken({ alg: 'RS256' }, claims({ nbf: now + 3600 }), rsa()),
    'issued in the future (iat)': () =>
      signToken({ alg: 'RS256' }, claims({ iat: now + 3600, exp: now + 7200 }), rsa()),
    'tampered payload': () => {
      const [h, , sig] = signToken({ alg: 'RS256' }, claims({ permissions: ['net:*'] }), rsa()).split('.');
      return `${h}.${b64u(JSON.stringify(claims({ permissions: ['*:*'] })))}.${sig}`;
    },
    'no permissions': () => {
      const { permissions: _, ...rest } = claims();
      return signToken({ alg: 'RS256' }, rest, rsa());
    },
    'no exp': () => {
      const { exp: _, ...rest } = claims();
      return signToken({ alg: 'RS256' }, rest, rsa());
    },
    'signed by another key': () => signToken({ alg: 'RS256' }, claims(), testKey('rsa1024').privateKey),
    'ES256 instead of RS256': () => signToken({ alg: 'ES256' }, claims(), testKey('p256').privateKey),
  };

  it('a genuine token works on both ports (there is no login)', async () => {
    const token = signToken({ alg: 'RS256', typ: 'JWT' }, claims({ permissions: ['eth:*'] }), rsa());
    expect((await rpc(s.httpUrl, call('eth_chainId'), token)).body.result).toBe('0x539');
    const c = await Client.connect(s.ws.url, { headers: { Authorization: `Bearer ${token}` } });
    expect((await c.call('eth_chainId')).result).toBe('0x539');
    expect(await c.call('net_version')).toEqual(unauthorized(2));
    c.close();
    for (const base of [s.httpUrl, `http://127.0.0.1:${s.ws.server.port}`]) {
      expect(await login(base, 'admin', 'pegasys')).toMatchObject({
        status: 400,
        statusText: 'Authentication not enabled',
        text: '',
      });
    }
  });

  for (const [name, make] of Object.entries(attacks)) {
    it(`refuses ${name} on HTTP (401) and WS (-40100), executing nothing`, async () => {
      const token = make();
      expect(await rpc(s.httpUrl, call('eth_chainId', 11), token)).toEqual({
        status: 401,
        body: unauthorized(11),
      });
      const batch = await rpc(s.httpUrl, [call('eth_chainId', 1), call('net_version', 2)], token);
      expect(batch).toEqual({ status: 200, body: [unauthorized(1), unauthorized(2)] });
      const c = await Client.connect(s.ws.url, { headers: { Authorization: `Bearer ${token}` } });
      expect(await c.call('eth_chainId')).toEqual(unauthorized(1));
      c.close();
      expect(s.httpCalls).toEqual([]);
      expect(s.ws.calls).toEqual([]);
    });
  }
});

describe('external keys on other curves, end to end', () => {
  for (const [alg, kind] of [
    ['ES256', 'secp256k1'],
    ['ES256', 'p256'],
    ['ES384', 'p384'],
    ['ES512', 'p521'],
    ['RS512', 'rsa2048'],
  ] as const) {
    it(`${alg} with ${kind} over WS; the other ES256 curve is refused`, async () => {
      const pem = writeTemp(tempDir(), 'k.pem', testKey(kind).publicPem);
      const h = await startHarness({
        auth: await createAuth({ enabled: true, jwtPublicKeyFile: pem, jwtAlgorithm: alg }),
      });
      try {
        const token = signToken({ alg }, claims(), testKey(kind).privateKey);
        const c = await Client.connect(h.url, { headers: { Authorization: `Bearer ${token}` } });
        expect((await c.call('eth_chainId')).result).toBe('0x539');
        c.close();
        if (alg === 'ES256') {
          const other = kind === 'p256' ? 'secp256k1' : 'p256';
          const forged = signToken({ alg }, claims(), testKey(other).privateKey);
          const d = await Client.connect(h.url, { headers: { Authorization: `Bearer ${forged}` } });
          expect(await d.call('eth_chainId')).toEqual(unauthorized(1));
          d.close();
        }
      } finally {
        await h.close();
      }
    });
  }

  it('refuses to start with an RSA key under 2048 bits', async () => {
    const pem = writeTemp(tempDir(), 'weak.pem', testKey('rsa1024').publicPem);
    await expect(createAuth({ enabled: true, jwtPublicKeyFile: pem, transport: 'WS' })).rejects.toThrow(
      'Authentication RPC public key is too weak: RSA keys must be at least 2048 bits, this one has 1024',
    );
  });
});
