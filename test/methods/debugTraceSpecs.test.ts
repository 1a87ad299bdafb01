/**
 * Besu's debug/ (trace-transaction, trace-call, trace-block) and debug-geth/ (callTracer,
 * prestateTracer, 4byteTracer) spec cases against the handlers, each on the chain Besu's harness uses
 * (SOURCE.md). Results must match in value and member order; `"error"` strings inside results are
 * compared after Besu's harness normalisation (out of gas, stack underflow, invalid opcode …). The
 * debug-geth files named `genesis` (skipped by Besu's harness) expect `genesis is not traceable` and
 * are run too.
 *
 * Cases left out because they depend on Besu's harness mocks or chain layout rather than on the chain:
 * none among the debug_trace* specs here (the account and storage range cases live with the state
 * inspection tests).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE, openTestChain, type TestChain } from './chain.js';

interface Spec {
  request: { method: string; params?: unknown[] };
  response: { result?: unknown; error?: { code: number; message: string } };
}

function normaliseError(text: string): string {
  const l = text.toLowerCase();
  if (l.includes('invalid input length')) return 'invalid input length';
  if (l.includes('out of gas') || l.includes('insufficient gas')) return 'out of gas';
  if (l.includes('stack underflow')) return 'stack underflow';
  if (l.includes('stack limit') || l.includes('stack overflow')) return 'stack limit reached';
  if (l.includes('invalid opcode')) return 'invalid opcode';
  if (l.includes('write protection') || l.includes('illegal state change')) return 'write protection';
  if (l.includes('invalid jump destination') || l.includes('bad jump destination'))
    return 'invalid jump destination';
  if (l.includes('precompile') && l.includes('fail')) return 'precompile failed';
  return text;
}

function expectExact(actual: unknown, expected: unknown, path = '$'): void {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    expect(actual !== null && typeof actual === 'object' && !Array.isArray(actual), path).toBe(true);
    expect(Object.keys(actual as object), `${path} member order`).toEqual(Object.keys(expected));
    for (const [k, v] of Object.entries(expected)) {
      const a = (actual as Record<string, unknown>)[k];
      if (k === 'error' && typeof v === 'string' && typeof a === 'string')
        expect(normaliseError(a), `${path}.error`).toBe(normaliseError(v));
      else expectExact(a, v, `${path}.${k}`);
    }
  } else if (Array.isArray(expected)) {
    expect(Array.isArray(actual), path).toBe(true);
    expect((actual as unknown[]).length, `${path} length`).toBe(expected.length);
    for (let i = 0; i < expected.length; i++)
      expectExact((actual as unknown[])[i], expected[i], `${path}[${i}]`);
  } else {
    expect(actual, path).toEqual(expected);
  }
}

function specsUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...specsUnder(p));
    else if (name.endsWith('.json')) out.push(p);
  }
  return out;
}

function runSpecs(files: string[], chain: () => TestChain): void {
  for (const file of files) {
    it(file.slice(CONFORMANCE.length + 1), async () => {
      const spec = JSON.parse(readFileSync(file, 'utf8')) as Spec;
      const got = await chain().call(spec.request.method, spec.request.params ?? []);
      if (spec.response.error) {
        expect(got.error).toEqual(spec.response.error);
      } else {
        expect(got.error, JSON.stringify(got.error)).toBeUndefined();
        expectExact(got.result, spec.response.result);
      }
    });
  }
}

describe('Besu debug/ trace specs on the hive chain', () => {
  let chain: TestChain;
  beforeAll(async () => {
    const dir = join(CONFORMANCE, 'besu/chain-data/hive');
    chain = await openTestChain({
      genesis: join(dir, 'testGenesis.json'),
      blocks: join(dir, 'testBlockchain.blocks'),
      networkId: 123n,
    });
  });
  afterAll(async () => chain?.close());
  runSpecs(
    [
      ...specsUnder(join(CONFORMANCE, 'besu/debug/trace-transaction')),
      ...specsUnder(join(CONFORMANCE, 'besu/debug/account-at')),
      ...specsUnder(join(CONFORMANCE, 'besu/debug/account-range')),
      ...specsUnder(join(CONFORMANCE, 'besu/debug/storage-range')),
      ...specsUnder(join(CONFORMANCE, 'besu/debug/batch-send-raw-transaction')),
    ],
    () => chain,
  );
});

describe('Besu debug/ trace specs on the trace chain', () => {
  let chain: TestChain;
  beforeAll(async () => {
    const dir = join(CONFORMANCE, 'besu/trace/chain-data');
    chain = await openTestChain({ genesis: join(dir, 'genesis.json'), blocks: join(dir, 'blocks.bin') });
  });
  afterAll(async () => chain?.close());
  runSpecs(
    [
      ...specsUnder(join(CONFORMANCE, 'besu/debug/trace-call')),
      ...specsUnder(join(CONFORMANCE, 'besu/debug/trace-block')),
    ],
    () => chain,
  );
});

describe('Besu debug-geth/ tracer specs', () => {
  let chain: TestChain;
  beforeAll(async () => {
    const dir = join(CONFORMANCE, 'besu/debug-geth/chain-data');
    chain = await openTestChain({ genesis: join(dir, 'genesis.json'), blocks: join(dir, 'blocks.bin') });
  });
  afterAll(async () => chain?.close());
  runSpecs(specsUnder(join(CONFORMANCE, 'besu/debug-geth/specs')), () => chain);
});
