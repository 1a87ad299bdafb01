/**
 * Test harness: runs the built `bin/alder` as a child process on free 127.0.0.1 ports with a
 * temporary data directory, and stops it by PID.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/alder');
export const SHARED = resolve(ROOT, '../shared');
export const CONFORMANCE = join(SHARED, 'conformance');

const execFileP = promisify(execFile);

/** Ports this process handed out: a port is released until its node binds it, so never twice. */
const handedOut = new Set<number>();

export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((res, rej) => {
      const s = createServer();
      s.once('error', rej);
      s.listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => res(port));
      });
    });
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

export function tempDir(prefix = 'alder-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Runs the CLI to completion; resolves with its output, rejects on a non-zero exit. */
export async function runCli(
  args: string[],
  opts: { timeoutMs?: number } = {},
): Promise<{ stdout: string; stderr: string }> {
  return execFileP(process.execPath, [BIN, ...args], {
    timeout: opts.timeoutMs ?? 300_000,
    maxBuffer: 64 << 20,
  });
}

/** Runs the CLI and returns its exit code and output without throwing. */
export async function runCliStatus(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await runCli(args);
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

export interface NodeProcess {
  url: string;
  port: number;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts a node with HTTP JSON-RPC on a free port and waits until it answers. */
export async function startNode(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv } = {},
): Promise<NodeProcess> {
  const port = await freePort();
  // Nodes run without networking unless the test configures it (they would all want port 30303).
  const p2p = args.some((a) => a.startsWith('--p2p-')) ? [] : ['--p2p-enabled=false'];
  // A merge genesis opens the engine port too (8551 by default): a free one, as for JSON-RPC.
  const engine = args.some((a) => a.startsWith('--engine-rpc-port'))
    ? []
    : [`--engine-rpc-port=${await freePort()}`];
  const child = spawn(
    process.execPath,
    [
      BIN,
      ...args,
      ...p2p,
      ...engine,
      '--rpc-http-enabled',
      '--rpc-http-host=127.0.0.1',
      `--rpc-http-port=${port}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } },
  );
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`node exited with ${child.exitCode}:\n${out}`);
    try {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
      });
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`node did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    child,
    output: () => out,
    stop: () =>
      new Promise<void>((res) => {
        if (child.exitCode !== null || child.pid === undefined) return res();
        child.once('exit', () => res());
        process.kill(child.pid, 'SIGTERM');
        setTimeout(() => {
          if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
        }, 10_000).unref();
      }),
  };
}

export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await r.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Replays conformance cases with the shared runner; returns the per-case verdicts. */
export async function runConformance(
  url: string,
  paths: string[],
  extra: string[] = [],
): Promise<{ passed: string[]; failed: string[]; output: string }> {
  let stdout = '';
  try {
    const r = await execFileP(
      process.execPath,
      [join(CONFORMANCE, 'run.mjs'), '--url', url, ...extra, ...paths],
      {
        timeout: 600_000,
        maxBuffer: 64 << 20,
        cwd: CONFORMANCE,
      },
    );
    stdout = r.stdout;
  } catch (err) {
    stdout = (err as { stdout?: string }).stdout ?? '';
  }
  const passed: string[] = [];
  const failed: string[] = [];
  for (const line of stdout.split('\n')) {
    if (line.startsWith('PASS ')) passed.push(line.slice(5).trim());
    else if (line.startsWith('FAIL ')) failed.push(line.slice(5).trim());
  }
  return { passed, failed, output: stdout };
}
