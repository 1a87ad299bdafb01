import { getHeapSpaceStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { releaseStartupMemory } from '../../src/util/startupMemory.js';

const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');

describe('releaseStartupMemory', () => {
  it('shrinks the young generation a start-up burst grew, and keeps live objects', async () => {
    // A start-up in small: many objects that survive a few young collections, then are dropped.
    let burst: Array<{ n: number; s: string }> | undefined = [];
    for (let i = 0; i < 400_000; i++) burst.push({ n: i, s: `entry ${i}` });
    const kept = { answer: 42, list: burst.slice(0, 3) };
    burst = undefined;
    const before = newSpace()?.physical_space_size ?? 0;
    expect(before).toBeGreaterThan(4 * 2 ** 20);
    await releaseStartupMemory();
    const after = newSpace()?.physical_space_size ?? 0;
    expect(after).toBeLessThan(before / 2);
    expect(kept.answer).toBe(42);
    expect(kept.list.map((e) => e.s)).toEqual(['entry 0', 'entry 1', 'entry 2']);
  });
});
