/**
 * Besu's GraphQL spec cases (`../shared/conformance/besu/graphql`) against the GraphQL endpoint over
 * real HTTP on 127.0.0.1, on the Besu hive chain (blocks 1–34), sent as Besu's harness sends them: the
 * bare query as `application/graphql`, or `{query, variables}` as JSON when the case has variables.
 * The whole answer must equal Besu's (member order aside), and the status too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGraphQLServer, startGraphQLServer } from '../../src/graphql/server.js';
import { CONFORMANCE, openTestChain, type TestChain } from '../methods/chain.js';

const DIR = join(CONFORMANCE, 'besu/graphql');

/** Cases whose expected answers come from the mocks of Besu's harness, not from the chain. */
const MOCK_DEPENDENT: Record<string, string> = {
  'eth_syncing.json': 'expects the mocked synchroniser status 1/2/3; Alder is never syncing (null)',
  'graphql_pending.json': 'expects the mocked pool’s pending transaction (nonce 42) and a pool count of 0',
  'eth_sendRawTransaction_messageCall.json':
    'expects the mocked pool to accept a transaction the chain state refuses',
  'eth_sendRawTransaction_transferEther.json':
    'expects the mocked pool to accept a transaction the chain state refuses',
  'graphql_variable_bytes.json':
    'sends the transfer of eth_sendRawTransaction_transferEther to the mocked pool',
};

interface Spec {
  request: string;
  variables?: string;
  response: unknown;
  statusCode: number;
}

describe('Besu GraphQL spec cases', () => {
  let chain: TestChain;
  let server: RunningGraphQLServer;
  beforeAll(async () => {
    const dir = join(CONFORMANCE, 'besu/chain-data/hive');
    chain = await openTestChain({
      genesis: join(dir, 'testGenesis.json'),
      blocks: join(dir, 'testBlockchain.blocks'),
      networkId: 123n,
      config: {
        rpcGasCap: 0n,
        minGasPrice: 0n,
        minPriorityFee: 0n,
        apiGasPriceBlocks: 100,
        apiGasPricePercentile: 50,
        apiGasPriceMax: 500_000_000_000n,
      },
    });
    server = await startGraphQLServer({
      host: '127.0.0.1',
      port: 0,
      services: chain.services,
      hostAllowlist: ['localhost', '127.0.0.1'],
      corsOrigins: [],
      maxRequestContentLength: 5 * 1024 * 1024,
    });
  });
  afterAll(async () => {
    await server?.close();
    await chain?.close();
  });

  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
  it('has the 31 shared cases', () => {
    expect(files.length).toBe(31);
  });
  for (const file of files) {
    const run = MOCK_DEPENDENT[file] ? it.skip : it;
    run(file, async () => {
      const spec = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Spec;
      const init =
        spec.variables === undefined
          ? { body: spec.request, headers: { 'content-type': 'application/graphql' } }
          : {
              body: JSON.stringify({ query: spec.request, variables: JSON.parse(spec.variables) }),
              headers: { 'content-type': 'application/json' },
            };
      const res = await fetch(`http://127.0.0.1:${server.port}/graphql/`, { method: 'POST', ...init });
      const body = await res.json();
      expect(body).toEqual(spec.response);
      expect(res.status).toBe(spec.statusCode);
    });
  }
});
