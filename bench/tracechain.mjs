/**
 * The chain and node the trace suites share: a generated chain (bench/genchain.mjs: ETH transfers,
 * token transfers with logs and storage-heavy calls, blocks filled to their gas limit) cached in
 * $TMPDIR, imported into a fresh data directory, and a node serving it over HTTP on 127.0.0.1 with the
 * TRACE group enabled and no trace_filter range limit. Everything started here is stopped by PID.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateChain } from './genchain.mjs';
import { BIN, freePort, log, memory, run, start, stop, waitForRpc } from './lib.mjs';

/** `blocks` generated blocks, cached by size. */
export async function traceChain(blocks) {
  const dir = join(tmpdir(), 'alder-bench-trace-chain', String(blocks));
  const metaPath = join(dir, 'meta.json');
  if (existsSync(metaPath)) return JSON.parse(readFileSync(metaPath, 'utf8'));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`generating ${blocks} blocks → ${dir}`);
  const meta = await generateChain({ blocks, outDir: dir, log });
  const out = { genesisPath: meta.genesisPath, chainPath: meta.chainPath, txCount: meta.txCount, blocks };
  writeFileSync(metaPath, JSON.stringify(out));
  return out;
}

/** Imports `chain` and starts a node on it; `close()` stops it and removes its data. */
export async function traceNode(chain, bin = BIN) {
  const work = mkdtempSync(join(tmpdir(), 'alder-bench-trace-'));
  const dataDir = join(work, 'data');
  const base = [bin, `--genesis-file=${chain.genesisPath}`, `--data-path=${dataDir}`];
  log(`importing ${chain.blocks} blocks (${chain.txCount} transactions)`);
  await run(process.execPath, [...base, 'blocks', 'import', `--from=${chain.chainPath}`]);
  const port = await freePort();
  const node = start(process.execPath, [
    ...base,
    '--p2p-enabled=false',
    '--rpc-http-enabled',
    '--rpc-http-host=127.0.0.1',
    `--rpc-http-port=${port}`,
    '--rpc-http-api=ETH,NET,WEB3,TRACE',
    '--rpc-max-trace-filter-range=0',
  ]);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForRpc(url, node);
  } catch (err) {
    await stop(node);
    rmSync(work, { recursive: true, force: true });
    throw err;
  }
  return {
    url,
    port,
    pid: node.pid,
    async close() {
      await stop(node);
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/**
 * One JSON-RPC call whose answer is read as it arrives and never held: its size in bytes, how many
 * times `marker` occurs in it, the time it took, and the node's peak resident set during it, whole and
 * its anonymous part (the rest is the database's memory-mapped pages), sampled every 20 ms from /proc.
 */
export function measuredCall(node, method, params, marker = '"traceAddress"') {
  const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  const m0 = memory(node.pid);
  let peak = m0.rss;
  let peakAnon = m0.anon;
  const sampler = setInterval(() => {
    const m = memory(node.pid);
    if (m.rss > peak) peak = m.rss;
    if (m.anon > peakAnon) peakAnon = m.anon;
  }, 20);
  const t0 = performance.now();
  return new Promise((resolvePromise, reject) => {
    const req = request(
      {
        hostname: '127.0.0.1',
        port: node.port,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        let bytes = 0;
        let count = 0;
        let tail = '';
        let head = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          bytes += Buffer.byteLength(chunk);
          if (head.length < 200) head += chunk.slice(0, 200);
          const text = tail + chunk;
          let i = text.indexOf(marker);
          while (i !== -1) {
            count++;
            i = text.indexOf(marker, i + marker.length);
          }
          // Keep the end of this chunk (too short to hold a whole marker) for one straddling two chunks.
          tail = text.slice(-(marker.length - 1));
        });
        res.on('end', () => {
          clearInterval(sampler);
          if (head.includes('"error"')) reject(new Error(`${method}: ${head}`));
          else resolvePromise({ bytes, count, seconds: (performance.now() - t0) / 1000, peak, peakAnon });
        });
        res.on('error', (err) => {
          clearInterval(sampler);
          reject(err);
        });
      },
    );
    req.on('error', (err) => {
      clearInterval(sampler);
      reject(err);
    });
    req.end(payload);
  });
}
