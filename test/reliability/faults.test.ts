/**
 * The bounded fault-injection run: five SIGKILLs of a sealing node with transfers flowing. After each
 * restart every reported head, every returned receipt and the balances must agree (see bench/faults.mjs;
 * `npm run faults -- --kills=100` is the long run, with kills during `blocks import` as well).
 */
import { describe, expect, it } from 'vitest';
import { runFaults } from '../../bench/faults.mjs';

describe('SIGKILL at random moments while sealing with transactions flowing', () => {
  it('loses no reported block and no returned receipt over 5 kills', async () => {
    const r = await runFaults({ kills: 5, importKills: 0, seed: 7, minRunMs: 300, maxRunMs: 1500 });
    expect(r.mining.kills).toBe(5);
    expect(r.mining.blocksLost).toBe(0);
    expect(r.mining.receiptsLost).toBe(0);
    expect(r.mining.balanceErrors).toBe(0);
    expect(r.mining.survived).toBe(5);
  }, 120_000);
});
