#!/usr/bin/env node
/**
 * QBFT: four Alder validators as separate processes on 127.0.0.1 (1 s block period). Signed ERC-20
 * transfers sent to all four nodes at once, rate = transfers / time until the last receipt; block
 * intervals seen by a client (p50, p99, jitter); and the time from killing the next block's proposer to
 * the next block. Printed beside Besu's published figure for four validators (520–645 ERC-20 tx/s on
 * larger machines).
 *
 *   node bench/suites/bft.mjs [--txs=4000] [--senders=40] [--blocks=20] [--keep]
 *   BFT_BENCH_LOGGING=DEBUG … --keep   also writes each node's log under the kept directory
 */
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToHex, setLengthLeft } from '@ethereumjs/util';
import { bftGenesis } from '../../dist/cli/devNetwork.js';
import { createCommon, parseGenesis } from '../../dist/config/genesis.js';
import { customCrypto } from '../../dist/crypto/index.js';
import { nodeAddress, nodePublicKey } from '../../dist/crypto/nodeKey.js';
import { accountKey, benchGenesis, keccak256, SELECTORS, TOKEN_ADDRESS } from '../genchain.mjs';
import {
  BIN,
  fmt,
  freePort,
  killAll,
  log,
  parseOptions,
  rpc,
  start,
  stop,
  table,
  waitForRpc,
} from '../lib.mjs';

const opt = parseOptions({ txs: 4000, senders: 40, blocks: 20, keep: false });
const CHAIN_ID = 31_416;
const VALIDATORS = 4;
const key = (name) => keccak256(new TextEncoder().encode(`alder bench bft ${name}`));
const validatorKeys = Array.from({ length: VALIDATORS }, (_, i) => key(`validator ${i}`));
const senders = Array.from({ length: opt.senders }, (_, i) => accountKey(i));
const RECIPIENT = '0x00000000000000000000000000000000000b0b00';

function genesis() {
  const { alloc } = benchGenesis({ accounts: opt.senders });
  const spec = bftGenesis(
    'qbft',
    validatorKeys.map((k) => nodeAddress(k)),
    { chainId: CHAIN_ID, blockPeriodSeconds: 1, requestTimeoutSeconds: 2, alloc },
  );
  // 30 M gas (as dev-network): ~600 token transfers a block, built and checked within a round here.
  spec.gasLimit = '0x1c9c380';
  return spec;
}

function transferData(to, amount) {
  return new Uint8Array([
    ...SELECTORS.transfer,
    ...setLengthLeft(Buffer.from(to.slice(2), 'hex'), 32),
    ...setLengthLeft(Buffer.from(amount.toString(16).padStart(2, '0'), 'hex'), 32),
  ]);
}

function signTransfers(spec) {
  const common = createCommon(spec, { customCrypto: customCrypto() });
  const nonces = senders.map(() => 0n);
  const out = [];
  for (let i = 0; i < opt.txs; i++) {
    const s = i % senders.length;
    const tx = createFeeMarket1559Tx(
      {
        chainId: BigInt(CHAIN_ID),
        nonce: nonces[s]++,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
        gasLimit: 60_000n,
        to: TOKEN_ADDRESS,
        data: transferData(RECIPIENT, 1n),
      },
      { common },
    ).sign(senders[s]);
    out.push({
      sender: s,
      raw: bytesToHex(tx.serialize()),
      hash: bytesToHex(tx.hash()),
      last: i >= opt.txs - senders.length,
    });
  }
  return out;
}

async function throughput(urls, txs) {
  const bySender = senders.map((_, s) => txs.filter((t) => t.sender === s));
  const t0 = performance.now();
  await Promise.all(
    bySender.map(async (list, s) => {
      const url = urls[s % urls.length];
      for (const t of list) await rpc(url, 'eth_sendRawTransaction', [t.raw]);
    }),
  );
  const pending = new Set(txs.filter((t) => t.last).map((t) => t.hash));
  const deadline = Date.now() + 300_000;
  while (pending.size > 0) {
    if (Date.now() > deadline) throw new Error(`${pending.size} receipts missing after 300 s`);
    for (const h of [...pending]) if (await rpc(urls[0], 'eth_getTransactionReceipt', [h])) pending.delete(h);
    if (pending.size > 0) await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (performance.now() - t0) / 1000;
  for (const t of txs.slice(0, 10)) {
    const r = await rpc(urls[0], 'eth_getTransactionReceipt', [t.hash]);
    if (r?.status !== '0x1') throw new Error(`transfer ${t.hash} failed`);
  }
  return txs.length / seconds;
}

/** Head changes seen by polling every 20 ms: intervals between consecutive blocks, in ms. */
async function blockIntervals(url, count) {
  const seen = [];
  let last = BigInt(await rpc(url, 'eth_blockNumber'));
  const deadline = Date.now() + count * 5_000;
  while (seen.length <= count && Date.now() < deadline) {
    const n = BigInt(await rpc(url, 'eth_blockNumber'));
    if (n > last) {
      seen.push(performance.now());
      last = n;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return seen.slice(1).map((t, i) => t - seen[i]);
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'alder-bench-bft-'));
  const procs = [];
  try {
    const spec = genesis();
    const genesisFile = join(work, 'genesis.json');
    writeFileSync(genesisFile, JSON.stringify(spec));
    const txs = signTransfers(parseGenesis(spec));
    const nodes = [];
    for (let i = 0; i < VALIDATORS; i++) {
      const dir = join(work, `v${i}`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'key'), bytesToHex(validatorKeys[i]));
      const p2p = await freePort();
      const http = await freePort();
      const id = Buffer.from(nodePublicKey(validatorKeys[i])).toString('hex');
      nodes.push({
        dir,
        p2p,
        http,
        enode: `enode://${id}@127.0.0.1:${p2p}`,
        url: `http://127.0.0.1:${http}`,
      });
    }
    for (const n of nodes)
      writeFileSync(
        join(n.dir, 'static-nodes.json'),
        JSON.stringify(nodes.filter((o) => o !== n).map((o) => o.enode)),
      );
    const args = (n) => [
      BIN,
      `--genesis-file=${genesisFile}`,
      `--data-path=${n.dir}`,
      '--p2p-interface=127.0.0.1',
      `--p2p-port=${n.p2p}`,
      '--discovery-enabled=false',
      '--rpc-http-enabled',
      '--rpc-http-host=127.0.0.1',
      `--rpc-http-port=${n.http}`,
      '--rpc-http-api=ETH,NET,QBFT',
      ...(process.env.BFT_BENCH_LOGGING ? [`--logging=${process.env.BFT_BENCH_LOGGING}`] : []),
      `--tx-pool-max-size=${opt.txs * 2}`,
    ];
    for (const n of nodes) {
      n.proc = start(process.execPath, args(n));
      if (process.env.BFT_BENCH_LOGGING) n.proc.child.stdout.pipe(createWriteStream(join(n.dir, 'log')));
      procs.push(n.proc);
    }
    for (const n of nodes) await waitForRpc(n.url, n.proc);
    while ((await rpc(nodes[0].url, 'eth_blockNumber')) < '0x3') await new Promise((r) => setTimeout(r, 200));

    log(`qbft, ${VALIDATORS} validators: ${opt.blocks} empty block intervals`);
    const idle = await blockIntervals(nodes[0].url, opt.blocks);
    log(`qbft: ${opt.txs} ERC-20 transfers from ${opt.senders} senders`);
    const rate = await throughput(
      nodes.map((n) => n.url),
      txs,
    );

    // Right after a new block, kill the proposer of the next one (the validator after the head's
    // proposer), before its block timer fires.
    const before = BigInt(await rpc(nodes[0].url, 'eth_blockNumber'));
    while (BigInt(await rpc(nodes[0].url, 'eth_blockNumber')) === before)
      await new Promise((r) => setTimeout(r, 10));
    const head = await rpc(nodes[0].url, 'eth_getBlockByNumber', ['latest', false]);
    const validators = await rpc(nodes[0].url, 'qbft_getValidatorsByBlockNumber', ['latest']);
    const next = validators[(validators.indexOf(head.miner.toLowerCase()) + 1) % validators.length];
    const victim = nodes.find((_, i) => nodeAddress(validatorKeys[i]) === next);
    const others = nodes.filter((n) => n !== victim);
    const height = BigInt(head.number);
    const t0 = performance.now();
    process.kill(victim.proc.pid, 'SIGKILL');
    while (BigInt(await rpc(others[0].url, 'eth_blockNumber')) <= height)
      await new Promise((r) => setTimeout(r, 20));
    const recovery = (performance.now() - t0) / 1000;
    const nextBlock = await rpc(others[0].url, 'eth_getBlockByNumber', [
      `0x${(height + 1n).toString(16)}`,
      false,
    ]);
    if (nextBlock.miner.toLowerCase() === next)
      throw new Error('the killed proposer had proposed already: run again');

    const mean = idle.reduce((a, b) => a + b, 0) / idle.length;
    const jitter = Math.sqrt(idle.reduce((a, b) => a + (b - mean) ** 2, 0) / idle.length);
    process.stdout.write(
      [
        '## QBFT (4 validators, 1 s block period, request timeout 2 s)',
        '',
        `${opt.txs} signed ERC-20 transfers (token transfer calls) from ${opt.senders} senders, each sending in nonce order to one of the four nodes, all at once; rate = transfers / time until the last receipt. Four processes on this machine (shared with other work), loopback networking.`,
        '',
        table(
          ['figure', 'Alder', 'Besu (published, 4 validators)'],
          [
            ['ERC-20 transfers/s', fmt(rate), '520–645'],
            ['block interval p50 (ms)', fmt(pct(idle, 50)), '—'],
            ['block interval p99 (ms)', fmt(pct(idle, 99)), '—'],
            ['block interval jitter, std dev (ms)', fmt(jitter), '—'],
            ['proposer killed → next block (s)', fmt(recovery, 2), '—'],
          ],
        ),
        '',
        `Intervals of ${idle.length} empty blocks as a client polling every 20 ms sees them. Recovery: SIGKILL of the next block's round-0 proposer to the next block on another validator (block period + round-0 timeout + the round-1 proposal).`,
        '',
      ].join('\n'),
    );
  } finally {
    for (const p of procs) await stop(p);
    if (opt.keep) log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`bft bench failed: ${err.stack ?? err}\n`);
  killAll();
  process.exit(1);
});
