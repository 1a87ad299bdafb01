import { describe, expect, it } from 'vitest';
import type { DispatchContext } from '../../src/rpc/dispatch.js';
import { services, testDispatcher, testMethods } from './helpers.js';

const http: DispatchContext = { services, transport: 'http' };
const ws: DispatchContext = { services, transport: 'ws' };
const d = testDispatcher();

async function call(body: unknown, ctx = http) {
  return d.handle(typeof body === 'string' ? body : JSON.stringify(body), ctx);
}

describe('dispatcher: envelope', () => {
  it('answers a request with jsonrpc, id, result in that order', async () => {
    const r = await call({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
    expect(r).toEqual({ status: 200, body: '{"jsonrpc":"2.0","id":1,"result":"0x10"}' });
  });

  it('echoes string, null, float and large ids; does not check jsonrpc', async () => {
    expect((await call({ id: 'abc"x', method: 'eth_blockNumber' })).body).toBe(
      '{"jsonrpc":"2.0","id":"abc\\"x","result":"0x10"}',
    );
    expect((await call({ jsonrpc: '1.0', id: null, method: 'eth_blockNumber' })).body).toBe(
      '{"jsonrpc":"2.0","id":null,"result":"0x10"}',
    );
    expect((await call('{"id":1.5,"method":"eth_blockNumber"}')).body).toBe(
      '{"jsonrpc":"2.0","id":1.5,"result":"0x10"}',
    );
  });

  it('supports async handlers and undefined results (null)', async () => {
    expect((await call({ id: 2, method: 'eth_chainId' })).body).toBe(
      '{"jsonrpc":"2.0","id":2,"result":"0x539"}',
    );
    expect((await call({ id: 2, method: 'eth_nothing' })).body).toBe(
      '{"jsonrpc":"2.0","id":2,"result":null}',
    );
  });

  it('passes params (absent or null = empty array)', async () => {
    expect((await call({ id: 1, method: 'eth_echo', params: [1, 'a'] })).body).toBe(
      '{"jsonrpc":"2.0","id":1,"result":[1,"a"]}',
    );
    expect((await call({ id: 1, method: 'eth_echo' })).body).toBe('{"jsonrpc":"2.0","id":1,"result":[]}');
    expect((await call({ id: 1, method: 'eth_echo', params: null })).body).toBe(
      '{"jsonrpc":"2.0","id":1,"result":[]}',
    );
  });
});

describe('dispatcher: request errors', () => {
  it('parse errors are -32700 with HTTP 400 and no content type', async () => {
    for (const body of ['', '   ', '{', 'nope', '123', '"str"', 'null', 'true']) {
      const r = await call(body);
      expect(r.status).toBe(400);
      expect(r.bareBody).toBe(true);
      expect(r.body).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
    }
  });

  it('empty batch is a single -32600 with HTTP 400', async () => {
    const r = await call('[]');
    expect(r.status).toBe(400);
    expect(r.body).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}');
  });

  it('bad id types are -32600; the id is echoed only when numeric', async () => {
    const r1 = await call({ id: true, method: 'eth_blockNumber' });
    expect(r1.status).toBe(400);
    expect(r1.body).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}');
    const r2 = await call({ id: { a: 1 }, method: 'eth_blockNumber' });
    expect(r2.body).toContain('"id":null');
    // a valid numeric id with another problem (params not an array) is echoed; a string id is not
    expect((await call({ id: 7, method: 'eth_blockNumber', params: { a: 1 } })).body).toBe(
      '{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request"}}',
    );
    expect((await call({ id: 'x', method: 'eth_blockNumber', params: 'a' })).body).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}',
    );
  });

  it('missing method is -32600 (even without an id)', async () => {
    const r = await call({ id: 3 });
    expect(r.status).toBe(400);
    expect(r.body).toBe('{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request"}}');
    expect((await call({ jsonrpc: '2.0' })).body).toContain('-32600');
  });

  it('unknown method -32601, known but disabled -32604, both HTTP 200', async () => {
    const r1 = await call({ id: 1, method: 'foo_bar' });
    expect(r1).toEqual({
      status: 200,
      body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}',
    });
    const r2 = await call({ id: 1, method: 'admin_peers' });
    expect(r2.body).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32604,"message":"Method not enabled"}}');
    // known to Besu but not implemented here
    expect((await call({ id: 1, method: 'clique_getSigners' })).body).toContain('-32604');
    // registered by Alder but its group is off
    expect((await call({ id: 1, method: 'debug_custom' })).body).toContain('-32604');
    // subscriptions exist only over WebSocket
    expect((await call({ id: 1, method: 'eth_subscribe' })).body).toContain('-32604');
  });

  it("enables a plugin's methods when the API list names its namespace, in any case (not by PLUGINS)", async () => {
    const methods = [
      ...testMethods,
      { name: 'hello_greet', group: 'PLUGINS' as const, plugin: true, handler: () => 'hi' },
    ];
    const body = JSON.stringify({ id: 1, method: 'hello_greet' });
    const answer = async (groups: string[]) =>
      (await testDispatcher({ groups, methods }).handle(body, http)).body;
    expect(await answer(['ETH', 'PLUGINS'])).toContain('-32604');
    expect(await answer(['ETH', 'HELLO'])).toBe('{"jsonrpc":"2.0","id":1,"result":"hi"}');
    expect(await answer(['hello'])).toBe('{"jsonrpc":"2.0","id":1,"result":"hi"}');
    const modules = await testDispatcher({ groups: ['ETH', 'HELLO'], methods }).handle(
      JSON.stringify({ id: 1, method: 'rpc_modules' }),
      http,
    );
    expect(JSON.parse(modules.body).result).toEqual({ eth: '1.0', hello: '1.0' });
  });

  it('eth_sendTransaction has its own -32604 message', async () => {
    const r = await call({ id: 1, method: 'eth_sendTransaction', params: [{}] });
    expect(r.body).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32604,"message":"The method eth_sendTransaction is not supported. Use eth_sendRawTransaction to send a signed transaction to Besu."}}',
    );
  });

  it('handler failures: RpcError as is (with data), anything else -32603', async () => {
    const r = await call({ id: 1, method: 'eth_rpcError' });
    expect(r).toEqual({
      status: 200,
      body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32004,"message":"Upfront cost exceeds account balance (detail here)","data":{"extra":1}}}',
    });
    const quiet = console.error;
    console.error = () => {};
    try {
      expect((await call({ id: 1, method: 'eth_throws' })).body).toBe(
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}',
      );
      expect((await call({ id: 1, method: 'eth_rejects' })).body).toContain('-32603');
      expect((await call({ id: 1, method: 'eth_bigint' })).body).toContain('-32603');
    } finally {
      console.error = quiet;
    }
  });
});

describe('dispatcher: notifications', () => {
  it('a request without id gets no answer (HTTP 200, empty body)', async () => {
    expect(await call({ method: 'eth_blockNumber' })).toEqual({ status: 200, body: undefined });
    expect(await call({ method: 'no_such_method' })).toEqual({ status: 200, body: undefined });
  });

  it('a batch of only notifications answers []', async () => {
    const r = await call([{ method: 'eth_blockNumber' }, { method: 'eth_chainId' }]);
    expect(r).toEqual({ status: 200, body: '[]' });
  });
});

describe('dispatcher: batches', () => {
  it('runs in order, skips notifications, mixes results and errors, HTTP 200', async () => {
    const d10 = testDispatcher({ maxBatchSize: 10 });
    const batch = [
      { id: 1, method: 'eth_chainId' },
      { method: 'eth_blockNumber' },
      { id: 2, method: 'foo' },
      5,
      { id: 3, method: 'eth_blockNumber' },
      { id: 4 },
    ];
    const r = await d10.handle(JSON.stringify(batch), http);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body as string)).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x539' },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } },
      { jsonrpc: '2.0', id: 3, result: '0x10' },
      { jsonrpc: '2.0', id: 4, error: { code: -32600, message: 'Invalid Request' } },
    ]);
  });

  it('over the size limit: one error object (not an array), id null, -32005, HTTP 200', async () => {
    const batch = Array.from({ length: 6 }, (_, i) => ({ id: i, method: 'eth_blockNumber' }));
    const r = await call(batch);
    expect(r).toEqual({
      status: 200,
      body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":"Number of requests exceeds max batch size"}}',
    });
    expect(JSON.parse((await call(batch.slice(0, 5))).body as string)).toHaveLength(5);
  });

  it('a limit of 0 or less is unlimited', async () => {
    const unlimited = testDispatcher({ maxBatchSize: -1 });
    const batch = Array.from({ length: 50 }, (_, i) => ({ id: i, method: 'eth_blockNumber' }));
    const r = await unlimited.handle(JSON.stringify(batch), http);
    expect(JSON.parse(r.body as string)).toHaveLength(50);
  });
});

describe('dispatcher: rpc_modules', () => {
  it('lists the enabled groups in lowercase, in Besu HashMap order', async () => {
    const r = await call({ id: 1, method: 'rpc_modules' });
    expect(r.body).toBe('{"jsonrpc":"2.0","id":1,"result":{"eth":"1.0","web3":"1.0","net":"1.0"}}');
    const d2 = testDispatcher({ groups: ['ETH', 'NET', 'WEB3', 'DEBUG', 'TRACE', 'TESTING'] });
    const r2 = await d2.handle('{"id":1,"method":"rpc_modules"}', http);
    expect(Object.keys(JSON.parse(r2.body as string).result)).toEqual([
      'trace',
      'debug',
      'testing',
      'eth',
      'web3',
      'net',
    ]);
  });
});

describe('dispatcher: permissions', () => {
  const deny: DispatchContext = {
    services,
    transport: 'http',
    permit: (m) => m.name !== 'eth_chainId',
  };

  it('a refused single request is -40100 with HTTP 401', async () => {
    const r = await call({ id: 9, method: 'eth_chainId' }, deny);
    expect(r).toEqual({
      status: 401,
      body: '{"jsonrpc":"2.0","id":9,"error":{"code":-40100,"message":"Unauthorized"}}',
    });
    expect((await call({ id: 9, method: 'eth_blockNumber' }, deny)).status).toBe(200);
  });

  it('unknown and disabled methods are reported before the permission check', async () => {
    const none: DispatchContext = { services, transport: 'http', permit: () => false };
    expect((await call({ id: 1, method: 'foo_bar' }, none)).body).toContain('-32601');
    expect((await call({ id: 1, method: 'admin_peers' }, none)).body).toContain('-32604');
  });

  it('inside a batch only the entry is refused; the batch is HTTP 200', async () => {
    const r = await call(
      [
        { id: 1, method: 'eth_chainId' },
        { id: 2, method: 'eth_blockNumber' },
      ],
      deny,
    );
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body as string)[0].error.code).toBe(-40100);
  });

  it('authRequired without permit refuses requests that have no user', async () => {
    const ctx: DispatchContext = { services, transport: 'http', authRequired: true };
    expect((await call({ id: 1, method: 'eth_blockNumber' }, ctx)).status).toBe(401);
    const withUser: DispatchContext = { ...ctx, user: { permissions: ['*:*'] } };
    expect((await call({ id: 1, method: 'eth_blockNumber' }, withUser)).status).toBe(200);
  });
});

describe('dispatcher: WebSocket rules', () => {
  it('unparsable or non-object text is -32603, an empty frame -32600', async () => {
    expect((await call('nope', ws)).body).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}',
    );
    expect((await call('123', ws)).body).toContain('-32603');
    expect((await call('', ws)).body).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}',
    );
  });

  it('has no batch limit', async () => {
    const batch = Array.from({ length: 20 }, (_, i) => ({ id: i, method: 'eth_blockNumber' }));
    expect(JSON.parse((await call(batch, ws)).body as string)).toHaveLength(20);
  });
});
