/**
 * The conformance cases that need a consensus client: rpc-compat's `headfcu.json` sent over the engine
 * port with JWT makes block 54 head, safe and finalized (as hive does), after which the `safe` and
 * `finalized` cases pass; then rpc-compat's `testing_buildBlockV1` cases, and Besu's own
 * `testing_buildBlockV1` specs on their chain.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RPC_COMPAT_CHAIN, RPC_COMPAT_DIR, useImportedNode } from '../helpers/conformance.js';
import {
  CONFORMANCE,
  freePort,
  type NodeProcess,
  removeDir,
  runConformance,
  startNode,
  tempDir,
} from '../helpers/node.js';
import { engineCall, writeSetup } from './driver.js';

const setupDir = tempDir('alder-engine-conf-');
const { secret } = writeSetup(setupDir, {});

async function engineOptions(): Promise<{ url: string; options: string[] }> {
  const port = await freePort();
  return {
    url: `http://127.0.0.1:${port}`,
    options: [`--engine-rpc-port=${port}`, `--engine-jwt-secret=${secret}`],
  };
}

describe('rpc-compat: forkchoice from headfcu.json, then safe/finalized and testing_buildBlockV1', async () => {
  const engine = await engineOptions();
  // geth's default gas limit target (60M), which the recorded testing_buildBlockV1 answers moved toward.
  const node = useImportedNode(RPC_COMPAT_CHAIN, [
    '--rpc-http-api=ETH,NET,WEB3,DEBUG,TESTING',
    '--target-gas-limit=60000000',
    ...engine.options,
  ]);

  it('headfcu.json makes block 54 head, safe and finalized', async () => {
    const fcu = JSON.parse(readFileSync(join(RPC_COMPAT_DIR, 'headfcu.json'), 'utf8'));
    const answer = await engineCall(engine.url, fcu.method, fcu.params);
    expect(answer.result).toEqual({
      payloadStatus: {
        status: 'VALID',
        latestValidHash: fcu.params[0].headBlockHash,
        validationError: null,
      },
      payloadId: null,
    });
    const r = await runConformance(node().url, [
      join(RPC_COMPAT_DIR, 'eth_getBlockByNumber/get-safe.io'),
      join(RPC_COMPAT_DIR, 'eth_getBlockByNumber/get-finalized.io'),
      join(RPC_COMPAT_DIR, 'eth_blockNumber'),
    ]);
    expect(r.failed, r.output).toEqual([]);
  });

  it('passes the testing_buildBlockV1 cases', async () => {
    const r = await runConformance(node().url, [join(RPC_COMPAT_DIR, 'testing_buildBlockV1')]);
    expect(r.failed, r.output).toEqual([]);
    expect(r.passed.length).toBe(4);
  });
});

/**
 * Besu's specs run on a chain with Amsterdam (EIP-7928 block access lists) from genesis, which the
 * EthereumJS libraries do not implement: its genesis hash differs and its blocks do not import. The
 * two cases that need no block of that chain run on its genesis; the four that build on its genesis
 * block (05, 07, 09, 11) cannot.
 */
describe("Besu's testing_buildBlockV1 specs (those that need no Amsterdam block)", () => {
  let node: NodeProcess;
  const dir = tempDir();
  beforeAll(async () => {
    node = await startNode([
      `--genesis-file=${join(CONFORMANCE, 'besu/testing_buildBlockV1/chain-data/genesis.json')}`,
      `--data-path=${dir}`,
      '--rpc-http-api=ETH,NET,WEB3,TESTING',
      ...(await engineOptions()).options,
    ]);
  });
  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });

  it('passes 01 (unknown parent) and 03 (no attributes)', async () => {
    const folder = join(CONFORMANCE, 'besu/testing_buildBlockV1');
    const r = await runConformance(node.url, [
      join(folder, '01_parent_not_found.json'),
      join(folder, '03_missing_payload_attributes.json'),
    ]);
    expect(r.failed, r.output).toEqual([]);
    expect(r.passed.length).toBe(2);
  });
});
