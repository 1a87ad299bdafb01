#!/usr/bin/env node
/**
 * Throughput of the TRACE group on a generated chain (ETH transfers, token transfers, storage-heavy
 * calls): trace_block over consecutive blocks and trace_transaction over a sample of transactions,
 * one request at a time, each run timed; the medians of `runs` runs are printed (transactions traced
 * per second, and per request latency for trace_transaction).
 *
 *   node bench/suites/parity-trace-throughput.mjs [--trace-blocks=400] [--trace-runs=3] [--trace-sample-blocks=50]
 *                                          [--bin=PATH to another build's bin/alder]
 */
import { resolve } from 'node:path';
import { BIN, fmt, hex, killAll, log, median, parseOptions, rpc, table } from '../lib.mjs';
import { traceChain, traceNode } from '../tracechain.mjs';

async function main() {
  const opt = parseOptions({ 'trace-blocks': 400, 'trace-runs': 3, 'trace-sample-blocks': 50, bin: BIN });
  const chain = await traceChain(Number(opt['trace-blocks']));
  const node = await traceNode(chain, resolve(String(opt.bin)));
  try {
    const sample = Math.min(Number(opt['trace-sample-blocks']), chain.blocks);
    // The sample: blocks spread over the chain, and their transactions.
    const numbers = [];
    for (let i = 0; i < sample; i++) numbers.push(1 + Math.floor((i * chain.blocks) / sample));
    const txs = [];
    for (const n of numbers) {
      const b = await rpc(node.url, 'eth_getBlockByNumber', [hex(n), false]);
      txs.push(...b.transactions);
    }
    log(`${numbers.length} blocks, ${txs.length} transactions`);
    await rpc(node.url, 'trace_block', [hex(numbers[0])]);

    const blockRates = [];
    const txRates = [];
    const latencies = [];
    for (let run = 0; run < Number(opt['trace-runs']); run++) {
      let t0 = performance.now();
      let traces = 0;
      for (const n of numbers) traces += (await rpc(node.url, 'trace_block', [hex(n)])).length;
      blockRates.push(txs.length / ((performance.now() - t0) / 1000));
      const each = [];
      t0 = performance.now();
      for (const h of txs) {
        const t = performance.now();
        await rpc(node.url, 'trace_transaction', [h]);
        each.push(performance.now() - t);
      }
      txRates.push(txs.length / ((performance.now() - t0) / 1000));
      latencies.push(median(each));
      log(
        `run ${run + 1}: trace_block ${fmt(blockRates.at(-1))} tx/s (${traces} traces), trace_transaction ${fmt(txRates.at(-1))} tx/s`,
      );
    }
    process.stdout.write(
      `## Trace throughput (${numbers.length} blocks, ${txs.length} transactions of a generated chain; median of ${blockRates.length} runs)\n\n${table(
        ['method', 'transactions traced / s', 'median ms per request'],
        [
          [
            'trace_block',
            fmt(median(blockRates)),
            fmt((txs.length / numbers.length / median(blockRates)) * 1000, 1),
          ],
          ['trace_transaction', fmt(median(txRates)), fmt(median(latencies), 1)],
        ],
      )}\n`,
    );
  } finally {
    await node.close();
  }
}

main().catch((err) => {
  process.stderr.write(`parity-trace-throughput failed: ${err.stack ?? err}\n`);
  killAll();
  process.exit(1);
});
