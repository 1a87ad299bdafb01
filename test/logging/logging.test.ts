/**
 * Log control: admin_changeLogLevel against a running dev node (its mining lines stop and come back),
 * Besu's answers and errors, per-name levels covering the loggers below a name, and the two line
 * formats.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLogLine, logger, logLevelOf, setLogLevel } from '../../src/log.js';
import { type DevNode, startDevNode } from '../helpers/devNetwork.js';
import { removeDir, startNode, tempDir } from '../helpers/node.js';

async function call(url: string, method: string, params: unknown[]) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  return (await r.json()) as { result?: unknown; error?: { code: number; message: string } };
}

const produced = (out: string) => out.split('\n').filter((l) => l.includes('Produced block')).length;

async function until(check: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('admin_changeLogLevel on a running node', () => {
  let node: DevNode;
  beforeAll(async () => {
    node = await startDevNode(['--rpc-http-api=ADMIN,ETH']);
  });
  afterAll(async () => {
    await node?.close();
  });

  it('silences and restores loggers at run time, globally and by name', async () => {
    await until(() => produced(node.output()) >= 1);
    expect(await call(node.url, 'admin_changeLogLevel', ['WARN'])).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: 'Success',
    });
    await new Promise((r) => setTimeout(r, 300));
    const quiet = produced(node.output());
    const head0 = Number((await call(node.url, 'eth_blockNumber', [])).result);
    // Blocks keep coming, their lines do not.
    const deadline = Date.now() + 60_000;
    while (
      Number((await call(node.url, 'eth_blockNumber', [])).result) < head0 + 2 &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(Number((await call(node.url, 'eth_blockNumber', [])).result)).toBeGreaterThanOrEqual(head0 + 2);
    expect(produced(node.output())).toBe(quiet);
    // INFO for the miner alone brings its lines back.
    expect((await call(node.url, 'admin_changeLogLevel', ['INFO', ['miner']])).result).toBe('Success');
    await until(() => produced(node.output()) > quiet);
  });

  it("answers Besu's errors for bad levels and filters", async () => {
    for (const params of [[], ['debug'], ['FATAL'], ['VERBOSE'], [5], [null]]) {
      expect((await call(node.url, 'admin_changeLogLevel', params)).error).toEqual({
        code: -32602,
        message: 'Invalid log level params (missing or incorrect)',
      });
    }
    for (const params of [
      ['DEBUG', 'miner'],
      ['DEBUG', [1]],
      ['DEBUG', { a: 1 }],
    ]) {
      expect((await call(node.url, 'admin_changeLogLevel', params)).error).toEqual({
        code: -32602,
        message: 'Invalid log filter params',
      });
    }
    expect((await call(node.url, 'admin_changeLogLevel', ['INFO', null])).result).toBe('Success');
  });
});

describe('logger levels and formats', () => {
  it('applies a name to the loggers below it, and a global change to all', () => {
    const a = logger('plugins.alpha');
    setLogLevel('INFO');
    setLogLevel('DEBUG', ['plugins']);
    expect(logLevelOf('plugins.alpha')).toBe('DEBUG');
    expect(logLevelOf('plugins.beta')).toBe('DEBUG'); // created after the change
    expect(logLevelOf('pluginsx')).toBe('INFO');
    expect(logLevelOf('node')).toBe('INFO');
    setLogLevel('TRACE', ['plugins.alpha']);
    expect(a.level).toBe('trace');
    expect(logLevelOf('plugins.beta')).toBe('DEBUG');
    setLogLevel('OFF');
    expect(logLevelOf('plugins.alpha')).toBe('OFF');
    expect(logLevelOf()).toBe('OFF');
    setLogLevel('INFO');
  });

  it('writes readable text lines from the JSON records', () => {
    const line = formatLogLine(
      '{"level":30,"time":1700000000000,"name":"node","number":"5","msg":"Chain head"}\n',
    );
    expect(line).toBe('2023-11-14 22:13:20.000+00:00 | INFO  | node | Chain head number=5\n');
  });

  it('--logging-format=TEXT writes text lines, JSON (default off a terminal) JSON lines', async () => {
    const dirs = [tempDir(), tempDir()];
    const text = await startNode(['--network=dev', `--data-path=${dirs[0]}`, '--logging-format=TEXT']);
    const json = await startNode(['--network=dev', `--data-path=${dirs[1]}`]);
    try {
      await until(() => /\| INFO {2}\| node \| JSON-RPC HTTP service started/.test(text.output()));
      await until(() => json.output().includes('JSON-RPC HTTP service started'));
      const first = json.output().split('\n')[0] as string;
      expect(JSON.parse(first)).toMatchObject({ level: 30, name: expect.any(String) });
    } finally {
      await text.stop();
      await json.stop();
      for (const d of dirs) removeDir(d as string);
    }
  });
});
