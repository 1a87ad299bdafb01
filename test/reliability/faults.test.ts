/**
 * The bounded fault-injection runs (see bench/faults.mjs; `npm run faults -- --kills=100` is the long
 * run, with every scenario): SIGKILLs of real `bin/alder` processes at random moments —
 * - five while one node seals Clique blocks with transfers flowing;
 * - two while a node full-syncs a generated post-merge (Shanghai) chain over devp2p from another node;
 * - two while a single QBFT validator seals with transfers flowing, and two of one validator of a
 *   four-validator QBFT network (the others keep finalising, the killed one catches up);
 * - three while the harness drives a post-merge node over the engine API (one between newPayload and
 *   forkchoiceUpdated).
 * After each restart every reported head, every returned receipt and the balances must agree.
 */
import { describe, expect, it } from 'vitest';
import { runFaults } from '../../bench/faults.mjs';

function ran<T>(scenario: T | undefined): T {
  if (scenario === undefined) throw new Error('the scenario did not run');
  return scenario;
}

describe('SIGKILL at random moments', () => {
  it('while sealing with transactions flowing: no reported block and no returned receipt lost over 5 kills', async () => {
    const r = await runFaults({ kills: 5, importKills: 0, seed: 7, minRunMs: 300, maxRunMs: 1500 });
    expect(ran(r.mining).kills).toBe(5);
    expect(ran(r.mining).blocksLost).toBe(0);
    expect(ran(r.mining).receiptsLost).toBe(0);
    expect(ran(r.mining).balanceErrors).toBe(0);
    expect(ran(r.mining).survived).toBe(5);
  }, 120_000);

  it('while syncing from a peer: every reported head and receipt survives, and the sync reaches the source head and state root', async () => {
    const r = await runFaults({
      scenarios: ['sync'],
      kills: 2,
      seed: 5,
      minRunMs: 200,
      maxRunMs: 800,
      syncBlocks: 150,
      syncFork: 'shanghai',
    });
    expect(ran(r.sync).kills).toBe(2);
    expect(ran(r.sync).blocksLost).toBe(0);
    expect(ran(r.sync).receiptsLost).toBe(0);
    expect(ran(r.sync).survived).toBe(2);
    expect(ran(r.sync).synced).toBe(ran(r.sync).rounds);
    expect(ran(r.sync).finalMismatches).toBe(0);
  }, 180_000);

  it('while sealing QBFT rounds: a single validator and one validator of four', async () => {
    const r = await runFaults({
      scenarios: ['bft', 'bft-net'],
      kills: 2,
      seed: 9,
      minRunMs: 300,
      maxRunMs: 1500,
    });
    expect(ran(r.bft).kills).toBe(2);
    expect(ran(r.bft).survived).toBe(2);
    expect(ran(r.bft).blocksLost + ran(r.bft).receiptsLost + ran(r.bft).balanceErrors).toBe(0);
    expect(ran(r.bftNet).kills).toBe(2);
    expect(ran(r.bftNet).survived).toBe(2);
    expect(ran(r.bftNet).stalls).toBe(0);
    expect(ran(r.bftNet).forks).toBe(0);
    expect(ran(r.bftNet).blocksLost + ran(r.bftNet).receiptsLost + ran(r.bftNet).balanceErrors).toBe(0);
  }, 180_000);

  it('while following engine forkchoice: fcU-made heads survive, newPayload-only blocks are not canonical', async () => {
    const r = await runFaults({ scenarios: ['engine'], kills: 3, seed: 21, minRunMs: 300, maxRunMs: 1200 });
    expect(ran(r.engine).kills).toBe(3);
    expect(ran(r.engine).phases['after-newPayload']).toBeGreaterThanOrEqual(2);
    expect(ran(r.engine).survived).toBe(3);
    expect(ran(r.engine).blocksLost + ran(r.engine).receiptsLost + ran(r.engine).balanceErrors).toBe(0);
    expect(ran(r.engine).unconfirmedCanonical).toBe(0);
    expect(ran(r.engine).badHeads).toBe(0);
    expect(ran(r.engine).forkchoiceLost).toBe(0);
    expect(ran(r.engine).resumeErrors).toBe(0);
    expect(ran(r.engine).builtOn).toBe(true);
  }, 150_000);
});
