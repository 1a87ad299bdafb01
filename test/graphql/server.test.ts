/**
 * The GraphQL endpoint over real HTTP on 127.0.0.1, on the Besu hive chain: Besu's routes and status
 * codes, GET and POST forms, the Host allowlist and CORS, the bounds (complexity, list items,
 * deadline), reads batched per request, and agreement with JSON-RPC on the same chain.
 */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningGraphQLServer, startGraphQLServer } from '../../src/graphql/server.js';
import { CONFORMANCE, openTestChain, type TestChain } from '../methods/chain.js';

let chain: TestChain;
const servers: RunningGraphQLServer[] = [];

async function serve(extra: Partial<Parameters<typeof startGraphQLServer>[0]> = {}): Promise<string> {
  const server = await startGraphQLServer({
    host: '127.0.0.1',
    port: 0,
    services: chain.services,
    hostAllowlist: ['localhost', '127.0.0.1'],
    corsOrigins: ['http://app.example'],
    maxRequestContentLength: 1024 * 1024,
    ...extra,
  });
  servers.push(server);
  return `http://127.0.0.1:${server.port}`;
}

let base: string;

beforeAll(async () => {
  const dir = join(CONFORMANCE, 'besu/chain-data/hive');
  chain = await openTestChain({
    genesis: join(dir, 'testGenesis.json'),
    blocks: join(dir, 'testBlockchain.blocks'),
    config: {
      rpcGasCap: 0n,
      minGasPrice: 0n,
      minPriorityFee: 0n,
      apiGasPriceBlocks: 100,
      apiGasPricePercentile: 50,
      apiGasPriceMax: 500_000_000_000n,
    },
  });
  base = await serve();
});

afterAll(async () => {
  for (const s of servers) await s.close();
  await chain?.close();
});

async function post(query: string, extra: Record<string, unknown> = {}, url = `${base}/graphql`) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, ...extra }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: GraphQL answers are untyped JSON
  return { status: res.status, body: (await res.json()) as { data?: any; errors?: any[] } };
}

function rawRequest(
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: url.port, path, method, headers }, (res) => {
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('routes and status codes', () => {
  it('GET /graphql reads query, operationName and variables from the query string', async () => {
    const q = 'query a { block { number } } query b($n: Long) { block(number: $n) { hash } }';
    const url = `${base}/graphql?query=${encodeURIComponent(q)}&operationName=b&variables=${encodeURIComponent('{"n":"0x1e"}')}`;
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({
      data: { block: { hash: '0xc8df1f061abb4d0c107b2b1a794ade8780b3120e681f723fe55a7be586d95ba6' } },
    });
  });

  it('POST with a non-JSON content type takes the body as the query; /graphql/ is the same route', async () => {
    const res = await fetch(`${base}/graphql/`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{ block(number: 30) { number } chainID }',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { block: { number: '0x1e' }, chainID: '0x1' } });
  });

  it('Long and BigInt inputs accept decimal and hex, as numbers or strings', async () => {
    for (const n of ['30', '"30"', '"0x1e"']) {
      const { body } = await post(`{ block(number: ${n}) { number } }`);
      expect(body).toEqual({ data: { block: { number: '0x1e' } } });
    }
  });

  it('GET and POST on / redirect to /graphql (308); other methods are refused (405)', async () => {
    for (const method of ['GET', 'POST']) {
      const res = await fetch(`${base}/`, { method, redirect: 'manual' });
      expect(res.status).toBe(308);
      expect(res.headers.get('location')).toBe('/graphql');
    }
    expect((await fetch(`${base}/graphql`, { method: 'PUT', body: '{}' })).status).toBe(405);
    expect((await fetch(`${base}/graphql`, { method: 'DELETE' })).status).toBe(405);
    expect((await fetch(`${base}/nothing`)).status).toBe(404);
  });

  it('answers 400 with the errors when the result has errors, and for an unreadable body', async () => {
    const bad = await post('{ block(number: 999) { number } }');
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.[0].message).toBe(
      'Exception while fetching data (/block) : Block number 999 was not found',
    );
    const syntax = await post('{ block { number ');
    expect(syntax.status).toBe(400);
    expect(syntax.body.errors?.[0].extensions.classification).toBe('InvalidSyntax');
    const json = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query": ',
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as { errors: { message: string }[] }).errors[0]?.message).toMatch(
      /^Invalid JSON body/,
    );
    const unknownField = await post('{ block { nope } }');
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.errors?.[0].extensions.classification).toBe('ValidationError');
  });

  it('refuses a Host outside the allowlist with 403', async () => {
    const res = await rawRequest('/graphql?query=%7Bblock%7Bnumber%7D%7D', { Host: 'evil.example' });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toEqual({ message: 'Host not authorized.' });
    const ok = await rawRequest('/graphql?query=%7Bblock%7Bnumber%7D%7D', { Host: 'localhost:8547' });
    expect(ok.status).toBe(200);
  });

  it('applies --graphql-http-cors-origins', async () => {
    const allowed = await rawRequest('/graphql?query=%7Bblock%7Bnumber%7D%7D', {
      Host: 'localhost',
      Origin: 'http://app.example',
    });
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe('http://app.example');
    const refused = await rawRequest('/graphql?query=%7Bblock%7Bnumber%7D%7D', {
      Host: 'localhost',
      Origin: 'http://other.example',
    });
    expect(refused.status).toBe(403);
    const preflight = await rawRequest(
      '/graphql',
      { Host: 'localhost', Origin: 'http://app.example', 'Access-Control-Request-Method': 'POST' },
      'OPTIONS',
    );
    expect(preflight.status).toBe(204);
  });
});

describe('bounds', () => {
  it("refuses a query above Besu's complexity bound before running it", async () => {
    const { status, body } = await post(
      '{ block { transactions { block { transactions { block { number } } } } } }',
    );
    expect(status).toBe(400);
    expect(body).toEqual({
      errors: [
        {
          message: 'maximum query complexity exceeded 204 > 200',
          extensions: { classification: 'ExecutionAborted' },
        },
      ],
    });
  });

  it('refuses a query nested deeper than the bound allows before parsing it (no stack overflow)', async () => {
    const { status, body } = await post(`{ ${'block { '.repeat(3000)}number${' }'.repeat(3000)} }`);
    expect(status).toBe(400);
    expect(body).toEqual({
      errors: [
        {
          message: 'maximum query depth exceeded 3001 > 200',
          extensions: { classification: 'ExecutionAborted' },
        },
      ],
    });
  });

  it('stops a query whose lists would exceed the item bound, with a clear error', async () => {
    const url = await serve({ maxListItems: 50 });
    const { status, body } = await post(
      '{ blocks(from: 0) { number transactions { hash } } }',
      {},
      `${url}/graphql`,
    );
    expect(status).toBe(400);
    expect(body.errors?.[0].message).toMatch(/exceeds the bound of 50 list items/);
  });

  it('answers 504 when a request runs past its deadline', async () => {
    const url = await serve({ timeoutSeconds: 0 });
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/graphql' },
      body: '{ logs(filter: { fromBlock: 0, toBlock: 34 }) { data } }',
    });
    expect(res.status).toBe(504);
  });
});

describe('reads and agreement with JSON-RPC', () => {
  it('reads each block and receipt list once per request, however many fields ask', async () => {
    const receipts = vi.spyOn(chain.services.chain, 'getReceipts');
    const blocks = vi.spyOn(chain.services.chain, 'getBlock');
    const { status, body } = await post(
      '{ blocks(from: 20, to: 34) { number transactions { hash status gasUsed cumulativeGasUsed logs { index } block { number } } } }',
    );
    expect(status).toBe(200);
    expect(body.data.blocks).toHaveLength(15);
    const hashesRead = (spy: typeof receipts) =>
      spy.mock.calls.map((c) => Buffer.from(c[0] as Uint8Array).toString('hex'));
    expect(new Set(hashesRead(receipts)).size).toBe(hashesRead(receipts).length);
    expect(new Set(hashesRead(blocks)).size).toBe(hashesRead(blocks).length);
    expect(receipts.mock.calls.length).toBeLessThanOrEqual(15);
    receipts.mockRestore();
    blocks.mockRestore();
  });

  it('agrees with eth_getBlockReceipts, eth_getBalance and eth_getTransactionCount on every block', async () => {
    const { body } = await post(
      `{ blocks(from: 1) { number hash transactions { hash index status gasUsed cumulativeGasUsed effectiveGasPrice
          from { address balance transactionCount } to { address } createdContract { address } } } }`,
    );
    for (const b of body.data.blocks) {
      const receipts = (await chain.call('eth_getBlockReceipts', [b.number])).result as Record<
        string,
        unknown
      >[];
      expect(b.transactions).toHaveLength(receipts.length);
      for (let i = 0; i < receipts.length; i++) {
        const t = b.transactions[i];
        const r = receipts[i] as Record<string, unknown>;
        expect(t.hash).toBe(r.transactionHash);
        expect(t.index).toBe(r.transactionIndex);
        expect(t.gasUsed).toBe(r.gasUsed);
        expect(t.cumulativeGasUsed).toBe(r.cumulativeGasUsed);
        expect(t.effectiveGasPrice).toBe(r.effectiveGasPrice);
        expect(t.status).toBe(r.status ?? null);
        expect(t.from.address).toBe(r.from);
        expect(t.to?.address ?? null).toBe(r.to);
        expect(t.createdContract?.address ?? null).toBe(r.contractAddress);
        const balance = await chain.call('eth_getBalance', [r.from, b.number]);
        const nonce = await chain.call('eth_getTransactionCount', [r.from, b.number]);
        expect(t.from.balance).toBe(balance.result);
        expect(t.from.transactionCount).toBe(nonce.result);
      }
    }
  });

  it('agrees with eth_getLogs over a range, and with eth_gasPrice and eth_maxPriorityFeePerGas', async () => {
    const { body } = await post(
      '{ logs(filter: { fromBlock: 0, toBlock: 34 }) { index topics data account { address } transaction { hash index block { number hash } } } gasPrice maxPriorityFeePerGas }',
    );
    const rpcLogs = (await chain.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x22' }]))
      .result as Record<string, unknown>[];
    expect(body.data.logs.length).toBe(rpcLogs.length);
    expect(rpcLogs.length).toBeGreaterThan(0);
    // biome-ignore lint/suspicious/noExplicitAny: GraphQL answers are untyped JSON
    body.data.logs.forEach((l: any, i: number) => {
      const r = rpcLogs[i] as Record<string, unknown>;
      expect(l.index).toBe(r.logIndex);
      expect(l.topics).toEqual(r.topics);
      expect(l.data).toBe(r.data);
      expect(l.account.address).toBe(r.address);
      expect(l.transaction.hash).toBe(r.transactionHash);
      expect(l.transaction.block.hash).toBe(r.blockHash);
    });
    expect(body.data.gasPrice).toBe((await chain.call('eth_gasPrice')).result);
    expect(body.data.maxPriorityFeePerGas).toBe((await chain.call('eth_maxPriorityFeePerGas')).result);
  });

  it('writes raw transactions and receipts as the block body and receipt list hold them', async () => {
    const hash = '0x3ecd2ca6cf26c864d0ea5f038a58d4cd4a46a3e242fe92f446f392fdc232dd98';
    const { body } = await post(
      `{ transaction(hash: "${hash}") { type raw rawReceipt index block { number } } }`,
    );
    const t = body.data.transaction;
    expect(t.type).toBe('0x2');
    const canonical = (await chain.call('debug_getRawTransaction', [hash])).result as string;
    const receipts = (await chain.call('debug_getRawReceipts', [t.block.number])).result as string[];
    const receipt = receipts[Number(t.index)] as string;
    // A typed envelope is an RLP byte string inside the block body and the receipt list.
    const wrap = (hex: string) =>
      `0x${Buffer.from(RLP.encode(Buffer.from(hex.slice(2), 'hex'))).toString('hex')}`;
    expect(t.raw).toBe(wrap(canonical));
    expect(t.rawReceipt).toBe(wrap(receipt));
  });

  it('serves the raw encodings, ommers and the parent link', async () => {
    const { body } = await post(
      '{ block(number: 34) { rawHeader raw parent { number } ommerCount ommers { number } ommerAt(index: 0) { number } transactionAt(index: 99) { hash } } }',
    );
    const raw = (await chain.call('debug_getRawHeader', ['0x22'])).result;
    const rawBlock = (await chain.call('debug_getRawBlock', ['0x22'])).result;
    expect(body.data.block.rawHeader).toBe(raw);
    expect(body.data.block.raw).toBe(rawBlock);
    expect(body.data.block.parent).toEqual({ number: '0x21' });
    expect(body.data.block.ommerCount).toBe('0x0');
    expect(body.data.block.ommers).toEqual([]);
    expect(body.data.block.ommerAt).toBeNull();
    expect(body.data.block.transactionAt).toBeNull();
  });
});
