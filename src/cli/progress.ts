/**
 * Progress of long jobs (block import and export, log bloom cache generation). On a terminal: one line
 * redrawn at most ten times a second with a bar (when the total is known), the count, the rate and the
 * time left. Elsewhere (a file, a pipe, a service manager's journal): one plain line every few seconds.
 */
import { formatDuration } from '../util/duration.js';

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  /** What is being done, e.g. `Importing blocks`. */
  label: string;
  /** What is counted, e.g. `blocks`. */
  unit: string;
  total?: number;
  /** Milliseconds between two plain lines (default 5 s). */
  lineIntervalMs?: number;
  now?: () => number;
}

export interface Progress {
  /** `done` items of `total` (when the total became known). */
  update(done: number, total?: number, detail?: string): void;
  /** Draws the final state and ends the line. */
  finish(): void;
}

const BAR_WIDTH = 30;

export { formatDuration };

export function formatRate(perSecond: number): string {
  if (!Number.isFinite(perSecond)) return '?';
  return perSecond >= 100 ? Math.round(perSecond).toString() : perSecond.toFixed(1);
}

export function createProgress(out: ProgressOutput, opts: ProgressOptions): Progress {
  const now = opts.now ?? Date.now;
  const tty = out.isTTY === true;
  const interval = opts.lineIntervalMs ?? 5000;
  const started = now();
  let total = opts.total;
  let done = 0;
  let detail: string | undefined;
  let lastDraw = 0;
  let drawn = false;

  const describe = (): string => {
    const elapsed = (now() - started) / 1000;
    const rate = elapsed > 0 ? done / elapsed : 0;
    let text = `${opts.label}: ${done}`;
    if (total !== undefined && total > 0) {
      const pct = Math.min(100, Math.floor((done * 100) / total));
      text += `/${total} ${opts.unit} (${pct}%)`;
    } else {
      text += ` ${opts.unit}`;
    }
    text += `, ${formatRate(rate)} ${opts.unit}/s`;
    if (total !== undefined && total > 0 && rate > 0 && done < total) {
      text += `, ETA ${formatDuration((total - done) / rate)}`;
    } else if (total === undefined || done >= total) {
      text += `, ${formatDuration(elapsed)} elapsed`;
    }
    if (detail) text += ` (${detail})`;
    return text;
  };

  const bar = (): string => {
    if (total === undefined || total <= 0) return '';
    const filled = Math.min(BAR_WIDTH, Math.floor((done * BAR_WIDTH) / total));
    return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] `;
  };

  const draw = (final: boolean): void => {
    const t = now();
    if (tty) {
      if (!final && t - lastDraw < 100) return;
      lastDraw = t;
      drawn = true;
      let line = `${bar()}${describe()}`;
      if (out.columns && line.length >= out.columns) line = line.slice(0, out.columns - 1);
      out.write(`\r${line}\x1b[K${final ? '\n' : ''}`);
      return;
    }
    if (!final && t - (lastDraw || started) < interval) return;
    lastDraw = t;
    drawn = true;
    out.write(`${describe()}\n`);
  };

  return {
    update(n, t, d) {
      done = n;
      if (t !== undefined) total = t;
      detail = d;
      draw(false);
    },
    finish() {
      // A job shorter than one interval prints no plain line at all.
      if (tty || drawn) draw(true);
    },
  };
}
