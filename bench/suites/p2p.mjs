#!/usr/bin/env node
/**
 * Networking figures, every node a real `bin/alder` on 127.0.0.1:
 *  - full sync of a generated chain from a local peer (blocks/s, Mgas/s) next to `blocks import` of the
 *    same chain;
 *  - a new block reaching 3 peers (a Clique signer and three followers; newHeads on each node's WS,
 *    from the signer's own notification to the last follower's), p50/p99;
 *  - transaction propagation (sent to one follower, until the other two report it pending), p50/p99;
 *  - RSS of a node holding 25 peers (devp2p clients in this process that complete the eth status).
 *
 *   node bench/suites/p2p.mjs [--blocks=10000] [--txs-per-block=10] [--samples=30] [--only=all|sync|network]
 *                             [--sync-timeout=1800] [--chain=DIR (a chain generated before)] [--keep]
 *
 * The sync part also reports the syncing node's resident memory (at the end and its peak) and the CPU
 * seconds of the import and of the syncing node (on a loaded machine wall time says little), and stops
 * with an error when the import or the sync has not finished within --sync-timeout seconds.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ETH, RLPx } from '@ethereumjs/devp2p';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import WebSocket from 'ws';
import { createCommon, parseGenesis } from '../../dist/config/genesis.js';
import { encodeExtraData } from '../../dist/consensus/clique/extraData.js';
import { customCrypto } from '../../dist/crypto/index.js';
import { nodePublicKey } from '../../dist/crypto/nodeKey.js';
import { addressOf, generateChain, keccak256, LONDON_AT_GENESIS } from '../genchain.mjs';
import {
  BIN,
  chainStats,
  cpuSeconds,
  fmt,
  freePort,
  log,
  memory,
  parseOptions,
  rpc,
  run,
  start,
  stop,
  table,
  waitForRpc,
} from '../lib.mjs';

const opt = parseOptions({
  blocks: 10000,
  'txs-per-block': 10,
  samples: 30,
  keep: false,
  only: 'all',
  'sync-timeout': 1800,
  chain: '',
});
const work = mkdtempSync(join(tmpdir(), 'alder-bench-p2p-'));
const key = (name) => keccak256(new TextEncoder().encode(`alder bench p2p ${name}`));
const hexKey = (k) => bytesToHex(k);
const enodeOf = (k, port) => `enode://${Buffer.from(nodePublicKey(k)).toString('hex')}@127.0.0.1:${port}`;
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/** A node directory with a key, the genesis and static nodes; started with HTTP (and WS) on free ports. */
async function node(name, genesisPath, { statics = [], ws = false, extra = [] } = {}) {
  const dir = join(work, name);
  const k = key(name);
  const p2pPort = await freePort();
  const http = await freePort();
  const wsPort = await freePort();
  return {
    dir,
    key: k,
    p2pPort,
    enode: enodeOf(k, p2pPort),
    url: `http://127.0.0.1:${http}`,
    wsUrl: `ws://127.0.0.1:${wsPort}`,
    async start() {
      const { mkdirSync } = await import('node:fs');
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(join(this.dir, 'key'), hexKey(k));
      writeFileSync(join(this.dir, 'static-nodes.json'), JSON.stringify(statics.map((s) => s.enode)));
      this.proc = start(process.execPath, [
        BIN,
        `--genesis-file=${genesisPath}`,
        `--data-path=${this.dir}`,
        '--p2p-interface=127.0.0.1',
        `--p2p-port=${p2pPort}`,
        '--discovery-enabled=false',
        '--rpc-http-enabled',
        '--rpc-http-host=127.0.0.1',
        `--rpc-http-port=${http}`,
        '--rpc-http-api=ETH,NET,ADMIN,TXPOOL',
        ...(ws ? ['--rpc-ws-enabled', '--rpc-ws-host=127.0.0.1', `--rpc-ws-port=${wsPort}`] : []),
        ...extra,
      ]);
      await waitForRpc(this.url, this.proc);
      return this;
    },
  };
}

/** CPU seconds (user + system) of this process's children that have exited and been waited for. */
function childrenCpuSeconds() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

async function untilTrue(probe, seconds) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out');
}

function subscribe(url, kind, onEvent) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('error', reject);
    ws.on('open', () =>
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: [kind] })),
    );
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data));
      if (msg.id === 1) resolve(ws);
      else if (msg.method === 'eth_subscription') onEvent(msg.params.result, performance.now());
    });
  });
}

const results = [];
const report = (row) => {
  results.push(row);
  log(`${row[0]}: ${row[1]}`);
};

// --- 1. full sync against blocks import
if (opt.only === 'all' || opt.only === 'sync') {
  if (!opt.chain)
    log(`generating a ${opt.blocks}-block chain (${opt['txs-per-block']} transactions per block)`);
  const chainDir = join(work, 'chain');
  // --chain=DIR reuses a chain generated before (its genesis.json and chain.rlp).
  const gen = opt.chain
    ? { genesisPath: join(opt.chain, 'genesis.json'), chainPath: join(opt.chain, 'chain.rlp') }
    : await generateChain({ blocks: opt.blocks, txsPerBlock: opt['txs-per-block'], outDir: chainDir });
  const stats = chainStats(gen.chainPath);
  const servingDir = join(work, 'serving');
  const childCpu0 = childrenCpuSeconds();
  const imp = await run(
    process.execPath,
    [
      BIN,
      `--genesis-file=${gen.genesisPath}`,
      `--data-path=${servingDir}`,
      'blocks',
      'import',
      `--from=${gen.chainPath}`,
    ],
    { timeoutSeconds: opt['sync-timeout'] },
  );
  const importCpu = childrenCpuSeconds() - childCpu0;
  const serving = await node('serving', gen.genesisPath);
  // The import above wrote the serving node's database: start it there.
  serving.dir = servingDir;
  await serving.start();
  const syncing = await node('syncing', gen.genesisPath, { statics: [serving] });
  const t0 = performance.now();
  await syncing.start();
  let lastLog = 0;
  await untilTrue(async () => {
    const n = BigInt(await rpc(syncing.url, 'eth_blockNumber'));
    if (performance.now() - lastLog > 60_000) {
      lastLog = performance.now();
      log(`syncing node at block ${n} of ${stats.blocks}, RSS ${fmt(memory(syncing.proc.pid).rss)} MiB`);
    }
    return n >= BigInt(stats.blocks);
  }, opt['sync-timeout']);
  const seconds = (performance.now() - t0) / 1000;
  const syncMem = memory(syncing.proc.pid);
  const syncCpu = cpuSeconds(syncing.proc.pid);
  const servingMem = memory(serving.proc.pid);
  const [a, b] = await Promise.all(
    [serving, syncing].map((n) => rpc(n.url, 'eth_getBlockByNumber', ['latest', false])),
  );
  if (a.hash !== b.hash || a.stateRoot !== b.stateRoot)
    throw new Error('synced head differs from the serving node');
  report([
    'full sync from a local peer',
    `${fmt(stats.blocks / seconds)} blocks/s, ${fmt(stats.gas / 1e6 / seconds, 1)} Mgas/s (${stats.blocks} blocks, ${fmt(seconds, 1)} s incl. start-up; syncing node ${fmt(syncCpu, 1)} CPU s)`,
  ]);
  report([
    'RSS of the syncing node',
    `${fmt(syncMem.rss)} MiB at the end, peak ${fmt(syncMem.peak)} MiB (serving node: ${fmt(servingMem.rss)} MiB, peak ${fmt(servingMem.peak)} MiB)`,
  ]);
  report([
    '`blocks import` of the same chain',
    `${fmt(stats.blocks / imp.seconds)} blocks/s, ${fmt(stats.gas / 1e6 / imp.seconds, 1)} Mgas/s (${fmt(imp.seconds, 1)} s incl. start-up; ${fmt(importCpu, 1)} CPU s)`,
  ]);
  await stop(syncing.proc);
  await stop(serving.proc);
}

// --- 2 and 3. block and transaction propagation on a Clique network of four
if (opt.only === 'all' || opt.only === 'network') {
  const signerKey = key('signer');
  const sender = key('sender');
  const genesis = {
    config: { chainId: 31_416, ...LONDON_AT_GENESIS, clique: { blockperiodseconds: 1, epochlength: 30000 } },
    gasLimit: '0x1c9c380',
    difficulty: '0x1',
    extraData: bytesToHex(encodeExtraData(new Uint8Array(), [addressOf(signerKey).toString()])),
    alloc: { [addressOf(sender).toString()]: { balance: '0xd3c21bcecceda1000000' } },
  };
  const genesisPath = join(work, 'clique.json');
  writeFileSync(genesisPath, JSON.stringify(genesis));
  const signer = await node('signer', genesisPath, { ws: true });
  const followers = [];
  for (let i = 0; i < 3; i++)
    followers.push(await node(`follower-${i}`, genesisPath, { ws: true, statics: [signer] }));
  await signer.start();
  await Promise.all(followers.map((f) => f.start()));
  await untilTrue(async () => (await rpc(signer.url, 'net_peerCount')) === '0x3', 60);
  const seen = new Map();
  const record = (who) => (head, t) => {
    const e = seen.get(head.hash) ?? {};
    e[who] = t;
    seen.set(head.hash, e);
  };
  const sockets = [await subscribe(signer.wsUrl, 'newHeads', record('s'))];
  for (const [i, f] of followers.entries()) sockets.push(await subscribe(f.wsUrl, 'newHeads', record(i)));
  const pending = new Map();
  for (const [i, f] of followers.entries())
    sockets.push(
      await subscribe(f.wsUrl, 'newPendingTransactions', (hash, t) => {
        const e = pending.get(hash) ?? {};
        e[i] = t;
        pending.set(hash, e);
      }),
    );
  // Transactions sent to follower 0, watched on followers 1 and 2.
  const common = createCommon(parseGenesis(genesis), { customCrypto: customCrypto() });
  const { createFeeMarket1559Tx } = await import('@ethereumjs/tx');
  const sent = new Map();
  for (let n = 0; n < opt.samples; n++) {
    const tx = createFeeMarket1559Tx(
      {
        chainId: 31_416,
        nonce: n,
        to: '0x00000000000000000000000000000000000b0b00',
        value: 1n,
        gasLimit: 21000n,
        maxFeePerGas: 20_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      },
      { common },
    ).sign(sender);
    const t = performance.now();
    const hash = await rpc(followers[0].url, 'eth_sendRawTransaction', [bytesToHex(tx.serialize())]);
    sent.set(hash, t);
    await new Promise((r) => setTimeout(r, 300));
  }
  await untilTrue(async () => seen.size >= opt.samples + 2, 120);
  await new Promise((r) => setTimeout(r, 1500));
  for (const s of sockets) s.close();
  const blockDelays = [...seen.values()]
    .filter((e) => e.s !== undefined && [0, 1, 2].every((i) => e[i] !== undefined))
    .map((e) => Math.max(e[0], e[1], e[2]) - e.s);
  const txDelays = [];
  for (const [h, t] of sent) {
    const e = pending.get(h);
    if (e && e[1] !== undefined && e[2] !== undefined) txDelays.push(Math.max(e[1], e[2]) - t);
  }
  report([
    `new block to 3 peers (${blockDelays.length} blocks)`,
    `p50 ${fmt(pct(blockDelays, 50), 1)} ms, p99 ${fmt(pct(blockDelays, 99), 1)} ms`,
  ]);
  report([
    `transaction to 2 further peers (${txDelays.length} txs)`,
    `p50 ${fmt(pct(txDelays, 50), 1)} ms, p99 ${fmt(pct(txDelays, 99), 1)} ms`,
  ]);
  for (const f of followers) await stop(f.proc);

  // --- 4. RSS with 25 peers (eth/68 clients in this process)
  const before = memory(signer.proc.pid).rss;
  const spec = parseGenesis(genesis);
  const peerCommon = createCommon(spec, { customCrypto: customCrypto() });
  const genesisBlock = await rpc(signer.url, 'eth_getBlockByNumber', ['0x0', false]);
  // The library's own eth protocol computes its fork id from the Common.
  peerCommon.setForkHashes(hexToBytes(genesisBlock.hash));
  const clients = [];
  for (let i = 0; i < 25; i++) {
    const rlpx = new RLPx(key(`peer ${i}`), {
      capabilities: [ETH.eth68],
      common: peerCommon,
      maxPeers: 1,
      clientId: new TextEncoder().encode('alder-bench-peer'),
    });
    rlpx.events.on('peer:added', (peer) => {
      const eth = peer.getProtocols()[0];
      eth.sendStatus({
        td: new Uint8Array([1]),
        bestHash: hexToBytes(genesisBlock.hash),
        genesisHash: hexToBytes(genesisBlock.hash),
      });
    });
    rlpx.events.on('peer:error', () => {});
    rlpx.listen(0, '127.0.0.1');
    clients.push(rlpx);
    await rlpx
      .connect({ id: nodePublicKey(signer.key), address: '127.0.0.1', tcpPort: signer.p2pPort })
      .catch(() => {});
  }
  await untilTrue(async () => (await rpc(signer.url, 'net_peerCount')) === '0x19', 60).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 5000));
  const withPeers = memory(signer.proc.pid).rss;
  const count = Number(await rpc(signer.url, 'net_peerCount'));
  report([`RSS with ${count} peers`, `${fmt(withPeers)} MiB (${fmt(before)} MiB before they connected)`]);
  for (const c of clients) c.destroy();
  await stop(signer.proc);
}

console.log(table(['workload', 'Alder'], results));
if (!opt.keep) rmSync(work, { recursive: true, force: true });
process.exit(0);
