#!/usr/bin/env node
/**
 * GraphQL against batched JSON-RPC, both served by Alder from the same chain: requests/s with p50/p99
 * latency and the server's CPU time per request (user + system) for three reads, each fetched once as
 * one GraphQL query and once as one JSON-RPC batch carrying the same data:
 *
 * 1. block-100-txs: one block of 100 transactions, each transaction's hash and its receipt's status
 *    (JSON-RPC: eth_getBlockByNumber without full transactions + eth_getBlockReceipts).
 * 2. account-10-blocks: one account's balance, nonce and one storage slot at 10 blocks (JSON-RPC: 30
 *    calls of eth_getBalance, eth_getTransactionCount and eth_getStorageAt).
 * 3. logs-1000-blocks: the token transfers sent by one account over 1,000 blocks (JSON-RPC:
 *    eth_getLogs with the same address and topics).
 *
 * The chains come from bench/genchain.mjs: 1,000 blocks of a few transactions each (reads 2 and 3), and
 * a second chain whose blocks hold exactly 100 transactions (read 1). Both answers of a workload are
 * checked to carry the same values before the load starts. Prints a Markdown section.
 *
 *   node bench/suites/graphql.mjs [--blocks=1000] [--requests=5000] [--seconds=4] [--runs=3] [--concurrency=16]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountKey, addressOf, generateChain, TOKEN_ADDRESS, TRANSFER_TOPIC } from '../genchain.mjs';
import {
  BIN,
  cpuSeconds,
  fmt,
  freePort,
  killAll,
  log,
  median,
  parseOptions,
  run,
  start,
  stop,
  table,
  waitForRpc,
} from '../lib.mjs';

const opt = parseOptions({ blocks: 1000, requests: 5000, seconds: 4, runs: 3, concurrency: 16 });

const hex = (n) => `0x${BigInt(n).toString(16)}`;

async function post(url, body) {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  if (r.status !== 200) throw new Error(`${url}: status ${r.status}: ${(await r.text()).slice(0, 300)}`);
  return r.json();
}

async function importChain(dir, chain) {
  const data = join(dir, 'data');
  mkdirSync(data, { recursive: true });
  const base = [`--genesis-file=${chain.genesis}`, `--data-path=${data}`];
  await run(process.execPath, [BIN, ...base, 'blocks', 'import', `--from=${chain.rlp}`], {
    timeoutSeconds: 1800,
  });
  return base;
}

async function startAlder(base) {
  const rpcPort = await freePort();
  const gqlPort = await freePort();
  const proc = start(process.execPath, [
    BIN,
    ...base,
    '--rpc-http-enabled',
    `--rpc-http-port=${rpcPort}`,
    '--graphql-http-enabled',
    `--graphql-http-port=${gqlPort}`,
    '--logging=WARN',
  ]);
  const rpcUrl = `http://127.0.0.1:${rpcPort}`;
  await waitForRpc(rpcUrl, proc);
  return { proc, rpcUrl, gqlUrl: `http://127.0.0.1:${gqlPort}/graphql` };
}

async function load(url, body, okMarker, { requests, seconds }, work) {
  const spec = join(work, `load-${process.hrtime.bigint()}.json`);
  writeFileSync(
    spec,
    JSON.stringify({ url, bodies: [body], concurrency: opt.concurrency, requests, seconds, okMarker }),
  );
  const r = await run(process.execPath, [join(import.meta.dirname, '..', 'load.mjs'), spec], {
    timeoutSeconds: seconds + 60,
  });
  rmSync(spec);
  return JSON.parse(r.output.trim().split('\n').pop());
}

async function measure(label, url, body, okMarker, pid, work) {
  await load(url, body, okMarker, { requests: 200, seconds: 1 }, work);
  const rs = [];
  for (let i = 0; i < opt.runs; i++) {
    const cpu0 = cpuSeconds(pid);
    const r = await load(url, body, okMarker, { requests: opt.requests, seconds: opt.seconds }, work);
    if (r.errors > 0) throw new Error(`${label}: ${r.errors} errors, first: ${r.firstError}`);
    r.cpuMs = ((cpuSeconds(pid) - cpu0) * 1000) / Math.max(1, r.count);
    rs.push(r);
  }
  const mid = [...rs].sort((a, b) => a.rps - b.rps)[Math.floor((rs.length - 1) / 2)];
  const out = {
    rps: median(rs.map((r) => r.rps)),
    p50: mid.p50,
    p99: mid.p99,
    cpuMs: median(rs.map((r) => r.cpuMs)),
    bytes: mid.meanBytes,
  };
  log(`${label}: ${fmt(out.rps)} req/s, ${fmt(out.cpuMs, 3)} ms CPU/req`);
  return out;
}

function same(label, a, b) {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  if (x !== y)
    throw new Error(`${label}: GraphQL and JSON-RPC disagree:\n${x.slice(0, 400)}\n${y.slice(0, 400)}`);
}

// ------------------------------------------------------------------------------------------- workloads

async function blockWorkload(node) {
  const head = Number(
    (await post(node.rpcUrl, '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}')).result,
  );
  const n = hex(Math.min(1, head));
  const gql = JSON.stringify({ query: `{ block(number: "${n}") { transactions { hash status } } }` });
  const batch = JSON.stringify([
    { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: [n, false] },
    { jsonrpc: '2.0', id: 2, method: 'eth_getBlockReceipts', params: [n] },
  ]);
  const g = await post(node.gqlUrl, gql);
  const [block, receipts] = await post(node.rpcUrl, batch);
  const fromRpc = block.result.transactions.map((hash, i) => ({ hash, status: receipts.result[i].status }));
  if (fromRpc.length !== 100) throw new Error(`block ${n} holds ${fromRpc.length} transactions, not 100`);
  same('block-100-txs', g.data.block.transactions, fromRpc);
  return { name: 'block-100-txs', gql, batch };
}

async function accountWorkload(node, blocks) {
  const who = addressOf(accountKey(0)).toString();
  const slot = '0x0';
  const step = Math.max(1, Math.floor(blocks / 10));
  const numbers = Array.from({ length: 10 }, (_, i) => hex(Math.min(blocks, (i + 1) * step)));
  const fields = numbers
    .map(
      (n, i) =>
        `b${i}: block(number: "${n}") { account(address: "${who}") { balance transactionCount } token: account(address: "${TOKEN_ADDRESS}") { storage(slot: "${'0x'.padEnd(66, '0')}") } }`,
    )
    .join(' ');
  const gql = JSON.stringify({ query: `{ ${fields} }` });
  const calls = numbers.flatMap((n) => [
    { method: 'eth_getBalance', params: [who, n] },
    { method: 'eth_getTransactionCount', params: [who, n] },
    { method: 'eth_getStorageAt', params: [TOKEN_ADDRESS, slot, n] },
  ]);
  const batch = JSON.stringify(calls.map((c, i) => ({ jsonrpc: '2.0', id: i + 1, ...c })));
  const g = await post(node.gqlUrl, gql);
  const r = await post(node.rpcUrl, batch);
  same(
    'account-10-blocks',
    numbers.map((_, i) => [
      g.data[`b${i}`].account.balance,
      g.data[`b${i}`].account.transactionCount,
      g.data[`b${i}`].token.storage,
    ]),
    numbers.map((_, i) => [r[3 * i].result, r[3 * i + 1].result, r[3 * i + 2].result]),
  );
  return { name: 'account-10-blocks', gql, batch };
}

async function logsWorkload(node, blocks) {
  const sender = `0x${addressOf(accountKey(0)).toString().slice(2).padStart(64, '0')}`;
  const to = hex(blocks);
  const gql = JSON.stringify({
    query: `{ logs(filter: { fromBlock: 1, toBlock: "${to}", addresses: ["${TOKEN_ADDRESS}"], topics: [["${TRANSFER_TOPIC}"], ["${sender}"]] }) { index topics data transaction { hash } } }`,
  });
  const batch = JSON.stringify([
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_getLogs',
      params: [{ fromBlock: '0x1', toBlock: to, address: TOKEN_ADDRESS, topics: [TRANSFER_TOPIC, sender] }],
    },
  ]);
  const g = await post(node.gqlUrl, gql);
  const [r] = await post(node.rpcUrl, batch);
  same(
    'logs-1000-blocks',
    g.data.logs.map((l) => [l.index, l.topics, l.data, l.transaction.hash]),
    r.result.map((l) => [l.logIndex, l.topics, l.data, l.transactionHash]),
  );
  log(`logs-1000-blocks: ${r.result.length} matching logs`);
  return { name: `logs-${blocks}-blocks`, gql, batch, matches: r.result.length };
}

// ------------------------------------------------------------------------------------------- main

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'alder-bench-graphql-'));
  const rows = [];
  let logMatches = 0;
  try {
    log(`graphql: generating ${opt.blocks} small blocks and a chain of 100-transaction blocks`);
    const small = join(work, 'small');
    const big = join(work, 'big');
    await generateChain({ blocks: opt.blocks, gasLimit: 600_000n, outDir: small });
    await generateChain({ blocks: 2, gasLimit: 30_000_000n, txsPerBlock: 100, outDir: big });
    const chains = [
      {
        dir: big,
        chain: { genesis: join(big, 'genesis.json'), rlp: join(big, 'chain.rlp') },
        kinds: ['block'],
      },
      {
        dir: small,
        chain: { genesis: join(small, 'genesis.json'), rlp: join(small, 'chain.rlp') },
        kinds: ['account', 'logs'],
      },
    ];
    for (const { dir, chain, kinds } of chains) {
      const base = await importChain(dir, chain);
      const node = await startAlder(base);
      try {
        for (const kind of kinds) {
          const w =
            kind === 'block'
              ? await blockWorkload(node)
              : kind === 'account'
                ? await accountWorkload(node, opt.blocks)
                : await logsWorkload(node, opt.blocks);
          if (w.matches !== undefined) logMatches = w.matches;
          const g = await measure(`${w.name} GraphQL`, node.gqlUrl, w.gql, '"data" :', node.proc.pid, work);
          const j = await measure(
            `${w.name} JSON-RPC batch`,
            node.rpcUrl,
            w.batch,
            '"result":',
            node.proc.pid,
            work,
          );
          rows.push([
            w.name,
            fmt(g.rps),
            `${fmt(g.p50, 1)} / ${fmt(g.p99, 1)}`,
            fmt(g.cpuMs, 3),
            fmt(j.rps),
            `${fmt(j.p50, 1)} / ${fmt(j.p99, 1)}`,
            fmt(j.cpuMs, 3),
            `${fmt(g.rps / j.rps, 2)}× / ${fmt(j.cpuMs / g.cpuMs, 2)}×`,
          ]);
        }
      } finally {
        await stop(node.proc);
      }
    }
  } finally {
    killAll();
    rmSync(work, { recursive: true, force: true });
  }
  console.log('## GraphQL vs batched JSON-RPC (Alder, same node, same data)\n');
  console.log(
    table(
      [
        'workload',
        'GraphQL req/s',
        'GraphQL p50/p99 ms',
        'GraphQL CPU ms/req',
        'JSON-RPC batch req/s',
        'JSON-RPC p50/p99 ms',
        'JSON-RPC CPU ms/req',
        'GraphQL vs batch: req/s ratio / CPU ratio',
      ],
      rows,
    ),
  );
  console.log(
    `\n${opt.concurrency} connections, ${opt.runs} runs of at most ${opt.requests} requests or ${opt.seconds} s, medians. ` +
      `CPU ms/req is the node's user + system time per answered request (10 ms clock ticks). ` +
      `Ratios above 1 favour GraphQL. The logs filter matched ${logMatches} logs.\n`,
  );
}

main().catch((err) => {
  killAll();
  console.error(err);
  process.exit(1);
});
