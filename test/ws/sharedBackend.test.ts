/**
 * One backend behind every transport: a node started in process by the composition root (`startNode`,
 * real LMDB, real HTTP and WebSocket servers on 127.0.0.1) answers a WebSocket read of a block from the
 * response cache that an HTTP read of the same block warmed, and the other way round, on every
 * connection. The cache's hit and miss counters show where each answer came from.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { importBlocks, type RunningNode, startNode } from '../../src/node.js';
import { CONFORMANCE, removeDir, tempDir } from '../helpers/node.js';
import { Client } from './helpers.js';

const RPC_COMPAT = join(CONFORMANCE, 'rpc-compat');

describe('one backend for HTTP and WebSocket', () => {
  let dir: string;
  let node: RunningNode;
  const clients: Client[] = [];

  beforeAll(async () => {
    dir = tempDir();
    const config = loadConfig(
      [
        `--genesis-file=${join(RPC_COMPAT, 'genesis.json')}`,
        `--data-path=${dir}`,
        '--logging=OFF',
        '--rpc-http-enabled',
        '--rpc-http-host=127.0.0.1',
        '--rpc-http-port=0',
        '--rpc-ws-enabled',
        '--rpc-ws-host=127.0.0.1',
        '--rpc-ws-port=0',
      ],
      {},
    );
    await importBlocks(config, [join(RPC_COMPAT, 'chain.rlp')], { skipPowValidation: true });
    node = await startNode(config);
  }, 120_000);

  afterAll(async () => {
    for (const c of clients) c.ws.close();
    await node?.stop();
    if (dir) removeDir(dir);
  });

  async function httpRead(number: number): Promise<unknown> {
    const r = await fetch(`http://127.0.0.1:${node.ports.http}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getBlockByNumber',
        params: [`0x${number.toString(16)}`, true],
      }),
    });
    return ((await r.json()) as { result: unknown }).result;
  }

  async function wsRead(c: Client, number: number): Promise<unknown> {
    const answer = (await c.call('eth_getBlockByNumber', [`0x${number.toString(16)}`, true])) as {
      result: unknown;
    };
    return answer.result;
  }

  async function connect(): Promise<Client> {
    const c = await Client.connect(`ws://127.0.0.1:${node.ports.ws}`);
    clients.push(c);
    return c;
  }

  it('serves a WebSocket read from the cache an HTTP read warmed', async () => {
    const cache = node.services.responseCache;
    const fromHttp = await httpRead(7);
    expect(fromHttp).toMatchObject({ number: '0x7' });
    const warmed = { hits: cache.hits, misses: cache.misses };

    const first = await connect();
    expect(await wsRead(first, 7)).toEqual(fromHttp);
    expect(cache.hits).toBe(warmed.hits + 1);
    expect(cache.misses).toBe(warmed.misses);

    // Another connection shares the same cache (no backend per connection).
    const second = await connect();
    expect(await wsRead(second, 7)).toEqual(fromHttp);
    expect(cache.hits).toBe(warmed.hits + 2);
    expect(cache.misses).toBe(warmed.misses);
  });

  it('serves an HTTP read from the cache a WebSocket read warmed', async () => {
    const cache = node.services.responseCache;
    const c = await connect();
    const before = { hits: cache.hits, misses: cache.misses };
    const fromWs = await wsRead(c, 9);
    expect(fromWs).toMatchObject({ number: '0x9' });
    expect(cache.misses).toBe(before.misses + 1);
    expect(await httpRead(9)).toEqual(fromWs);
    expect(cache.hits).toBe(before.hits + 1);
    expect(cache.misses).toBe(before.misses + 1);
  });
});
