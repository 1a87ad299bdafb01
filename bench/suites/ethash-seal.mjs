#!/usr/bin/env node
/**
 * CPU per hashimoto-light nonce on the epoch-0 light cache (16 MiB), the cost of the dev network's
 * proof-of-work seal: the plain JavaScript reference (one dataset item after another), the
 * WebAssembly kernel one nonce at a time (verification) and in the nonce search's batches.
 * Rounds alternate between the paths; each figure is the median over rounds of the process's CPU
 * time per nonce (user + system, one thread), so other load on the machine changes it little.
 *
 *   node bench/suites/ethash-seal.mjs [--rounds=7] [--nonces=48] [--batches=4] [--baseline-dist=DIR]
 *
 * `--batches=1,4,8` measures those batch sizes (the search uses SEARCH_BATCH); `--baseline-dist` also
 * measures the `Hashimoto.run` of another build (a checkout's `dist/`).
 */
import { join, resolve } from 'node:path';
import { fmt, log, median, parseOptions, ROOT, table } from '../lib.mjs';

const opt = parseOptions({ rounds: 7, nonces: 48, batches: 4 });
const ethash = (dist) => join(dist, 'consensus/ethash');

async function main() {
  const dist = join(ROOT, 'dist');
  const { cacheSize, datasetSize, Hashimoto, makeCache, MAX_BATCH, SEARCH_BATCH, seedHash } = await import(
    join(ethash(dist), 'algorithm.js')
  );
  const { ReferenceHashimoto } = await import(join(ethash(dist), 'reference.js'));
  const cpu0 = process.cpuUsage();
  const cache = await makeCache(cacheSize(0), seedHash(0));
  const cacheCpu = process.cpuUsage(cpu0);
  const fullSize = datasetSize(0);
  const kernel = new Hashimoto(cache, fullSize);
  const reference = new ReferenceHashimoto(cache, fullSize);
  const batches = String(opt.batches)
    .split(',')
    .map(Number)
    .filter((b) => b >= 1 && b <= MAX_BATCH);
  const headerHash = new Uint8Array(32).map((_, i) => (i * 37 + 11) & 0xff);
  const never = new Uint8Array(32);
  const nonce = new Uint8Array(8);
  const single = (h) => (n) => {
    for (let i = 0; i < n; i++) {
      nonce[4] = i & 0xff;
      nonce[7] = (nonce[7] + 1) & 0xff;
      h.run(headerHash, nonce);
    }
  };
  let lo = 0;
  const batched = (size) => (n) => {
    for (let i = 0; i < n; i += size) {
      kernel.searchBatch(headerHash, 1, lo, size, never);
      lo += size;
    }
  };
  const paths = [
    ['JavaScript reference, one nonce', single(reference)],
    ['kernel, one nonce (verification)', single(kernel)],
    ...batches.map((size) => [
      `kernel, batches of ${size}${size === SEARCH_BATCH ? ' (search)' : ''}`,
      batched(size),
    ]),
  ];
  if (typeof opt['baseline-dist'] === 'string') {
    const base = await import(join(ethash(resolve(opt['baseline-dist'])), 'algorithm.js'));
    paths.unshift([`Hashimoto.run of ${opt['baseline-dist']}`, single(new base.Hashimoto(cache, fullSize))]);
  }
  const samples = paths.map(() => []);
  for (const [, f] of paths) f(MAX_BATCH); // compile and warm up
  for (let r = 0; r < opt.rounds; r++) {
    paths.forEach(([, f], i) => {
      const t = process.cpuUsage();
      f(opt.nonces);
      const c = process.cpuUsage(t);
      samples[i].push((c.user + c.system) / 1000 / opt.nonces);
    });
    log(`ethash-seal round ${r + 1}/${opt.rounds}`);
  }
  const ref = median(samples[paths.findIndex(([name]) => name.startsWith('JavaScript reference'))]);
  const lines = [
    '## Ethash seal: CPU per hashimoto-light nonce (epoch 0)',
    '',
    `Median over ${opt.rounds} alternating rounds of ${opt.nonces} nonces each; CPU time of one thread.`,
    `The dev network's fixed difficulty 100 needs 100 nonces per block on average. Epoch-0 cache built in ${fmt((cacheCpu.user + cacheCpu.system) / 1e6, 2)} s CPU.`,
    '',
    table(
      ['path', 'ms/nonce (CPU)', 'ms per dev block (100 nonces)', 'vs reference'],
      paths.map(([name], i) => {
        const m = median(samples[i]);
        return [name, fmt(m, 3), fmt(m * 100, 1), `${fmt(ref / m, 1)}×`];
      }),
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`ethash-seal bench failed: ${err.stack ?? err}\n`);
  process.exit(1);
});
