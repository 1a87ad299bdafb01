#!/usr/bin/env node
/**
 * Memory of trace_filter over wide ranges: the node's peak resident set (sampled every 20 ms while
 * the answer is read) against the size of the answer, for ranges of growing width over a generated
 * chain. The answer is streamed and read as it comes (never held by the client either); a node that
 * held whole answers would grow with the answer. The anonymous part of the resident set is printed
 * beside the whole: the rest is the database's memory-mapped pages, which grow with the state read
 * (the blocks replayed), not with the answer, and which the kernel reclaims at will.
 *
 *   node bench/suites/trace-filter-memory.mjs [--trace-blocks=400] [--bin=PATH to another build's bin/alder]
 */
import { resolve } from 'node:path';
import { BIN, fmt, killAll, log, memory, parseOptions, table } from '../lib.mjs';
import { measuredCall, traceChain, traceNode } from '../tracechain.mjs';

async function main() {
  const opt = parseOptions({ 'trace-blocks': 400, bin: BIN });
  const blocks = Number(opt['trace-blocks']);
  const chain = await traceChain(blocks);
  const node = await traceNode(chain, resolve(String(opt.bin)));
  try {
    // Warm the code paths once on a small range so the first row is not start-up cost.
    await measuredCall(node, 'trace_filter', [{ fromBlock: '0x1', toBlock: '0x2' }]);
    const rows = [];
    for (const width of [Math.ceil(blocks / 8), Math.ceil(blocks / 2), blocks]) {
      const before = memory(node.pid);
      log(`trace_filter over blocks 1..${width}`);
      const r = await measuredCall(node, 'trace_filter', [
        { fromBlock: '0x1', toBlock: `0x${width.toString(16)}` },
      ]);
      rows.push([
        `1..${width}`,
        fmt(r.count),
        fmt(r.bytes / 2 ** 20, 1),
        fmt(before.rss),
        fmt(r.peak),
        fmt(before.anon),
        fmt(r.peakAnon),
        fmt(r.seconds, 1),
      ]);
    }
    process.stdout.write(
      `## trace_filter memory (${blocks} generated blocks, ${chain.txCount} transactions)\n\n${table(
        [
          'range',
          'traces',
          'answer MiB',
          'RSS before MiB',
          'peak RSS MiB',
          'anon RSS before MiB',
          'peak anon RSS MiB',
          's',
        ],
        rows,
      )}\n`,
    );
  } finally {
    await node.close();
  }
}

main().catch((err) => {
  process.stderr.write(`trace-filter-memory failed: ${err.stack ?? err}\n`);
  killAll();
  process.exit(1);
});
