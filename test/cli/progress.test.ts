/** The progress display: a redrawn bar with rate and ETA on a terminal, a plain line every few seconds elsewhere. */
import { describe, expect, it } from 'vitest';
import { createProgress, formatDuration } from '../../src/cli/progress.js';

function output(isTTY: boolean) {
  const writes: string[] = [];
  return { isTTY, writes, write: (t: string) => writes.push(t) };
}

describe('progress', () => {
  it('draws a bar with count, rate and ETA on a terminal, at most ten times a second', () => {
    let t = 0;
    const out = output(true);
    const p = createProgress(out, { label: 'Generating log bloom cache', unit: 'blocks', now: () => t });
    t = 1000;
    p.update(250, 1000);
    t = 1050;
    p.update(260, 1000); // within 100 ms: not drawn
    t = 2000;
    p.update(500, 1000);
    p.finish();
    expect(out.writes).toEqual([
      '\r[#######-----------------------] Generating log bloom cache: 250/1000 blocks (25%), 250 blocks/s, ETA 3s\x1b[K',
      '\r[###############---------------] Generating log bloom cache: 500/1000 blocks (50%), 250 blocks/s, ETA 2s\x1b[K',
      '\r[###############---------------] Generating log bloom cache: 500/1000 blocks (50%), 250 blocks/s, ETA 2s\x1b[K\n',
    ]);
  });

  it('writes a plain line every interval off a terminal, and none for a short job', () => {
    let t = 0;
    const out = output(false);
    const p = createProgress(out, {
      label: 'Importing blocks',
      unit: 'blocks',
      now: () => t,
      lineIntervalMs: 5000,
    });
    for (let i = 1; i <= 12; i++) {
      t = i * 1000;
      p.update(i * 10, undefined, `block ${i * 10}`);
    }
    p.finish();
    expect(out.writes).toEqual([
      'Importing blocks: 50 blocks, 10.0 blocks/s, 5s elapsed (block 50)\n',
      'Importing blocks: 100 blocks, 10.0 blocks/s, 10s elapsed (block 100)\n',
      'Importing blocks: 120 blocks, 10.0 blocks/s, 12s elapsed (block 120)\n',
    ]);
    const quiet = output(false);
    const q = createProgress(quiet, { label: 'x', unit: 'blocks', now: () => 0 });
    q.update(1, 1);
    q.finish();
    expect(quiet.writes).toEqual([]);
  });

  it('formats durations', () => {
    expect(formatDuration(42)).toBe('42s');
    expect(formatDuration(125)).toBe('2m05s');
    expect(formatDuration(7300)).toBe('2h01m');
    expect(formatDuration(Number.NaN)).toBe('?');
  });
});
