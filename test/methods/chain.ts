/**
 * Test chains for the method tests: a genesis and an RLP block file imported into a temporary data
 * directory by the node's own stack (`createBackend`, as `alder` builds it), with the handlers called
 * directly.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createBlockFromRLP } from '@ethereumjs/block';
import { readBlockFile } from '../../src/chain/rlpFile.js';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/types.js';
import type { FilterManagerOptions } from '../../src/filters/manager.js';
import { createBackend } from '../../src/node.js';
import { knownErrorObject } from '../../src/rpc/errors.js';
import { allMethods } from '../../src/rpc/methods/index.js';
import type { Services } from '../../src/rpc/services.js';
import { StreamingResult } from '../../src/rpc/streaming.js';

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
  /** Configuration values over the defaults of the options table. */
  config?: Partial<Config>;
  /** Options of the poll filter manager (tests drive its clock). */
  filters?: FilterManagerOptions;
}

export async function openTestChain(opts: TestChainOptions): Promise<TestChain> {
  const dir = mkdtempSync(join(tmpdir(), 'alder-methods-'));
  const args = [`--genesis-file=${opts.genesis}`, `--data-path=${dir}`];
  if (opts.networkId !== undefined) args.push(`--network-id=${opts.networkId}`);
  const config: Config = { ...loadConfig(args, {}), ...opts.config };
  const backend = await createBackend(config, {
    skipPowValidation: true,
    clientVersion: opts.clientVersion ?? 'alder/test',
    filters: { sweepMs: 0, ...opts.filters },
  });
  const services = backend.services;
  if (opts.blocks) {
    for (const { rlp } of readBlockFile(opts.blocks)) {
      const block = createBlockFromRLP(rlp, { common: services.common, setHardfork: true });
      if (opts.upTo !== undefined && block.header.number > opts.upTo) break;
      await services.importer.importBlock(block);
    }
  }
  const byName = new Map(allMethods.map((m) => [m.name, m]));
  return {
    services,
    async call(method, params = []) {
      const m = byName.get(method);
      if (!m) return { error: { code: -32601, message: 'Method not found' } };
      try {
        const result = await m.handler(params, { services, transport: 'http' });
        // A streamed answer is gathered whole here; the transports write it as it comes.
        if (result instanceof StreamingResult) return { result: JSON.parse(await result.text()) };
        // Round-trip through JSON as the wire does (drops undefined members).
        return { result: JSON.parse(JSON.stringify(result ?? null)) };
      } catch (err) {
        // Domain errors are answered as the dispatcher answers them; anything unexpected fails the test.
        const error = knownErrorObject(err);
        if (error === undefined) throw err;
        return { error: error as { code: number; message: string } };
      }
    },
    async close() {
      await backend.close();
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
