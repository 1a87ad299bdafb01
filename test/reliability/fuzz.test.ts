/**
 * A bounded JSON-RPC fuzzing sample against the real node over HTTP and WebSocket (bench/fuzz.mjs;
 * `npm run fuzz -- --requests=100000` is the long run): no 5xx, every answer JSON, no hang, no crash,
 * no handler failing with -32603 on hostile parameters, slow senders closed, memory bounded.
 */
import { describe, expect, it } from 'vitest';
import { runFuzz } from '../../bench/fuzz.mjs';

describe('JSON-RPC fuzzing over HTTP and WebSocket', () => {
  it('answers 1500 hostile requests with errors, never a 5xx, a hang or a crash', async () => {
    const r = await runFuzz({ requests: 1500, seed: 11, slowSenders: 2, slowMs: 11_500 });
    expect(r.crashed).toBe(false);
    expect(r.defects).toEqual([]);
    expect(r.internalErrors).toEqual({});
    expect(Object.keys(r.status).filter((s) => Number(s) >= 500)).toEqual([]);
    expect(r.slow).toEqual({ sent: 2, closedByServer: 2 });
    expect(r.rssAfterMiB - r.rssBeforeMiB).toBeLessThan(150);
  }, 90_000);
});
