/**
 * The conformance cases of the pool and filter methods, replayed with the shared runner against the
 * real CLI on freshly imported chains: rpc-compat's eth_sendRawTransaction cases and then txpool_* in
 * hive's order, and Besu's eth/ raw-transaction and filter specs that do not depend on the harness mocks.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BESU_ETH_DIR,
  HIVE_CHAIN,
  RPC_COMPAT_CHAIN,
  RPC_COMPAT_DIR,
  useImportedNode,
} from '../helpers/conformance.js';
import { runConformance } from '../helpers/node.js';

const RPC_COMPAT = [
  'eth_sendRawTransaction/send-access-list-transaction.io',
  'eth_sendRawTransaction/send-blob-tx.io',
  'eth_sendRawTransaction/send-dynamic-fee-access-list-transaction.io',
  'eth_sendRawTransaction/send-dynamic-fee-transaction.io',
  'eth_sendRawTransaction/send-legacy-transaction.io',
  'txpool_content/get-content.io',
  'txpool_contentFrom/get-content-from-address.io',
  'txpool_status/get-status.io',
];

/** Besu specs for these methods; the ones expecting filter id `0x1` or the mocked pool's acceptance are left out. */
const BESU = [
  'eth_getFilterChanges_FilterIdTooLong.json',
  'eth_getNewFilter_invalidFilter.json',
  'eth_sendRawTransaction_invalidByteValueHex.json',
  'eth_sendRawTransaction_invalidRawTransaction.json',
  'eth_uninstallFilter_FilterIdNegative.json',
  'eth_uninstallFilter_NonexistentFilter.json',
];

describe('rpc-compat eth_sendRawTransaction and txpool_* (in order, fresh node)', () => {
  const node = useImportedNode(RPC_COMPAT_CHAIN, ['--rpc-http-api=ETH,NET,WEB3,DEBUG,TXPOOL']);

  it(`passes every case (${RPC_COMPAT.length})`, async () => {
    const r = await runConformance(
      node().url,
      RPC_COMPAT.map((c) => join(RPC_COMPAT_DIR, c)),
    );
    expect(r.failed, r.output).toEqual([]);
    expect(r.passed.length).toBe(RPC_COMPAT.length);
  });
});

describe('Besu eth/ raw transaction and filter specs', () => {
  const node = useImportedNode(HIVE_CHAIN, ['--rpc-http-api=ETH,NET,WEB3,DEBUG,TRACE', '--min-gas-price=1']);

  it(`passes every case (${BESU.length})`, async () => {
    const r = await runConformance(
      node().url,
      BESU.map((c) => join(BESU_ETH_DIR, c)),
      ['--strict-key-order'],
    );
    expect(r.failed, r.output).toEqual([]);
    expect(r.passed.length).toBe(BESU.length);
  });

  it('the mocked cases, for the record', async () => {
    const mocked = [
      'eth_sendRawTransaction_transferEther.json',
      'eth_newBlockFilter.json',
      'eth_getNewFilter_addressOnly.json',
      'eth_getNewFilter_validFilterLatestBlock.json',
    ];
    const r = await runConformance(
      node().url,
      mocked.map((c) => join(BESU_ETH_DIR, c)),
    );
    // Filter ids are random, not the harness's `0x1`.
    expect(r.failed.some((f) => f.includes('eth_newBlockFilter'))).toBe(true);
    console.log(
      r.output
        .split('\n')
        .filter((l) => /^(PASS|FAIL)/.test(l))
        .join('\n'),
    );
  });
});
