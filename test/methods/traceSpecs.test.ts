/**
 * Besu's trace/ JSON-RPC spec cases (the TRACE group) against the handlers on Besu's trace chain
 * (`trace/chain-data`, blocks 1–33, imported once for the file), compared as Besu's harness compares
 * them: results in value and member order, errors in code and message; for trace_callMany the gas
 * members the harness strips are left out of the comparison, and `error` strings inside results are
 * compared after the harness's normalisation.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE, openTestChain, type TestChain } from './chain.js';

const TRACE_DIR = join(CONFORMANCE, 'besu/trace');

interface Exchange {
  request: { method: string; params?: unknown[] };
  response: { result?: unknown; error?: { code: number; message: string } };
}

interface Spec {
  file: string;
  exchanges: Exchange[];
}

function specFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...specFiles(path));
    else if (name.endsWith('.json')) out.push(path);
  }
  return out;
}

/*
 * None of these 206 cases depends on the harness's mocks (the pool, the synchronizer, the filter ids):
 * the trace methods read only the chain, so every case runs. The 603 held-out cases are not here.
 */

function loadSpecs(): Spec[] {
  const specsDir = join(TRACE_DIR, 'specs');
  return specFiles(specsDir)
    .filter((f) => !f.includes('genesis'))
    .map((f) => {
      const spec = JSON.parse(readFileSync(f, 'utf8'));
      const requests = Array.isArray(spec.request) ? spec.request : [spec.request];
      const responses = Array.isArray(spec.response) ? spec.response : [spec.response];
      return {
        file: f.slice(specsDir.length + 1),
        exchanges: requests.map((request: Exchange['request'], i: number) => ({
          request,
          response: responses[i],
        })),
      };
    });
}

/** The harness's normalisation of halt descriptions inside results. */
function normaliseErrors(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normaliseErrors);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = k === 'error' && typeof v === 'string' ? normaliseError(v) : normaliseErrors(v);
  return out;
}

function normaliseError(e: string): string {
  const l = e.toLowerCase();
  if (l.includes('out of gas')) return 'Out of gas';
  if (l.includes('stack underflow')) return 'Stack underflow';
  if (l.includes('invalid opcode') || l.includes('bad instruction')) return 'Bad instruction';
  if (l.includes('jump')) return 'Bad jump destination';
  return e;
}

/** trace_callMany: the harness drops gas figures (chosen by the file name) before comparing. */
function withoutGas(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutGas);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'gas' || k === 'gasUsed' || k === 'cost' || k === 'used') continue;
    out[k] = withoutGas(v);
  }
  return out;
}

function expectExact(actual: unknown, expected: unknown, path = '$'): void {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    expect(actual !== null && typeof actual === 'object' && !Array.isArray(actual), path).toBe(true);
    expect(Object.keys(actual as object), `${path} member order`).toEqual(Object.keys(expected));
    for (const [k, v] of Object.entries(expected))
      expectExact((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
  } else if (Array.isArray(expected)) {
    expect(Array.isArray(actual), path).toBe(true);
    expect((actual as unknown[]).length, `${path} length`).toBe(expected.length);
    for (let i = 0; i < expected.length; i++)
      expectExact((actual as unknown[])[i], expected[i], `${path}[${i}]`);
  } else {
    expect(actual, path).toEqual(expected);
  }
}

describe('Besu trace/ spec cases', () => {
  let chain: TestChain;
  beforeAll(async () => {
    chain = await openTestChain({
      genesis: join(TRACE_DIR, 'chain-data/genesis.json'),
      blocks: join(TRACE_DIR, 'chain-data/blocks.bin'),
      config: { minerCoinbase: '0x0000000000000000000000000000000000000000', rpcGasCap: 0n },
    });
  }, 120_000);
  afterAll(async () => {
    await chain?.close();
  });

  it('trace_transaction of each transaction of a block, in any order, matches its traces in trace_block', async () => {
    let multi = 0;
    for (let n = 1; n <= 64 && multi < 3; n++) {
      const got = await chain.call('trace_block', [`0x${n.toString(16)}`]);
      const traces = (got.result ?? []) as { transactionHash?: string | null }[];
      const hashes = [...new Set(traces.map((t) => t.transactionHash).filter((h) => typeof h === 'string'))];
      if (hashes.length < 2) continue;
      multi++;
      for (const hash of [...hashes].reverse().concat(hashes)) {
        const alone = await chain.call('trace_transaction', [hash]);
        expect(alone.error).toBeUndefined();
        expect(alone.result).toEqual(traces.filter((t) => t.transactionHash === hash));
      }
    }
    expect(multi).toBeGreaterThan(0);
  });

  for (const spec of loadSpecs()) {
    it(spec.file, async () => {
      for (const { request, response } of spec.exchanges) {
        const got = await chain.call(request.method, request.params ?? []);
        if (response.error) {
          expect(got.error, JSON.stringify(got.result)?.slice(0, 300)).toEqual(response.error);
          continue;
        }
        expect(got.error, JSON.stringify(got.error)).toBeUndefined();
        let actual = normaliseErrors(got.result);
        let expected = normaliseErrors(response.result);
        if (request.method === 'trace_callMany') {
          actual = withoutGas(actual);
          expected = withoutGas(expected);
        }
        expectExact(actual, expected);
      }
    });
  }
});
