/**
 * The rpc-compat fixtures of this project's eth/debug/net methods, replayed against the handlers on the
 * imported rpc-compat chain (blocks 1–54), with head, safe and finalized set to block 54 as hive's
 * forkchoice update does. Errors compare by code (and data), as hive does.
 */

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE, openTestChain, readIoCases, type TestChain } from './chain.js';

const METHODS = [
  'debug_getRawBlock',
  'debug_getRawHeader',
  'debug_getRawReceipts',
  'debug_getRawTransaction',
  'debug_traceBlockByHash',
  'debug_traceBlockByNumber',
  'debug_traceTransaction',
  'eth_blobBaseFee',
  'eth_blockNumber',
  'eth_chainId',
  'eth_config',
  'eth_feeHistory',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getCode',
  'eth_getLogs',
  'eth_getProof',
  'eth_getStorageAt',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_syncing',
  'net_version',
];

/**
 * hive's schema-only check, approximated: same JSON types, expected members present. One deliberate
 * difference: a struct-log trace's `returnValue` is hex without `0x`, as Besu writes it (Besu's own
 * debug/ specs require that form), where the fixtures hold go-ethereum's prefixed form.
 */
function sameShape(expected: unknown, actual: unknown, path = '$'): void {
  if (expected === null) return;
  const hex = (v: unknown) => typeof v === 'string' && v.startsWith('0x');
  expect(typeof actual, path).toBe(typeof expected);
  if (path.endsWith('.returnValue')) {
    expect(actual, path).toMatch(/^[0-9a-f]*$/);
    return;
  }
  expect(hex(actual), path).toBe(hex(expected));
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual), path).toBe(true);
    const a = actual as unknown[];
    for (let i = 0; i < Math.min(expected.length, a.length); i++)
      sameShape(expected[i], a[i], `${path}[${i}]`);
  } else if (typeof expected === 'object') {
    const a = actual as Record<string, unknown>;
    for (const [k, v] of Object.entries(expected as Record<string, unknown>)) {
      if (/^0x/.test(k) || v === null) continue;
      expect(k in a, `${path}.${k}`).toBe(true);
      sameShape(v, a[k], `${path}.${k}`);
    }
  }
}

describe('rpc-compat fixtures', () => {
  let chain: TestChain;
  beforeAll(async () => {
    const dir = join(CONFORMANCE, 'rpc-compat');
    chain = await openTestChain({ genesis: join(dir, 'genesis.json'), blocks: join(dir, 'chain.rlp') });
    const store = chain.services.chain;
    const head = store.head().hash;
    const batch = store.newBatch();
    store.setForkchoiceTags(batch, head, head);
    store.db.commit(batch);
  });
  afterAll(async () => {
    await chain?.close();
  });

  for (const c of readIoCases(METHODS)) {
    it(`${c.file} ${c.request.method}`, async () => {
      const got = await chain.call(c.request.method, c.request.params ?? []);
      if (c.response.error) {
        expect(got.error?.code, JSON.stringify(got)).toBe(c.response.error.code);
        if (c.response.error.data !== undefined)
          expect((got.error as { data?: unknown }).data).toEqual(c.response.error.data);
      } else if (c.speconly) {
        expect(got.error, JSON.stringify(got.error)).toBeUndefined();
        sameShape(c.response.result, got.result);
      } else {
        expect(got.error, JSON.stringify(got.error)).toBeUndefined();
        expect(got.result).toEqual(c.response.result);
      }
    });
  }
});
