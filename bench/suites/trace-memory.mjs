#!/usr/bin/env node
/**
 * Bounded memory of large answers: the node's resident set size while it answers
 *
 *   1. debug_traceBlockByNumber with memory enabled on a ~30M-gas block whose one transaction keeps
 *      `--mem-words` non-zero words of memory while it loops over cold BALANCE reads (every struct
 *      log carries the whole memory: the answer is hundreds of megabytes), and
 *   2. eth_getLogs over a range of `--log-blocks` blocks each holding one ~30M-gas transaction that
 *      emits LOG1s with 256 bytes of data (the answer is tens to hundreds of megabytes).
 *
 * The client reads each answer as it arrives and keeps only its size and a JSON well-formedness tail
 * check; the node's RSS is sampled every 20 ms from /proc. Figures: answer size, RSS before, peak RSS
 * while answering, and the time taken. A node that held an answer whole would need at least the
 * answer's size (twice, as a JS string) above its RSS before.
 *
 *   node bench/suites/trace-memory.mjs [--mem-words=64] [--log-blocks=8] [--gas=30000000]
 *
 * Alder runs the dev network with mining on, on free 127.0.0.1 ports; everything started here is
 * stopped by PID. Prints a Markdown section on stdout, progress on stderr.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { signDevTx } from '../devSigning.mjs';
import {
  BIN,
  fmt,
  freePort,
  killAll,
  log,
  memory,
  parseOptions,
  rpc,
  start,
  stop,
  table,
  waitForRpc,
} from '../lib.mjs';

const opt = parseOptions({ 'mem-words': 64, 'log-blocks': 8, gas: 30_000_000 });
const GAS = BigInt(opt.gas);
/** A prefunded dev-network key (public test key). */
const FUNDER = hexToBytes('0xc87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3');
const COINBASE = '0x00000000000000000000000000000000000c0ffe';
const GWEI = 10n ** 9n;

let nonce = 0n;
function sign(fields) {
  const tx = signDevTx(FUNDER, { maxFeePerGas: 10n * GWEI, nonce: nonce++, ...fields });
  return { raw: bytesToHex(tx.serialize()), hash: bytesToHex(tx.hash()) };
}

/** Deploys `runtime` with a minimal constructor (CODECOPY + RETURN). */
function deployCode(runtime) {
  const n = runtime.length;
  const size = n.toString(16).padStart(4, '0');
  const init = hexToBytes(`0x61${size}600e60003961${size}6000f3`);
  return bytesToHex(new Uint8Array([...init, ...runtime]));
}

// CALLDATACOPY(0, 0, CALLDATASIZE); loop { BALANCE(GAS); } while GAS > 10000
const MEMORY_LOOP = hexToBytes('0x3660006000375b5a31506127105a1160065700');
// loop { LOG1(0, 256, topic=GAS) } while GAS > 10000, memory 0..256 filled from calldata
const LOG_LOOP = hexToBytes('0x3660006000375b5a6101006000a16127105a1160065700');

async function receipt(url, hash, seconds = 300) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const r = await rpc(url, 'eth_getTransactionReceipt', [hash]);
    if (r) return r;
    if (Date.now() > deadline) throw new Error(`transaction ${hash} not mined`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** POSTs `body`, reading the answer as it comes; samples the node's RSS meanwhile. */
function measured(url, pid, body) {
  const { hostname, port } = new URL(url);
  const before = memory(pid).rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, memory(pid).rss);
  }, 20);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname, port, method: 'POST', path: '/', headers: { 'Content-Type': 'application/json' } },
      (res) => {
        let bytes = 0;
        let tail = '';
        res.on('data', (chunk) => {
          bytes += chunk.length;
          tail = (tail + chunk.toString('latin1')).slice(-64);
        });
        res.on('end', () => {
          clearInterval(timer);
          peak = Math.max(peak, memory(pid).rss);
          resolve({ bytes, before, peak, seconds: (performance.now() - t0) / 1000, tail });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'alder-trace-memory-'));
  const port = await freePort();
  const proc = start(process.execPath, [
    BIN,
    '--network=dev',
    `--data-path=${join(work, 'data')}`,
    '--p2p-enabled=false',
    '--miner-enabled',
    `--miner-coinbase=${COINBASE}`,
    '--rpc-http-enabled',
    '--rpc-http-host=127.0.0.1',
    `--rpc-http-port=${port}`,
    '--rpc-http-api=ETH,NET,WEB3,DEBUG',
  ]);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForRpc(url, proc);
    log('deploying the memory and log contracts');
    const a = sign({ gasLimit: 200_000n, data: deployCode(MEMORY_LOOP) });
    const b = sign({ gasLimit: 200_000n, data: deployCode(LOG_LOOP) });
    await rpc(url, 'eth_sendRawTransaction', [a.raw]);
    await rpc(url, 'eth_sendRawTransaction', [b.raw]);
    const memContract = (await receipt(url, a.hash)).contractAddress;
    const logContract = (await receipt(url, b.hash)).contractAddress;

    log(`a ${GAS} gas transaction over ${opt['mem-words']} words of memory`);
    const fill = `0x${'ff'.repeat(32 * opt['mem-words'])}`;
    const t = sign({ gasLimit: GAS, to: memContract, data: fill });
    await rpc(url, 'eth_sendRawTransaction', [t.raw]);
    const traced = await receipt(url, t.hash);

    log(`${opt['log-blocks']} transactions of ${GAS} gas emitting logs`);
    const data = `0x${'ab'.repeat(256)}`;
    const logTxs = [];
    for (let i = 0; i < opt['log-blocks']; i++) {
      const tx = sign({ gasLimit: GAS, to: logContract, data });
      await rpc(url, 'eth_sendRawTransaction', [tx.raw]);
      logTxs.push(tx.hash);
    }
    const receipts = [];
    for (const h of logTxs) receipts.push(await receipt(url, h));
    const from = receipts[0].blockNumber;
    const to = receipts.at(-1).blockNumber;

    log('tracing');
    const trace = await measured(
      url,
      proc.pid,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'debug_traceBlockByNumber',
        params: [traced.blockNumber, { disableMemory: false }],
      }),
    );
    log('eth_getLogs');
    const logs = await measured(
      url,
      proc.pid,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'eth_getLogs',
        params: [{ fromBlock: from, toBlock: to }],
      }),
    );
    const mb = (n) => fmt(n / (1 << 20), 1);
    const row = (name, gas, r) => [
      name,
      gas,
      mb(r.bytes),
      fmt(r.before, 1),
      fmt(r.peak, 1),
      fmt(r.peak - r.before, 1),
      fmt(r.seconds, 1),
      r.tail.endsWith(']}') ? 'yes' : `no (${r.tail.slice(-16)})`,
    ];
    process.stdout.write('## Memory while answering large traces and log queries\n\n');
    process.stdout.write(
      table(
        [
          'answer',
          'gas executed',
          'answer MiB',
          'RSS before MiB',
          'peak RSS MiB',
          'peak − before',
          'seconds',
          'complete',
        ],
        [
          row(
            `debug_traceBlockByNumber, memory on (${opt['mem-words']} words)`,
            BigInt(traced.gasUsed).toString(),
            trace,
          ),
          row(
            `eth_getLogs over ${BigInt(to) - BigInt(from) + 1n} blocks`,
            receipts.reduce((s, r) => s + BigInt(r.gasUsed), 0n).toString(),
            logs,
          ),
        ],
      ),
    );
    process.stdout.write('\n');
  } finally {
    await stop(proc);
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  killAll();
  process.exit(1);
});
