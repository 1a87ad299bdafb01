/**
 * The terminal proof-of-work block checks of engine_forkchoiceUpdatedV1 on a chain whose terminal
 * total difficulty lies ahead of its proof-of-work genesis: a head that is a proof-of-work block
 * short of the terminal total difficulty is not a valid terminal block and is answered INVALID with
 * the zero hash as latest valid hash, as Besu answers; the head does not move.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POS_DEV_GENESIS } from '../../src/config/networks/posDev.js';
import { freePort, type NodeProcess, removeDir, rpc, startNode, tempDir } from '../helpers/node.js';
import { engineCall, writeSetup, ZERO32 } from './driver.js';

describe('engine_forkchoiceUpdatedV1 before the terminal block', () => {
  const dir = tempDir('alder-engine-ttd-');
  let node: NodeProcess;
  let url: string;

  beforeAll(async () => {
    const {
      shanghaiTime: _s,
      cancunTime: _c,
      pragueTime: _p,
      osakaTime: _o,
      blobSchedule: _b,
      ...config
    } = POS_DEV_GENESIS.config;
    // Genesis difficulty 1, terminal total difficulty 0x10: genesis is a proof-of-work block short of it.
    const genesis = {
      ...POS_DEV_GENESIS,
      difficulty: '0x1',
      config: { ...config, terminalTotalDifficulty: 16 },
    };
    const setup = writeSetup(dir, genesis);
    const port = await freePort();
    node = await startNode([
      `--genesis-file=${setup.genesis}`,
      `--data-path=${join(dir, 'data')}`,
      `--engine-rpc-port=${port}`,
      `--engine-jwt-secret=${setup.secret}`,
    ]);
    url = `http://127.0.0.1:${port}`;
  }, 60_000);

  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });

  it('answers INVALID with latestValidHash 0x00…00 for a head that is not a valid terminal block', async () => {
    const g = await rpc<{ hash: string; difficulty: string }>(node.url, 'eth_getBlockByNumber', [
      '0x0',
      false,
    ]);
    expect(g.difficulty).toBe('0x1');
    const r = await engineCall(url, 'engine_forkchoiceUpdatedV1', [
      { headBlockHash: g.hash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
      { timestamp: '0x10', prevRandao: ZERO32, suggestedFeeRecipient: `0x${'bb'.repeat(20)}` },
    ]);
    expect(r.result).toEqual({
      payloadStatus: {
        status: 'INVALID',
        latestValidHash: ZERO32,
        validationError: `${g.hash} did not descend from terminal block`,
      },
      payloadId: null,
    });
    expect(await rpc(node.url, 'eth_blockNumber')).toBe('0x0');
  });
});
