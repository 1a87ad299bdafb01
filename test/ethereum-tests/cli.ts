/**
 * `npm run ethereum-tests [-- --folder=X --filter=Y --timeout=S --verbose]`: runs the BlockchainTests
 * under `BlockchainTests/X` (all of them by default), only the tests whose file or name contains Y, and
 * prints every failure with its reason, `N passed, M failed` per folder and a total line.
 *
 * Tests run in a child process that reports one line per test. A test still running after S seconds
 * (default 120; a block can run for hours, e.g. BLAKE2 with 2^32-1 rounds, and synchronous execution
 * cannot be interrupted from inside) is counted as failed ("timed out"), the child is killed and a new
 * one resumes with the next test.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  BLOCKCHAIN_TESTS_DIR,
  folderOf,
  listTestFiles,
  readTestFile,
  runTest,
  type TestResult,
} from './runner.js';

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

interface Case {
  file: string;
  name: string;
}

/** The tests selected by `--folder` and `--filter`, in a fixed order. */
function selectedCases(): Case[] {
  const folder = arg('folder');
  const filter = arg('filter');
  const out: Case[] = [];
  for (const file of listTestFiles(folder ? join(BLOCKCHAIN_TESTS_DIR, folder) : BLOCKCHAIN_TESTS_DIR)) {
    let names: string[];
    try {
      names = Object.keys(readTestFile(file));
    } catch {
      names = ['(unreadable file)'];
    }
    for (const name of names) {
      if (filter && !name.includes(filter) && !file.includes(filter)) continue;
      out.push({ file, name });
    }
  }
  return out;
}

/** Child: runs the selected tests from index `--start`, one JSON line when each starts and ends. */
async function child(): Promise<void> {
  const cases = selectedCases();
  let cachedFile = '';
  let tests: ReturnType<typeof readTestFile> = {};
  for (let i = Number(arg('start') ?? 0); i < cases.length; i++) {
    const c = cases[i] as Case;
    process.stdout.write(`${JSON.stringify({ start: i })}\n`);
    let result: TestResult;
    try {
      if (c.file !== cachedFile) {
        tests = readTestFile(c.file);
        cachedFile = c.file;
      }
      const test = tests[c.name];
      result = test
        ? await runTest(c.file, c.name, test, arg('work'))
        : { ...c, network: '', passed: false, reason: 'unreadable test file' };
    } catch (err) {
      result = { ...c, network: '', passed: false, reason: `error: ${(err as Error).message}` };
    }
    process.stdout.write(`${JSON.stringify({ index: i, result })}\n`);
  }
}

/** Runs the child from `start`; resolves with the index to resume at, or undefined when all ran. */
function runChild(
  start: number,
  timeoutMs: number,
  onResult: (r: TestResult) => void,
  cases: Case[],
  workDir: string,
) {
  return new Promise<number | undefined>((resolve) => {
    const script = fileURLToPath(import.meta.url);
    const bin = join(fileURLToPath(new URL('.', import.meta.url)), '../../node_modules/.bin/vite-node');
    const passthrough = process.argv.filter((a) => a.startsWith('--folder=') || a.startsWith('--filter='));
    const args = [script, '--child', `--start=${start}`, `--work=${workDir}`, ...passthrough];
    const proc = spawn(bin, args, {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let current: number | undefined;
    let lastDone = start - 1;
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const arm = (ms: number): void => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        proc.kill('SIGKILL');
      }, ms);
    };
    // Starting the child (transforming the sources, loading the KZG set-up) is not a test's time.
    arm(Math.max(timeoutMs, STARTUP_TIMEOUT_MS));
    createInterface({ input: proc.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const msg = JSON.parse(line) as { start?: number; index?: number; result?: TestResult };
      if (msg.start !== undefined) {
        current = msg.start;
        arm(timeoutMs);
      } else if (msg.result) {
        current = undefined;
        lastDone = msg.index ?? lastDone;
        onResult(msg.result);
      }
    });
    proc.on('exit', () => {
      if (timer) clearTimeout(timer);
      if (current === undefined) {
        // Every test ran, or the child died between tests: resume after the last one it finished.
        if (lastDone + 1 >= cases.length) resolve(undefined);
        else if (lastDone + 1 > start) resolve(lastDone + 1);
        else {
          const c = cases[start] as Case;
          onResult({ ...c, network: networkOf(c), passed: false, reason: 'the test process did not start' });
          resolve(start + 1 < cases.length ? start + 1 : undefined);
        }
        return;
      }
      const c = cases[current] as Case;
      onResult({
        ...c,
        network: networkOf(c),
        passed: false,
        reason: timedOut ? `timed out after ${timeoutMs / 1000} s` : 'the test process exited',
      });
      resolve(current + 1 < cases.length ? current + 1 : undefined);
    });
  });
}

const STARTUP_TIMEOUT_MS = 600_000;

function networkOf(c: Case): string {
  try {
    return readTestFile(c.file)[c.name]?.network ?? '';
  } catch {
    return '';
  }
}

async function parent(): Promise<void> {
  const verbose = process.argv.includes('--verbose');
  const timeoutMs = Number(arg('timeout') ?? 120) * 1000;
  const cases = selectedCases();
  const byFolder = new Map<string, { passed: number; failed: number }>();
  const started = Date.now();
  let done = 0;
  let fast = 0;
  let ownTxs = 0;
  let libraryTxs = 0;
  const fallbacks = new Map<string, number>();
  const onResult = (r: TestResult): void => {
    fast += r.interpreter?.fast ?? 0;
    ownTxs += r.interpreter?.ownTxs ?? 0;
    libraryTxs += r.interpreter?.libraryTxs ?? 0;
    for (const [reason, n] of Object.entries(r.interpreter?.fallback ?? {}))
      fallbacks.set(reason, (fallbacks.get(reason) ?? 0) + n);
    const key = folderOf(r.file);
    let f = byFolder.get(key);
    if (!f) {
      f = { passed: 0, failed: 0 };
      byFolder.set(key, f);
    }
    if (r.passed) f.passed++;
    else {
      f.failed++;
      process.stdout.write(`FAIL ${r.file} ${r.name} [${r.network}]: ${r.reason}\n`);
    }
    if (verbose && r.passed) process.stdout.write(`ok   ${r.file} ${r.name}\n`);
    if (++done % 250 === 0) process.stderr.write(`${done}/${cases.length} tests run (${r.file})\n`);
  };
  // A killed child leaves its test's data directory behind: every child works under this one.
  const workDir = mkdtempSync(join(tmpdir(), 'alder-bt-run-'));
  try {
    let next: number | undefined = 0;
    while (next !== undefined) next = await runChild(next, timeoutMs, onResult, cases, workDir);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }

  let passed = 0;
  let failed = 0;
  process.stdout.write('\n');
  for (const [key, f] of [...byFolder].sort(([a], [b]) => a.localeCompare(b))) {
    passed += f.passed;
    failed += f.failed;
    process.stdout.write(`${key}: ${f.passed} passed, ${f.failed} failed\n`);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  process.stdout.write(`total: ${passed} passed, ${failed} failed (${seconds} s)\n`);
  const left = [...fallbacks].sort(([, a], [, b]) => b - a);
  const leftCount = left.reduce((n, [, c]) => n + c, 0);
  process.stdout.write(
    `transaction messages on the call interpreter: ${fast}, on the library's EVM: ${leftCount}` +
      (left.length ? ` (${left.map(([r, n]) => `${r}: ${n}`).join(', ')})` : '') +
      '\n',
  );
  process.stdout.write(
    `block transactions on the own transaction runner: ${ownTxs}, on the library's runTx: ${libraryTxs}\n`,
  );
  process.exitCode = failed === 0 ? 0 : 1;
}

await (process.argv.includes('--child') ? child() : parent());
