/**
 * engine_newPayload and engine_forkchoiceUpdated answer SYNCING while the node's P2P full sync runs
 * (the node is more than the sync tolerance behind its best peer), as Besu answers: nothing is
 * executed and the head does not move; once the sync is over the same calls are VALID. The node's own
 * stack (`createBackend`) with its real network service; the sync's progress is set through the path
 * a sync round reports it by.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../helpers/node.js';
import { openTestChain, type TestChain } from '../methods/chain.js';
import { pragueGenesis, ZERO32 } from './driver.js';

describe('engine API while the P2P full sync runs', () => {
  const dir = tempDir('alder-engine-sync-');
  let t: TestChain;

  beforeAll(async () => {
    const file = join(dir, 'genesis.json');
    writeFileSync(file, JSON.stringify(pragueGenesis(0)));
    t = await openTestChain({ genesis: file });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    removeDir(dir);
  });

  const sync = () =>
    t.services.network?.sync as unknown as {
      updateProgress(current: bigint, highest: bigint): void;
      setSyncing(on: boolean): void;
      isSyncing: boolean;
    };

  it('answers SYNCING to newPayload and forkchoiceUpdated, then VALID once in sync', async () => {
    const genesis = (await t.call('eth_getBlockByNumber', ['0x0', false])).result as { hash: string };
    const state = { headBlockHash: genesis.hash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 };
    const attrs = {
      timestamp: '0xc',
      prevRandao: ZERO32,
      suggestedFeeRecipient: `0x${'bb'.repeat(20)}`,
      withdrawals: [],
      parentBeaconBlockRoot: ZERO32,
    };
    const fcu = (await t.call('engine_forkchoiceUpdatedV3', [state, attrs])).result as any;
    expect(fcu.payloadStatus.status).toBe('VALID');
    const got = (await t.call('engine_getPayloadV4', [fcu.payloadId])).result as any;
    const params = [got.executionPayload, [], ZERO32, got.executionRequests];

    // 100 blocks behind the best peer: a sync is under way.
    sync().updateProgress(0n, 100n);
    expect(t.services.network?.isSyncing).toBe(true);
    expect((await t.call('engine_newPayloadV4', params)).result).toEqual({
      status: 'SYNCING',
      latestValidHash: null,
      validationError: null,
    });
    expect((await t.call('engine_forkchoiceUpdatedV3', [state, attrs])).result).toEqual({
      payloadStatus: { status: 'SYNCING', latestValidHash: null, validationError: null },
      payloadId: null,
    });
    expect((await t.call('eth_getBlockByNumber', ['0x1', false])).result).toBeNull();

    sync().setSyncing(false);
    expect((await t.call('engine_newPayloadV4', params)).result).toMatchObject({
      status: 'VALID',
      latestValidHash: got.executionPayload.blockHash,
    });
    const head = got.executionPayload.blockHash;
    const fc = (await t.call('engine_forkchoiceUpdatedV3', [
      { headBlockHash: head, safeBlockHash: head, finalizedBlockHash: ZERO32 },
      null,
    ])) as any;
    expect(fc.result.payloadStatus.status).toBe('VALID');
    expect((await t.call('eth_blockNumber')).result).toBe('0x1');
  });
});
