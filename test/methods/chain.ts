/**
 * Test chains for the method tests: a genesis and an RLP block file imported into a temporary data
 * directory, with a Services object over it and the handlers called directly.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createBlockFromRLP } from '@ethereumjs/block';
import { ChainStore } from '../../src/chain/chainStore.js';
import { initGenesis } from '../../src/chain/genesis.js';
import { BlockImporter } from '../../src/chain/importer.js';
import { readBlockFile } from '../../src/chain/rlpFile.js';
import {
  createCommon,
  type GenesisSpec,
  genesisHeaderFields,
  loadGenesisFile,
} from '../../src/config/genesis.js';
import type { Config } from '../../src/config/types.js';
import { customCrypto } from '../../src/crypto/index.js';
import { Database } from '../../src/db/database.js';
import { RpcError, toErrorObject } from '../../src/rpc/errors.js';
import { allMethods } from '../../src/rpc/methods/index.js';
import type { Services } from '../../src/rpc/services.js';
import { TrieStore } from '../../src/state/trieStore.js';
import { WorldState } from '../../src/state/worldState.js';

export const CONFORMANCE = resolve(import.meta.dirname, '../../../shared/conformance');

export interface TestChain {
  services: Services;
  /** Calls a method as the dispatcher would and returns the response object (without jsonrpc/id). */
  call(
    method: string,
    params?: unknown[],
  ): Promise<{ result?: unknown; error?: { code: number; message: string } }>;
  close(): Promise<void>;
}

export interface TestChainOptions {
  genesis: string;
  blocks?: string;
  /** Stop after this block number. */
  upTo?: bigint;
  networkId?: bigint;
  clientVersion?: string;
  config?: Partial<Config>;
}

export async function openTestChain(opts: TestChainOptions): Promise<TestChain> {
  const spec: GenesisSpec = loadGenesisFile(opts.genesis);
  const common = createCommon(spec, { customCrypto: customCrypto() });
  const dir = mkdtempSync(join(tmpdir(), 'alder-methods-'));
  const db = Database.open(join(dir, 'database'));
  const world = new WorldState(new TrieStore(db), common);
  const chain = new ChainStore(db, common);
  await initGenesis(chain, world, { header: genesisHeaderFields(spec), alloc: spec.alloc });
  const importer = new BlockImporter(chain, world, { skipPowValidation: true });
  if (opts.blocks) {
    for (const { rlp } of readBlockFile(opts.blocks)) {
      const block = createBlockFromRLP(rlp, { common, setHardfork: true });
      if (opts.upTo !== undefined && block.header.number > opts.upTo) break;
      await importer.importBlock(block);
    }
  }
  const config = {
    genesis: spec,
    networkId: opts.networkId ?? spec.config.chainId,
    rpcMaxLogsRange: 5000,
    minerCoinbase: undefined,
    ...opts.config,
  } as Config;
  const services: Services = {
    config,
    common,
    chain,
    world,
    importer,
    clientVersion: opts.clientVersion ?? 'alder/test',
    networkId: config.networkId,
    peerCount: () => 0,
  };
  const byName = new Map(allMethods.map((m) => [m.name, m]));
  return {
    services,
    async call(method, params = []) {
      const m = byName.get(method);
      if (!m) return { error: { code: -32601, message: 'Method not found' } };
      try {
        const result = await m.handler(params, { services, transport: 'http' });
        // Round-trip through JSON as the wire does (drops undefined members).
        return { result: JSON.parse(JSON.stringify(result ?? null)) };
      } catch (err) {
        // Domain errors are answered as the dispatcher answers them; anything unexpected fails the test.
        const error = toErrorObject(err, method);
        if (!(err instanceof RpcError) && error.code === -32603) throw err;
        return { error: error as { code: number; message: string } };
      }
    },
    async close() {
      await importer.idle?.();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface IoExchange {
  file: string;
  request: { method: string; params?: unknown[]; id: unknown };
  response: { result?: unknown; error?: { code: number; message: string; data?: unknown } };
  speconly: boolean;
}

/** The `>>`/`<<` pairs of every .io file in the given rpc-compat method folders. */
export function readIoCases(methods: string[]): IoExchange[] {
  const out: IoExchange[] = [];
  for (const method of methods) {
    const dir = join(CONFORMANCE, 'rpc-compat', method);
    for (const name of readdirSync(dir)
      .filter((f) => f.endsWith('.io'))
      .sort()) {
      const text = readFileSync(join(dir, name), 'utf8');
      const speconly = text.includes('speconly');
      let request: IoExchange['request'] | undefined;
      for (const raw of text.split('\n')) {
        const line = raw.trim();
        if (line.startsWith('>> ')) request = JSON.parse(line.slice(3));
        else if (line.startsWith('<< ') && request) {
          out.push({ file: `${method}/${name}`, request, response: JSON.parse(line.slice(3)), speconly });
          request = undefined;
        }
      }
    }
  }
  return out;
}

export interface BesuCase {
  file: string;
  request: { method: string; params?: unknown[]; id: unknown };
  response: { result?: unknown; error?: { code: number; message: string } };
}

export function readBesuCases(filter: (name: string) => boolean, dir = 'besu/eth'): BesuCase[] {
  const base = join(CONFORMANCE, dir);
  return readdirSync(base)
    .filter((f) => f.endsWith('.json') && filter(f))
    .sort()
    .map((f) => {
      const spec = JSON.parse(readFileSync(join(base, f), 'utf8'));
      return { file: f, request: spec.request, response: spec.response };
    });
}
