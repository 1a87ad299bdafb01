/**
 * The conformance cases of the pool and filter methods, replayed with the shared runner against the
 * real CLI on freshly imported chains: rpc-compat's eth_sendRawTransaction cases and then txpool_* in
 * hive's order, and Besu's eth/ raw-transaction and filter specs that do not depend on the harness mocks.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONFORMANCE,
  type NodeProcess,
  removeDir,
  runCli,
  runConformance,
  startNode,
  tempDir,
} from '../helpers/node.js';

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
  let dir: string;
  let node: NodeProcess;
  const rc = join(CONFORMANCE, 'rpc-compat');
  beforeAll(async () => {
    dir = tempDir();
    const genesis = `--genesis-file=${join(rc, 'genesis.json')}`;
    await runCli([
      genesis,
      `--data-path=${dir}`,
      'blocks',
      'import',
      `--from=${join(rc, 'chain.rlp')}`,
      '--skip-pow-validation-enabled',
    ]);
    node = await startNode([genesis, `--data-path=${dir}`, '--rpc-http-api=ETH,NET,WEB3,DEBUG,TXPOOL']);
  });
  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });

  it(`passes every case (${RPC_COMPAT.length})`, async () => {
    const r = await runConformance(
      node.url,
      RPC_COMPAT.map((c) => join(rc, c)),
    );
    expect(r.failed, r.output).toEqual([]);
    expect(r.passed.length).toBe(RPC_COMPAT.length);
  });
});

describe('Besu eth/ raw transaction and filter specs', () => {
  let dir: string;
  let node: NodeProcess;
  const besu = join(CONFORMANCE, 'besu');
  beforeAll(async () => {
    dir = tempDir();
    const genesis = `--genesis-file=${join(besu, 'chain-data/hive/testGenesis.json')}`;
    await runCli([
      genesis,
      `--data-path=${dir}`,
      '--network-id=123',
      'blocks',
      'import',
      `--from=${join(besu, 'chain-data/hive/testBlockchain.blocks')}`,
      '--skip-pow-validation-enabled',
    ]);
    node = await startNode([
      genesis,
      `--data-path=${dir}`,
      '--network-id=123',
      '--rpc-http-api=ETH,NET,WEB3,DEBUG,TRACE',
      '--min-gas-price=1',
    ]);
  });
  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });

  it(`passes every case (${BESU.length})`, async () => {
    const r = await runConformance(
      node.url,
      BESU.map((c) => join(besu, 'eth', c)),
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
      node.url,
      mocked.map((c) => join(besu, 'eth', c)),
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
