/**
 * The engine port on a Shanghai chain (engine V1/V2), started without --engine-jwt-secret: the node
 * writes a random secret to <data-path>/jwt.hex and removes it when it stops. V2 payloads round trip;
 * the version checks of Besu answer (-38005 outside a version's forks, -32602 with Besu's sentence for
 * a field the version forbids); payload bodies, the transition configuration and the Host allowlist.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POS_DEV_GENESIS } from '../../src/config/networks/posDev.js';
import { freePort, type NodeProcess, removeDir, rpc, startNode, tempDir } from '../helpers/node.js';
import { engineCall, jwt, writeSetup, ZERO32 } from './driver.js';

describe('engine V1/V2 on a Shanghai chain, with a generated JWT secret', () => {
  const dir = tempDir('alder-engine-v2-');
  let node: NodeProcess;
  let url: string;
  let secret: string;

  beforeAll(async () => {
    const {
      cancunTime: _c,
      pragueTime: _p,
      osakaTime: _o,
      blobSchedule: _b,
      ...config
    } = POS_DEV_GENESIS.config;
    const { genesis } = writeSetup(dir, { ...POS_DEV_GENESIS, config });
    const port = await freePort();
    node = await startNode([
      `--genesis-file=${genesis}`,
      `--data-path=${join(dir, 'data')}`,
      `--engine-rpc-port=${port}`,
    ]);
    url = `http://127.0.0.1:${port}`;
    secret = `0x${readFileSync(join(dir, 'data/jwt.hex'), 'utf8').trim()}`;
  }, 60_000);

  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });

  const call = async (method: string, params: unknown[]) => {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await jwt(secret)}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await r.json()) as { result?: any; error?: { code: number; message: string; data?: string } };
  };

  it('builds, imports and follows V2 payloads; checks each version', async () => {
    expect(secret).toMatch(/^0x[0-9a-f]{64}$/);
    // The test's own secret is not this node's.
    expect(await engineCall(url, 'eth_chainId', []).catch((e: Error) => e.message)).toMatch(/HTTP 401/);
    const genesis = await rpc<{ hash: string; timestamp: string }>(node.url, 'eth_getBlockByNumber', [
      '0x0',
      false,
    ]);
    const head = genesis.hash;
    const attrs = {
      timestamp: '0x10',
      prevRandao: `0x${'aa'.repeat(32)}`,
      suggestedFeeRecipient: `0x${'bb'.repeat(20)}`,
      withdrawals: [{ index: '0x0', validatorIndex: '0x0', address: `0x${'cc'.repeat(20)}`, amount: '0x1' }],
    };
    const state = { headBlockHash: head, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 };
    // V2 refuses a beacon root; V3 refuses a chain without Cancun.
    expect(
      (await call('engine_forkchoiceUpdatedV2', [state, { ...attrs, parentBeaconBlockRoot: ZERO32 }])).error
        ?.code,
    ).toBe(-38003);
    expect(
      (await call('engine_forkchoiceUpdatedV3', [state, { ...attrs, parentBeaconBlockRoot: ZERO32 }])).error,
    ).toEqual({
      code: -38005,
      message: 'Unsupported fork',
      data: 'Configuration error, no schedule for CANCUN fork set',
    });
    // Shanghai requires withdrawals.
    const { withdrawals: _w, ...noWithdrawals } = attrs;
    expect((await call('engine_forkchoiceUpdatedV2', [state, noWithdrawals])).error).toEqual({
      code: -32602,
      message: 'Invalid withdrawals',
    });

    const fcu = (await call('engine_forkchoiceUpdatedV2', [state, attrs])).result;
    expect(fcu.payloadStatus).toEqual({ status: 'VALID', latestValidHash: head, validationError: null });
    expect(fcu.payloadId).toMatch(/^0x[0-9a-f]{16}$/);
    expect((await call('engine_getPayloadV3', [fcu.payloadId])).error?.code).toBe(-38005);
    const got = (await call('engine_getPayloadV2', [fcu.payloadId])).result;
    expect(Object.keys(got)).toEqual(['executionPayload', 'blockValue']);
    const p = got.executionPayload;
    expect(p).toMatchObject({
      parentHash: head,
      blockNumber: '0x1',
      timestamp: '0x10',
      withdrawals: attrs.withdrawals,
    });
    expect((await call('engine_newPayloadV2', [{ ...p, blobGasUsed: '0x0' }])).error).toEqual({
      code: -32602,
      message: 'Invalid blob gas used param (missing or invalid)',
      data: 'Unexpected blob gas used field present',
    });
    expect((await call('engine_newPayloadV2', [{ ...p, blockHash: ZERO32 }])).result.status).toBe('INVALID');
    expect((await call('engine_newPayloadV1', [{ ...p, blockHash: ZERO32 }])).result.status).toBe(
      'INVALID_BLOCK_HASH',
    );
    expect((await call('engine_newPayloadV2', [p])).result).toEqual({
      status: 'VALID',
      latestValidHash: p.blockHash,
      validationError: null,
    });
    const next = { headBlockHash: p.blockHash, safeBlockHash: p.blockHash, finalizedBlockHash: head };
    expect((await call('engine_forkchoiceUpdatedV2', [next, null])).result.payloadStatus.status).toBe(
      'VALID',
    );
    expect(await rpc(node.url, 'eth_blockNumber')).toBe('0x1');
    expect(await rpc(node.url, 'eth_getBalance', [`0x${'cc'.repeat(20)}`, 'latest'])).toBe('0x3b9aca00');
    // A finalized block that is not an ancestor of the head: -38002.
    const bad = { headBlockHash: head, safeBlockHash: head, finalizedBlockHash: p.blockHash };
    expect((await call('engine_forkchoiceUpdatedV2', [bad, null])).error).toEqual({
      code: -38002,
      message: 'Invalid forkchoice state',
    });

    const bodies = (await call('engine_getPayloadBodiesByHashV1', [[p.blockHash, ZERO32]])).result;
    expect(bodies).toEqual([{ transactions: [], withdrawals: attrs.withdrawals }, null]);
    expect((await call('engine_getPayloadBodiesByRangeV1', ['0x1', '0x5'])).result).toEqual([
      { transactions: [], withdrawals: attrs.withdrawals },
    ]);
    expect((await call('engine_getPayloadBodiesByRangeV1', ['0x1', '0x401'])).error?.code).toBe(-38004);
    const tc = { terminalTotalDifficulty: '0x0', terminalBlockHash: ZERO32, terminalBlockNumber: '0x0' };
    expect((await call('engine_exchangeTransitionConfigurationV1', [tc])).result).toEqual(tc);
    expect(
      (
        await call('engine_getClientVersionV1', [
          { code: 'LS', name: 'Lodestar', version: 'v1', commit: '0x00000000' },
        ])
      ).result[0],
    ).toMatchObject({ code: 'AL', name: 'alder' });
  });

  it('checks the Host header against --engine-host-allowlist', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        url,
        { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(403);
  });

  it('removes the generated secret when the node stops', async () => {
    await node.stop();
    expect(existsSync(join(dir, 'data/jwt.hex'))).toBe(false);
  });
});
