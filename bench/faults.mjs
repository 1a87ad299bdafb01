#!/usr/bin/env node
/**
 * Fault injection: SIGKILLs real `bin/alder` processes at random moments and checks what survives.
 *
 *   npm run faults -- --kills=100 [--scenario=mining,import,sync,bft,bft-net,engine] [--import-kills=10]
 *                     [--seed=1] [--engine=clique|ethash] [--bft=qbft|ibft2] [--sync-blocks=400]
 *                     [--sync-fork=cancun|shanghai]
 *
 * `--kills` is the number of kills per scenario (`--import-kills`, default a tenth of it, for import);
 * `--scenario` picks the scenarios (comma-separated; all of them by default).
 *
 * mining: a node seals blocks (Clique with a 1 s period by default; `--engine=ethash` mines the dev
 * network instead, whose first start builds a 16 MB ethash cache) while signed transfers flow from one
 * funded account to another. Between kills the harness records every head it was told about
 * (number → hash) and every receipt it was given. After each restart: every recorded head is still
 * canonical with the same hash, every recorded receipt comes back unchanged, the balances of sender and
 * recipient agree with the receipts (value and fees of every mined transfer), and the node answered
 * (restart time = spawn to first answer). Every other kill lands the moment a transfer's receipt is
 * first returned (its block just sealed and imported).
 *
 * import: `blocks import` of the rpc-compat chain is killed part-way; the restarted node must hold every
 * block the import had logged as imported, and a final import reaches the chain's head hash.
 *
 * sync: a source node holds a generated post-merge chain (`--sync-blocks` blocks of transfers, token
 * calls and storage writes, imported from RLP; Cancun from genesis, or `--sync-fork=shanghai`, whose
 * nodes start faster as they never load the KZG setup) and serves it over devp2p on 127.0.0.1; a
 * victim with the source as its only static node (discovery off) full-syncs from it and is killed
 * mid-sync. After each restart every head the victim had reported (eth_blockNumber, then that block's
 * hash) is still canonical with that hash and every receipt it had returned comes back unchanged (one
 * of the head's block, and one of the block above it when the node answers it while that block's
 * import is on its way); once it reaches the source's head, its head hash and state root must equal
 * the source's. A round ends there and the next one starts with an empty data directory, until
 * `--kills` kills have landed mid-sync.
 *
 * bft: a single validator (`--bft=qbft` by default, or `ibft2`) seals a block every second while
 * transfers flow: the same checks and kill moments as mining.
 *
 * bft-net: four validators of one network (real processes peered by static nodes) finalise a block
 * every second while transfers flow to them; one validator, picked at random, is killed at a random
 * moment and restarted after a random pause. While it is down the other three must keep finalising;
 * after its restart every head and receipt it had reported comes back unchanged, it catches up with
 * the others with identical hashes, and the balances on it agree with the receipts.
 *
 * engine: a post-merge (Cancun) node is driven over its engine API with JWT by the harness acting as
 * consensus client — forkchoiceUpdated with payload attributes, getPayload, newPayload,
 * forkchoiceUpdated to make it head — while transfers are sent in. Kills land at random moments: at a
 * random time while requests are in flight, or right after one of the four calls (every other kill
 * between newPayload and forkchoiceUpdated). After each restart every block the harness had made head
 * with a VALID forkchoiceUpdated is canonical with the same hash, receipts and balances agree, no
 * block that was only sent by newPayload (never in a forkchoiceUpdated) is canonical, the node's head
 * is one the harness made (or was making) head, `safe` and `finalized` are those of the last
 * forkchoiceUpdated that took effect, and the harness builds on from there — after every other kill
 * between newPayload and forkchoiceUpdated first making the block it had sent head (VALID if the node
 * kept it, else SYNCING and newPayload again).
 *
 * Prints one line per kill and a summary per scenario (kills survived, blocks lost, receipts lost,
 * restart p50/max). `runFaults` is also called by the bounded test in test/reliability.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { CANCUN_AT_GENESIS, generateChain, LONDON_AT_GENESIS } from './genchain.mjs';
import { freePort as anyFreePort, random, sleep } from './util.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/alder');
const RPC_COMPAT = resolve(ROOT, '../shared/conformance/rpc-compat');
const SENDER_KEY = '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63';
const RECIPIENT = '0x627306090abab3a6e1400e9345bc60c78a8bef57';
const COINBASE = '0x00000000000000000000000000000000000c0ffe';
const VALUE = 1_000_000_000_000n;
const SIGNER_KEY = '0xae6ae8e5ccbfb04590405997ee2d52d2b330726137b875053c36d94e974d162f';
const SIGNER = 'f17f52151ebef6c7334fad080c5704d77216b732';
const CLIQUE_CHAIN_ID = 4242;
const BFT_CHAIN_ID = 4343;
const ENGINE_CHAIN_ID = 4444;
const FUNDS = '0x3635c9adc5dea00000';
const ZERO32 = `0x${'00'.repeat(32)}`;

/** Ports handed out in this process: a port is free again until its node binds it, so never twice. */
const handedOut = new Set();
async function freePort() {
  for (;;) {
    const port = await anyFreePort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

const fundedAlloc = () => ({
  [privateKeyToAccount(SENDER_KEY).address]: { balance: FUNDS },
  [RECIPIENT]: { balance: '0x0' },
});

/** A Clique network sealed by SIGNER every second, with the sender and recipient funded. */
function cliqueNetwork(dir) {
  const genesis = {
    config: {
      chainId: CLIQUE_CHAIN_ID,
      ...LONDON_AT_GENESIS,
      clique: { blockperiodseconds: 1, epochlength: 30000 },
    },
    nonce: '0x0',
    timestamp: '0x0',
    gasLimit: '0x1c9c380',
    difficulty: '0x1',
    extraData: `0x${'00'.repeat(32)}${SIGNER}${'00'.repeat(65)}`,
    alloc: fundedAlloc(),
  };
  const genesisPath = join(dir, 'genesis.json');
  const keyPath = join(dir, 'signer.key');
  writeFileSync(genesisPath, JSON.stringify(genesis));
  writeFileSync(keyPath, SIGNER_KEY);
  return {
    chainId: CLIQUE_CHAIN_ID,
    args: [`--genesis-file=${genesisPath}`, `--node-private-key-file=${keyPath}`],
  };
}

/** The QBFT or IBFT 2.0 genesis of `validators` (addresses), one block a second. */
async function bftGenesisFor(consensus, validators) {
  const { bftGenesis } = await import(join(ROOT, 'dist/cli/devNetwork.js'));
  return bftGenesis(consensus, validators, {
    chainId: BFT_CHAIN_ID,
    blockPeriodSeconds: 1,
    requestTimeoutSeconds: 1,
    alloc: fundedAlloc(),
  });
}

/** A single-validator BFT network: SIGNER proposes and commits every block alone. */
async function bftNetwork(dir, consensus) {
  const genesisPath = join(dir, 'genesis.json');
  const keyPath = join(dir, 'signer.key');
  writeFileSync(genesisPath, JSON.stringify(await bftGenesisFor(consensus, [`0x${SIGNER}`])));
  writeFileSync(keyPath, SIGNER_KEY);
  return {
    chainId: BFT_CHAIN_ID,
    args: [`--genesis-file=${genesisPath}`, `--node-private-key-file=${keyPath}`],
  };
}

async function rpc(url, method, params = []) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(60_000),
  });
  const body = await r.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** The same method with each of `paramsList`, in JSON-RPC batches; the results in order. */
async function rpcMany(url, method, paramsList) {
  const results = [];
  for (let i = 0; i < paramsList.length; i += 500) {
    const chunk = paramsList.slice(i, i + 500);
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chunk.map((params, id) => ({ jsonrpc: '2.0', id, method, params }))),
      signal: AbortSignal.timeout(60_000),
    });
    const answers = await r.json();
    if (!Array.isArray(answers)) throw new Error(`${method}: ${JSON.stringify(answers).slice(0, 200)}`);
    answers.sort((a, b) => a.id - b.id);
    for (const a of answers) {
      if (a.error) throw new Error(`${method}: ${a.error.message}`);
      results.push(a.result);
    }
  }
  return results;
}

const hexNumber = (n) => `0x${n.toString(16)}`;

/** Every node this process started and that has not exited: stopped by PID if the run is interrupted. */
const children = new Set();

/**
 * Starts `alder` with args (P2P off unless `p2p`); resolves once it answers, with the time that took.
 */
async function startAlder(args, port, { p2p = false } = {}) {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...(p2p ? [] : ['--p2p-enabled=false']), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  child.stdout.on('data', (d) => {
    out = (out + d).slice(-20_000);
  });
  child.stderr.on('data', (d) => {
    out = (out + d).slice(-20_000);
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`alder exited with ${child.exitCode}:\n${out}`);
    try {
      await rpc(url, 'eth_chainId');
      break;
    } catch {
      if (Date.now() - started > 120_000) {
        child.kill('SIGKILL');
        throw new Error(`alder did not answer:\n${out}`);
      }
      await sleep(20);
    }
  }
  return { child, url, ms: Date.now() - started, output: () => out };
}

function kill(child) {
  return new Promise((res) => {
    if (child.exitCode !== null || child.signalCode !== null) return res();
    child.once('exit', () => res());
    process.kill(child.pid, 'SIGKILL');
  });
}

async function stop(child) {
  await new Promise((res) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return res();
    child.once('exit', () => res());
    process.kill(child.pid, 'SIGTERM');
    setTimeout(() => child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 15_000).unref();
  });
}

function percentile(values, p) {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Restart figures of a scenario's result. */
function withRestarts(result) {
  result.restartP50 = percentile(result.restartMs, 50);
  result.restartMax = Math.max(0, ...result.restartMs);
  return result;
}

/** Polls `probe` until it returns something other than undefined; throws after `ms`. */
async function until(what, probe, ms) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ''}`);
    await sleep(100);
  }
}

/**
 * Signed transfers of VALUE from the sender to the recipient, by nonce (a transfer lost with a killed
 * node's pool is sent again with the same bytes), with every receipt the harness was given.
 */
class Transfers {
  constructor(chainId) {
    this.chainId = chainId;
    this.account = privateKeyToAccount(SENDER_KEY);
    this.byNonce = new Map(); // nonce → { raw, hash }
    this.receipts = new Map(); // tx hash → receipt JSON, as returned
    this.pending = new Map(); // tx hash → nonce
    this.nonce = 0;
  }

  async sign(nonce) {
    let entry = this.byNonce.get(nonce);
    if (!entry) {
      const raw = await this.account.signTransaction({
        chainId: this.chainId,
        type: 'eip1559',
        nonce,
        to: RECIPIENT,
        value: VALUE,
        gas: 21_000n,
        maxFeePerGas: 20_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      });
      entry = { raw };
      this.byNonce.set(nonce, entry);
    }
    return entry.raw;
  }

  /** The balances before any transfer. */
  async initial(url) {
    this.start = {
      sender: BigInt(await rpc(url, 'eth_getBalance', [this.account.address, '0x0'])),
      recipient: BigInt(await rpc(url, 'eth_getBalance', [RECIPIENT, '0x0'])),
    };
  }

  /** Continues from the node's mined nonce (a restarted node's pool is empty). */
  async resume(url) {
    this.nonce = Number(await rpc(url, 'eth_getTransactionCount', [this.account.address, 'latest']));
    this.pending.clear();
  }

  /** Sends `count` transfers (resending what a killed node lost). */
  async send(url, count) {
    try {
      for (let i = 0; i < count; i++) {
        const raw = await this.sign(this.nonce);
        try {
          const hash = await rpc(url, 'eth_sendRawTransaction', [raw]);
          this.byNonce.get(this.nonce).hash = hash;
          this.pending.set(hash, this.nonce);
        } catch (err) {
          if (!/known|nonce too low|already/i.test(String(err.message))) throw err;
        }
        this.nonce++;
      }
    } catch (err) {
      if (!/nonce|Known|underpriced/i.test(String(err.message))) throw err;
      this.nonce = Number(await rpc(url, 'eth_getTransactionCount', [this.account.address, 'pending']));
    }
  }

  /** Records the receipts of pending transfers that have one now. */
  async poll(url) {
    for (const hash of [...this.pending.keys()]) {
      const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash]);
      if (receipt) {
        this.receipts.set(hash, JSON.stringify(receipt));
        this.pending.delete(hash);
      }
    }
  }

  /**
   * Polls the next pending transfer's receipt without pause until it is returned (true) or `ms` pass:
   * a kill right after lands as close as the harness can get to the moment the node first answers it.
   */
  async awaitNextReceipt(url, ms) {
    const [hash] = [...this.pending].sort((a, b) => a[1] - b[1])[0] ?? [];
    if (!hash) return false;
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash]);
      if (receipt) {
        this.receipts.set(hash, JSON.stringify(receipt));
        this.pending.delete(hash);
        return true;
      }
    }
    return false;
  }

  /** After a restart: receipts lost or changed, and whether the balances agree with the receipts. */
  async check(url) {
    const lostReceipts = await lostReceiptsOf(url, this.receipts);
    // Nonce and balances at one block: the node may import more meanwhile.
    const at = await rpc(url, 'eth_blockNumber');
    const mined = Number(await rpc(url, 'eth_getTransactionCount', [this.account.address, at]));
    let fees = 0n;
    let balanceOk = true;
    const hashes = [];
    for (let n = 0; n < mined; n++) hashes.push(this.byNonce.get(n)?.hash);
    if (hashes.includes(undefined)) balanceOk = false;
    else {
      for (const receipt of await rpcMany(
        url,
        'eth_getTransactionReceipt',
        hashes.map((h) => [h]),
      )) {
        if (!receipt) {
          balanceOk = false;
          break;
        }
        fees += BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
      }
    }
    const sender = BigInt(await rpc(url, 'eth_getBalance', [this.account.address, at]));
    const recipient = BigInt(await rpc(url, 'eth_getBalance', [RECIPIENT, at]));
    if (sender !== this.start.sender - BigInt(mined) * VALUE - fees) balanceOk = false;
    if (recipient !== this.start.recipient + BigInt(mined) * VALUE) balanceOk = false;
    return { lostReceipts, balanceOk, mined };
  }
}

/** Heads (number → hash) recorded on `url` that are no longer canonical there with that hash. */
async function lostHeads(url, heads) {
  const entries = [...heads];
  const blocks = await rpcMany(
    url,
    'eth_getBlockByNumber',
    entries.map(([number]) => [hexNumber(number), false]),
  );
  return blocks.filter((block, i) => block?.hash !== entries[i][1]).length;
}

/** Receipts (tx hash → JSON as returned) that `url` no longer returns identically. */
async function lostReceiptsOf(url, receipts) {
  const entries = [...receipts];
  const now = await rpcMany(
    url,
    'eth_getTransactionReceipt',
    entries.map(([hash]) => [hash]),
  );
  return now.filter((receipt, i) => JSON.stringify(receipt) !== entries[i][1]).length;
}

/**
 * Kills while one node seals with transfers flowing: `engine` is clique, ethash (mining) or qbft/ibft2
 * (a single validator sealing BFT rounds alone).
 */
async function sealKills({ kills, rand, log, minRunMs, maxRunMs, engine, label }) {
  const dir = mkdtempSync(join(tmpdir(), 'alder-faults-'));
  const port = await freePort();
  const network =
    engine === 'ethash'
      ? { chainId: 1337, args: ['--network=dev', '--miner-enabled', `--miner-coinbase=${COINBASE}`] }
      : engine === 'qbft' || engine === 'ibft2'
        ? await bftNetwork(dir, engine)
        : cliqueNetwork(dir);
  const args = [
    ...network.args,
    `--data-path=${join(dir, 'data')}`,
    '--rpc-http-enabled',
    '--rpc-http-host=127.0.0.1',
    `--rpc-http-port=${port}`,
  ];
  const transfers = new Transfers(network.chainId);
  const heads = new Map(); // number → hash, as reported
  const result = {
    kills: 0,
    survived: 0,
    blocksLost: 0,
    receiptsLost: 0,
    balanceErrors: 0,
    onReceipt: 0,
    restartMs: [],
  };
  let node = await startAlder(args, port);
  await transfers.initial(node.url);

  try {
    for (let k = 0; k < kills; k++) {
      // Run: send transfers (resending anything not yet mined), poll head and receipts. The first run
      // lasts until blocks are being mined (the first start builds the ethash cache).
      const runFor = minRunMs + rand() * (maxRunMs - minRunMs);
      let until = Date.now() + runFor;
      const warmingUp = k === 0;
      if (warmingUp) until = Date.now() + 300_000;
      await transfers.resume(node.url);
      while (Date.now() < until) {
        await transfers.send(node.url, 3);
        const head = await rpc(node.url, 'eth_getBlockByNumber', ['latest', false]);
        heads.set(Number(head.number), head.hash);
        await transfers.poll(node.url);
        if (warmingUp && transfers.receipts.size > 0 && Date.now() + runFor < until)
          until = Date.now() + runFor;
        await sleep(20 + rand() * 80);
      }
      // Every other kill lands the moment a receipt is first returned (its block just imported).
      let onReceipt = false;
      if (k % 2 === 1) {
        await transfers.send(node.url, 3);
        onReceipt = await transfers.awaitNextReceipt(node.url, 15_000);
      }
      await kill(node.child);
      result.kills++;
      if (onReceipt) result.onReceipt++;

      node = await startAlder(args, port);
      result.restartMs.push(node.ms);
      const lostBlocks = await lostHeads(node.url, heads);
      const { lostReceipts, balanceOk, mined } = await transfers.check(node.url);
      result.blocksLost += lostBlocks;
      result.receiptsLost += lostReceipts;
      if (!balanceOk) result.balanceErrors++;
      if (lostBlocks === 0 && lostReceipts === 0 && balanceOk) result.survived++;
      log(
        `${label} kill ${k + 1}/${kills}: restart ${node.ms} ms, heads ${heads.size}, receipts ${transfers.receipts.size}, transfers mined ${mined}, lost blocks ${lostBlocks}, lost receipts ${lostReceipts}, balances ${balanceOk ? 'agree' : 'DISAGREE'}`,
      );
    }
  } finally {
    await stop(node.child);
    rmSync(dir, { recursive: true, force: true });
  }
  return withRestarts(result);
}

/** Kills during `blocks import` of the rpc-compat chain. */
async function importKills({ kills, rand, log }) {
  const dir = mkdtempSync(join(tmpdir(), 'alder-faults-import-'));
  const base = [`--genesis-file=${join(RPC_COMPAT, 'genesis.json')}`, `--data-path=${dir}`];
  const importArgs = [
    ...base,
    '--logging=DEBUG',
    'blocks',
    'import',
    `--from=${join(RPC_COMPAT, 'chain.rlp')}`,
    '--skip-pow-validation-enabled',
  ];
  const result = { kills: 0, survived: 0, blocksLost: 0, restartMs: [] };
  const imported = new Map();
  try {
    for (let k = 0; k < kills; k++) {
      const child = spawn(process.execPath, [BIN, ...importArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      const target = 1 + Math.floor(rand() * 20);
      let seenNow = 0;
      await new Promise((res) => {
        const onData = (d) => {
          out += d;
          const lines = out.split('\n');
          out = lines.pop() ?? '';
          for (const line of lines) {
            if (!line.includes('Imported block')) continue;
            try {
              const entry = JSON.parse(line);
              imported.set(Number(entry.number), entry.hash);
              // Blocks a restarted import finds already there do not count: the kill lands among new ones.
              if (entry.result === 'imported') seenNow++;
            } catch {
              // not a log line
            }
          }
          if (seenNow >= target && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.on('exit', () => res());
      });
      result.kills++;
      const port = await freePort();
      const node = await startAlder(
        [...base, '--rpc-http-enabled', '--rpc-http-host=127.0.0.1', `--rpc-http-port=${port}`],
        port,
      );
      result.restartMs.push(node.ms);
      let lost = 0;
      for (const [number, hash] of imported) {
        const block = await rpc(node.url, 'eth_getBlockByNumber', [`0x${number.toString(16)}`, false]);
        if (!block || block.hash !== hash) lost++;
      }
      await stop(node.child);
      result.blocksLost += lost;
      if (lost === 0) result.survived++;
      log(
        `import kill ${k + 1}/${kills}: ${imported.size} blocks logged as imported, lost ${lost}, restart ${node.ms} ms`,
      );
    }
    // The import finishes from wherever the kills left it.
    const done = spawn(process.execPath, [BIN, ...importArgs.filter((a) => a !== '--logging=DEBUG')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    done.stdout.on('data', (d) => {
      text += d;
    });
    done.stderr.on('data', (d) => {
      text += d;
    });
    const code = await new Promise((res) => done.on('exit', (c) => res(c)));
    result.finalHead = /head is block (\d+) (0x[0-9a-f]{64})/.exec(text)?.slice(1, 3) ?? null;
    result.finalExit = code;
    log(`import completed: exit ${code}, ${text.trim().split('\n').pop()}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return withRestarts(result);
}

/** A node key (hex, no prefix) and the enode URL it has on 127.0.0.1:`port`. */
async function nodeIdentity(seed, port) {
  const { nodePublicKey } = await import(join(ROOT, 'dist/crypto/nodeKey.js'));
  const key = Buffer.alloc(32, seed);
  const id = Buffer.from(nodePublicKey(new Uint8Array(key))).toString('hex');
  return { key: `0x${key.toString('hex')}`, enode: `enode://${id}@127.0.0.1:${port}` };
}

/** Runs `alder` to completion; resolves with its exit code and output. */
function runAlder(args) {
  return new Promise((res) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    child.once('exit', () => children.delete(child));
    let out = '';
    child.stdout.on('data', (d) => {
      out = (out + d).slice(-20_000);
    });
    child.stderr.on('data', (d) => {
      out = (out + d).slice(-20_000);
    });
    child.on('exit', (code) => res({ code, out }));
  });
}

/**
 * Kills a node while it full-syncs over devp2p from a source node holding a generated chain; rounds
 * start from an empty data directory until `kills` kills have landed before the victim's head reached
 * the source's.
 */
async function syncKills({ kills, rand, log, minRunMs, maxRunMs, blocks, fork }) {
  const dir = mkdtempSync(join(tmpdir(), 'alder-faults-sync-'));
  const result = {
    kills: 0,
    survived: 0,
    blocksLost: 0,
    receiptsLost: 0,
    rounds: 0,
    synced: 0,
    finalMismatches: 0,
    aboveHead: 0,
    restartMs: [],
  };
  let source;
  let victim;
  try {
    const chain = join(dir, 'chain');
    await generateChain({ blocks, txsPerBlock: 8, accounts: 16, cancun: fork !== 'shanghai', outDir: chain });
    log(`sync: generated ${blocks} ${fork} blocks`);
    const genesis = join(chain, 'genesis.json');
    const sourceDir = join(dir, 'source');
    const imported = await runAlder([
      `--genesis-file=${genesis}`,
      `--data-path=${sourceDir}`,
      'blocks',
      'import',
      `--from=${join(chain, 'chain.rlp')}`,
    ]);
    if (imported.code !== 0) throw new Error(`import into the source failed:\n${imported.out}`);
    log('sync: imported them into the source');
    const sourceP2p = await freePort();
    const sourceId = await nodeIdentity(0x5a, sourceP2p);
    writeFileSync(join(sourceDir, 'key'), sourceId.key);
    const p2pArgs = (p2pPort) => [
      `--genesis-file=${genesis}`,
      '--p2p-interface=127.0.0.1',
      `--p2p-port=${p2pPort}`,
      '--discovery-enabled=false',
      '--rpc-http-enabled',
      '--rpc-http-host=127.0.0.1',
    ];
    const sourcePort = await freePort();
    source = await startAlder(
      [
        ...p2pArgs(sourceP2p),
        `--data-path=${sourceDir}`,
        `--rpc-http-port=${sourcePort}`,
        `--engine-rpc-port=${await freePort()}`,
      ],
      sourcePort,
      { p2p: true },
    );
    const target = await rpc(source.url, 'eth_getBlockByNumber', ['latest', false]);
    const targetNumber = Number(target.number);
    log(`sync: the source serves ${targetNumber} blocks`);

    while (result.kills < kills) {
      // A round: an empty victim, killed mid-sync until it reaches the source's head.
      result.rounds++;
      const victimDir = join(dir, `victim-${result.rounds}`);
      mkdirSync(victimDir);
      writeFileSync(join(victimDir, 'static-nodes.json'), JSON.stringify([sourceId.enode]));
      const port = await freePort();
      const args = [
        ...p2pArgs(await freePort()),
        `--data-path=${victimDir}`,
        `--rpc-http-port=${port}`,
        `--engine-rpc-port=${await freePort()}`,
      ];
      const heads = new Map(); // number → hash, as reported
      const receipts = new Map(); // tx hash → receipt JSON, as returned
      victim = await startAlder(args, port, { p2p: true });
      let reached = false;
      let from = 0;
      while (!reached && result.kills < kills) {
        // The random run starts once the (re)started victim imports again, so the kill lands mid-sync.
        from = await until(
          'the victim importing',
          async () => {
            const n = Number(await rpc(victim.url, 'eth_blockNumber'));
            return n > from || n >= targetNumber ? n : undefined;
          },
          60_000,
        );
        // Half the runs short, half up to four times longer: kills early and late in the chain.
        const u = rand();
        const runFor = u < 0.5 ? minRunMs + 2 * u * (maxRunMs - minRunMs) : maxRunMs * (1 + 6 * (u - 0.5));
        const runUntil = Date.now() + runFor;
        while (Date.now() < runUntil) {
          const number = Number(await rpc(victim.url, 'eth_blockNumber'));
          if (number > 0) {
            const block = await rpc(victim.url, 'eth_getBlockByNumber', [hexNumber(number), false]);
            // The head may have moved between the two calls: a block at that height is canonical now.
            heads.set(number, block.hash);
            const tx = block.transactions[0];
            if (tx)
              receipts.set(tx, JSON.stringify(await rpc(victim.url, 'eth_getTransactionReceipt', [tx])));
            // A receipt of the block above the head, when the node answers one (the block's import is
            // on its way): returned is returned, so it too must come back after the kill.
            const next = await rpc(victim.url, 'eth_getBlockByNumber', [hexNumber(number + 1), false]);
            const nextTx = next?.transactions[0];
            const early = nextTx ? await rpc(victim.url, 'eth_getTransactionReceipt', [nextTx]) : null;
            if (early) {
              receipts.set(nextTx, JSON.stringify(early));
              result.aboveHead++;
            }
          }
          if (number >= targetNumber) {
            reached = true;
            break;
          }
          await sleep(20 + rand() * 60);
        }
        if (reached) break;
        from = Math.max(0, ...heads.keys());
        await kill(victim.child);
        result.kills++;
        victim = await startAlder(args, port, { p2p: true });
        result.restartMs.push(victim.ms);
        const lostBlocks = await lostHeads(victim.url, heads);
        const lostReceipts = await lostReceiptsOf(victim.url, receipts);
        result.blocksLost += lostBlocks;
        result.receiptsLost += lostReceipts;
        if (lostBlocks === 0 && lostReceipts === 0) result.survived++;
        const at = Math.max(0, ...heads.keys());
        log(
          `sync kill ${result.kills}/${kills} (round ${result.rounds}, at block ${at}/${targetNumber}): restart ${victim.ms} ms, heads ${heads.size}, receipts ${receipts.size}, lost blocks ${lostBlocks}, lost receipts ${lostReceipts}`,
        );
      }
      // The round ends with the victim at the source's head: same hash, same state root.
      const head = await until(
        'the victim at the source head',
        async () => {
          const b = await rpc(victim.url, 'eth_getBlockByNumber', ['latest', false]);
          return Number(b.number) >= targetNumber ? b : undefined;
        },
        180_000,
      );
      result.synced++;
      const same = head.hash === target.hash && head.stateRoot === target.stateRoot;
      if (!same) result.finalMismatches++;
      log(
        `sync round ${result.rounds}: at the source head ${head.number} ${head.hash}, state root ${same ? 'equal' : `DIFFERS (${head.stateRoot} vs ${target.stateRoot})`}`,
      );
      await stop(victim.child);
      victim = undefined;
      rmSync(victimDir, { recursive: true, force: true });
    }
  } finally {
    await stop(victim?.child);
    await stop(source?.child);
    rmSync(dir, { recursive: true, force: true });
  }
  return withRestarts(result);
}

/**
 * Kills one validator of a four-validator BFT network at a time while transfers flow; the other three
 * must keep finalising, and the killed one must come back with everything it had reported and catch up.
 */
async function bftNetKills({ kills, rand, log, minRunMs, maxRunMs, consensus }) {
  const dir = mkdtempSync(join(tmpdir(), 'alder-faults-bft-'));
  const result = {
    kills: 0,
    survived: 0,
    blocksLost: 0,
    receiptsLost: 0,
    balanceErrors: 0,
    stalls: 0,
    forks: 0,
    restartMs: [],
  };
  const nodes = [];
  try {
    for (let i = 0; i < 4; i++) {
      const p2pPort = await freePort();
      const id = await nodeIdentity(0x61 + i, p2pPort);
      const nodeDir = join(dir, `validator-${i}`);
      mkdirSync(nodeDir);
      writeFileSync(join(nodeDir, 'key'), id.key);
      nodes.push({ i, dir: nodeDir, p2pPort, ...id, address: privateKeyToAccount(id.key).address });
    }
    const genesisPath = join(dir, 'genesis.json');
    writeFileSync(
      genesisPath,
      JSON.stringify(
        await bftGenesisFor(
          consensus,
          nodes.map((n) => n.address),
        ),
      ),
    );
    for (const n of nodes) {
      writeFileSync(
        join(n.dir, 'static-nodes.json'),
        JSON.stringify(nodes.filter((o) => o !== n).map((o) => o.enode)),
      );
      n.port = await freePort();
      n.args = [
        `--genesis-file=${genesisPath}`,
        `--data-path=${n.dir}`,
        '--p2p-interface=127.0.0.1',
        `--p2p-port=${n.p2pPort}`,
        '--discovery-enabled=false',
        '--rpc-http-enabled',
        '--rpc-http-host=127.0.0.1',
        `--rpc-http-port=${n.port}`,
      ];
      n.heads = new Map(); // number → hash, as this node reported
      n.receipts = new Map(); // tx hash → receipt JSON, as this node returned
    }
    await Promise.all(
      nodes.map(async (n) => {
        n.proc = await startAlder(n.args, n.port, { p2p: true });
      }),
    );
    const head = async (n) => Number(await rpc(n.proc.url, 'eth_blockNumber'));
    await until(
      'block 2 on every validator',
      async () => ((await Promise.all(nodes.map(head))).every((h) => h >= 2) ? true : undefined),
      60_000,
    );
    const transfers = new Transfers(BFT_CHAIN_ID);
    await transfers.initial(nodes[0].proc.url);

    /** Records a node's head and the receipts of the transfers it has mined. */
    const observe = async (n) => {
      const block = await rpc(n.proc.url, 'eth_getBlockByNumber', ['latest', false]);
      n.heads.set(Number(block.number), block.hash);
      for (const hash of transfers.receipts.keys()) {
        if (n.receipts.has(hash)) continue;
        const receipt = await rpc(n.proc.url, 'eth_getTransactionReceipt', [hash]);
        if (receipt) n.receipts.set(hash, JSON.stringify(receipt));
      }
    };

    for (let k = 0; k < kills; k++) {
      const victim = nodes[Math.floor(rand() * nodes.length)];
      const others = nodes.filter((n) => n !== victim);
      const entry = others[Math.floor(rand() * others.length)];
      // Run: transfers to a live validator, every node's head and receipts observed.
      await transfers.resume(entry.proc.url);
      const runUntil = Date.now() + minRunMs + rand() * (maxRunMs - minRunMs);
      while (Date.now() < runUntil) {
        await transfers.send(entry.proc.url, 2);
        await transfers.poll(entry.proc.url);
        for (const n of nodes) await observe(n);
        await sleep(50 + rand() * 100);
      }
      await kill(victim.proc.child);
      result.kills++;
      // Down for a while: the other three keep finalising.
      const downHeight = Math.max(...(await Promise.all(others.map(head))));
      await sleep(500 + rand() * 1500);
      let stalled = false;
      try {
        await until(
          'the others finalising without the killed validator',
          async () => ((await Promise.all(others.map(head))).every((h) => h > downHeight) ? true : undefined),
          30_000,
        );
      } catch {
        stalled = true;
        result.stalls++;
      }
      victim.proc = await startAlder(victim.args, victim.port, { p2p: true });
      result.restartMs.push(victim.proc.ms);
      const lostBlocks = await lostHeads(victim.proc.url, victim.heads);
      const lostReceipts = await lostReceiptsOf(victim.proc.url, victim.receipts);
      // It catches up with the others: identical hashes up to their height when it restarted.
      const catchUp = Math.max(...(await Promise.all(others.map(head))));
      let forked = 0;
      try {
        await until(
          'the restarted validator caught up',
          async () => ((await head(victim)) >= catchUp ? true : undefined),
          60_000,
        );
        const from = Math.max(1, catchUp - 20);
        for (let b = from; b <= catchUp; b++) {
          const hashes = await Promise.all(
            nodes.map(
              async (n) => (await rpc(n.proc.url, 'eth_getBlockByNumber', [hexNumber(b), false]))?.hash,
            ),
          );
          if (new Set(hashes).size !== 1) forked++;
        }
        for (const n of others) forked += await lostHeads(victim.proc.url, n.heads);
      } catch {
        forked++;
      }
      if (forked > 0) result.forks++;
      const { balanceOk, mined } = await transfers.check(victim.proc.url);
      result.blocksLost += lostBlocks;
      result.receiptsLost += lostReceipts;
      if (!balanceOk) result.balanceErrors++;
      if (lostBlocks === 0 && lostReceipts === 0 && balanceOk && !stalled && forked === 0) result.survived++;
      log(
        `bft-net kill ${k + 1}/${kills} (validator ${victim.i}): restart ${victim.proc.ms} ms, others ${stalled ? 'STALLED' : 'kept finalising'}, caught up to ${catchUp} ${forked === 0 ? 'with identical hashes' : `with ${forked} DIFFERENT hashes`}, heads ${victim.heads.size}, receipts ${victim.receipts.size}, transfers mined ${mined}, lost blocks ${lostBlocks}, lost receipts ${lostReceipts}, balances ${balanceOk ? 'agree' : 'DISAGREE'}`,
      );
    }
  } finally {
    await Promise.all(nodes.map((n) => stop(n.proc?.child)));
    rmSync(dir, { recursive: true, force: true });
  }
  return withRestarts(result);
}

const JWT_SECRET = 'fa'.repeat(32);

/** An HS256 token with a fresh `iat`, as a consensus client sends with every request. */
function jwt() {
  const part = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const data = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ iat: Math.floor(Date.now() / 1000) })}`;
  const sig = createHmac('sha256', Buffer.from(JWT_SECRET, 'hex')).update(data).digest('base64url');
  return `${data}.${sig}`;
}

async function engineCall(url, method, params) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt()}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(60_000),
  });
  if (r.status !== 200) throw new Error(`${method}: HTTP ${r.status}`);
  const body = await r.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** A Cancun-at-genesis chain for the engine scenario, the sender and recipient funded. */
function engineGenesis() {
  return {
    config: { chainId: ENGINE_CHAIN_ID, ...CANCUN_AT_GENESIS },
    nonce: '0x0',
    timestamp: '0x0',
    extraData: '0x',
    gasLimit: '0x1c9c380',
    difficulty: '0x0',
    mixHash: ZERO32,
    coinbase: `0x${'00'.repeat(20)}`,
    baseFeePerGas: '0x3b9aca00',
    excessBlobGas: '0x0',
    blobGasUsed: '0x0',
    alloc: fundedAlloc(),
  };
}

/** Where a kill lands in the engine scenario. */
const ENGINE_PHASES = [
  'in-flight',
  'after-fcu-attributes',
  'after-getPayload',
  'after-newPayload',
  'after-fcu',
];

/**
 * Kills a post-merge node driven over the engine API. The harness is its consensus client: each slot
 * forkchoiceUpdated with attributes on the head, getPayload, newPayload, forkchoiceUpdated to the new
 * block.
 */
async function engineKills({ kills, rand, log, minRunMs, maxRunMs }) {
  const dir = mkdtempSync(join(tmpdir(), 'alder-faults-engine-'));
  const genesisPath = join(dir, 'genesis.json');
  const secretPath = join(dir, 'jwt.hex');
  writeFileSync(genesisPath, JSON.stringify(engineGenesis()));
  writeFileSync(secretPath, `0x${JWT_SECRET}\n`);
  const port = await freePort();
  const enginePort = await freePort();
  const engineUrl = `http://127.0.0.1:${enginePort}`;
  const args = [
    `--genesis-file=${genesisPath}`,
    `--data-path=${join(dir, 'data')}`,
    '--rpc-http-enabled',
    '--rpc-http-host=127.0.0.1',
    `--rpc-http-port=${port}`,
    `--engine-rpc-port=${enginePort}`,
    `--engine-jwt-secret=${secretPath}`,
  ];
  const result = {
    kills: 0,
    survived: 0,
    blocksLost: 0,
    receiptsLost: 0,
    balanceErrors: 0,
    unconfirmedCanonical: 0,
    resumedPayloads: { kept: 0, 'sent again': 0 },
    resumeErrors: 0,
    badHeads: 0,
    forkchoiceLost: 0,
    phases: Object.fromEntries(ENGINE_PHASES.map((p) => [p, 0])),
    restartMs: [],
  };
  const transfers = new Transfers(ENGINE_CHAIN_ID);
  const confirmed = new Map(); // number → hash: made head by a VALID forkchoiceUpdated
  const newPayloadOnly = new Map(); // hash → number: sent by newPayload, not (yet) in a forkchoiceUpdated
  const fcuSent = new Set(); // hashes a forkchoiceUpdated was sent for (answered or not)
  let finalizedMade = ZERO32; // the finalized block of the last VALID forkchoiceUpdated
  const finalizedSent = new Set(); // finalized blocks of forkchoiceUpdated calls sent since, unanswered
  const forkchoice = async (state, attributes) => {
    finalizedSent.add(state.finalizedBlockHash);
    const answer = await engineCall(engineUrl, 'engine_forkchoiceUpdatedV3', [state, attributes]);
    if (answer.payloadStatus.status === 'VALID') {
      finalizedMade = state.finalizedBlockHash;
      finalizedSent.clear();
    }
    return answer;
  };
  let node = await startAlder(args, port);
  await transfers.initial(node.url);
  const genesis = await rpc(node.url, 'eth_getBlockByNumber', ['0x0', false]);
  let head = { hash: genesis.hash, number: 0, timestamp: Number(genesis.timestamp) };
  const byHash = new Map([[genesis.hash, head]]);

  let lastPayload; // the block sent by newPayload right before a kill, with what it took to send it

  /** One slot; `stopAt` names the phase after which it returns early (for a kill there). */
  const slot = async (stopAt) => {
    const timestamp = head.timestamp + 12;
    const beaconRoot = `0x${createHmac('sha256', 'beacon').update(`${head.hash}${timestamp}`).digest('hex')}`;
    const finalized = confirmed.get(head.number - 8) ?? ZERO32;
    const fcu = await forkchoice(
      { headBlockHash: head.hash, safeBlockHash: head.hash, finalizedBlockHash: finalized },
      {
        timestamp: hexNumber(timestamp),
        prevRandao: beaconRoot,
        suggestedFeeRecipient: COINBASE,
        withdrawals: [],
        parentBeaconBlockRoot: beaconRoot,
      },
    );
    if (fcu.payloadStatus.status !== 'VALID' || !fcu.payloadId)
      throw new Error(`forkchoiceUpdated with attributes: ${JSON.stringify(fcu)}`);
    if (stopAt === 'after-fcu-attributes') return;
    // Give the builder a moment to take in the transfers sent meanwhile.
    await sleep(30 + rand() * 120);
    const built = await engineCall(engineUrl, 'engine_getPayloadV3', [fcu.payloadId]);
    if (stopAt === 'after-getPayload') return;
    const payload = built.executionPayload;
    const block = { hash: payload.blockHash, number: Number(payload.blockNumber), timestamp };
    byHash.set(block.hash, block);
    newPayloadOnly.set(block.hash, block.number);
    const status = await engineCall(engineUrl, 'engine_newPayloadV3', [payload, [], beaconRoot]);
    if (status.status !== 'VALID') throw new Error(`newPayload: ${JSON.stringify(status)}`);
    if (stopAt === 'after-newPayload') {
      lastPayload = { payload, beaconRoot, block, finalized };
      return;
    }
    fcuSent.add(block.hash);
    newPayloadOnly.delete(block.hash);
    const made = await forkchoice(
      { headBlockHash: block.hash, safeBlockHash: block.hash, finalizedBlockHash: finalized },
      null,
    );
    if (made.payloadStatus.status !== 'VALID') throw new Error(`forkchoiceUpdated: ${JSON.stringify(made)}`);
    confirmed.set(block.number, block.hash);
    head = block;
  };

  try {
    for (let k = 0; k < kills; k++) {
      // Between newPayload and forkchoiceUpdated is the interesting moment: every other kill lands
      // there, the rest at random over the other phases.
      const others = ENGINE_PHASES.filter((p) => p !== 'after-newPayload');
      const where = k % 2 === 0 ? 'after-newPayload' : others[Math.floor(rand() * others.length)];
      result.phases[where]++;
      await transfers.resume(node.url);
      const runUntil = Date.now() + minRunMs + rand() * (maxRunMs - minRunMs);
      if (where === 'in-flight') {
        // The kill lands whenever its timer fires, whatever request is on its way.
        const child = node.child;
        const timer = sleep(runUntil - Date.now()).then(() => kill(child));
        try {
          for (;;) {
            await transfers.send(node.url, 2);
            await slot();
            await transfers.poll(node.url);
          }
        } catch (err) {
          await timer;
          if (child.signalCode !== 'SIGKILL') throw err;
        }
      } else {
        while (Date.now() < runUntil) {
          await transfers.send(node.url, 2);
          await slot();
          await transfers.poll(node.url);
        }
        await transfers.send(node.url, 2);
        await slot(where);
        await kill(node.child);
      }
      result.kills++;

      node = await startAlder(args, port);
      result.restartMs.push(node.ms);
      const lostBlocks = await lostHeads(node.url, confirmed);
      let unconfirmed = 0;
      for (const [hash, number] of newPayloadOnly) {
        const block = await rpc(node.url, 'eth_getBlockByNumber', [hexNumber(number), false]);
        if (block?.hash === hash) unconfirmed++;
      }
      // The node's head: the harness's head, or a block whose forkchoiceUpdated was on its way.
      const latest = await rpc(node.url, 'eth_getBlockByNumber', ['latest', false]);
      const badHead = latest.hash !== head.hash && !fcuSent.has(latest.hash);
      if (!badHead && latest.hash !== head.hash) {
        head = byHash.get(latest.hash);
        confirmed.set(head.number, head.hash);
      }
      // Safe and finalized as the last forkchoiceUpdated that took effect set them.
      const tagged = async (tag) => {
        try {
          return (await rpc(node.url, 'eth_getBlockByNumber', [tag, false]))?.hash;
        } catch {
          return undefined;
        }
      };
      const safe = await tagged('safe');
      const finalized = await tagged('finalized');
      const forkchoiceLost =
        safe !== latest.hash ||
        (finalizedMade !== ZERO32 && finalized !== finalizedMade && !finalizedSent.has(finalized));
      const { lostReceipts, balanceOk, mined } = await transfers.check(node.url);
      result.blocksLost += lostBlocks;
      result.receiptsLost += lostReceipts;
      result.unconfirmedCanonical += unconfirmed;
      if (forkchoiceLost) result.forkchoiceLost++;
      if (badHead) result.badHeads++;
      if (!balanceOk) result.balanceErrors++;
      if (
        lostBlocks === 0 &&
        lostReceipts === 0 &&
        balanceOk &&
        unconfirmed === 0 &&
        !badHead &&
        !forkchoiceLost
      )
        result.survived++;
      log(
        `engine kill ${k + 1}/${kills} (${where}): restart ${node.ms} ms, head ${latest.number}${badHead ? ' NOT ONE THE DRIVER MADE' : ''}, heads ${confirmed.size}, receipts ${transfers.receipts.size}, transfers mined ${mined}, lost blocks ${lostBlocks}, lost receipts ${lostReceipts}, canonical without forkchoiceUpdated ${unconfirmed}, safe/finalized ${forkchoiceLost ? `LOST (${safe} ${finalized})` : 'kept'}, balances ${balanceOk ? 'agree' : 'DISAGREE'}`,
      );
      if (badHead) break;
      // Every other kill between newPayload and forkchoiceUpdated, the harness makes that block head
      // after the restart, as a consensus client that had it would: if the node kept it the
      // forkchoiceUpdated is VALID at once, else SYNCING, and newPayload again makes it importable.
      if (where === 'after-newPayload' && k % 4 === 0 && lastPayload) {
        const { payload, beaconRoot, block, finalized } = lastPayload;
        lastPayload = undefined;
        const state = { headBlockHash: block.hash, safeBlockHash: block.hash, finalizedBlockHash: finalized };
        fcuSent.add(block.hash);
        newPayloadOnly.delete(block.hash);
        let made = await forkchoice(state, null);
        let how = 'kept';
        if (made.payloadStatus.status === 'SYNCING') {
          how = 'sent again';
          const status = await engineCall(engineUrl, 'engine_newPayloadV3', [payload, [], beaconRoot]);
          if (status.status === 'VALID') made = await forkchoice(state, null);
        }
        if (made.payloadStatus.status === 'VALID') {
          confirmed.set(block.number, block.hash);
          head = block;
          result.resumedPayloads[how]++;
        } else result.resumeErrors++;
        log(
          `engine: the block sent before the kill made head after the restart (${how}): ${made.payloadStatus.status}`,
        );
      }
    }
    // The driver builds on from the restarted node's head.
    await transfers.resume(node.url);
    await transfers.send(node.url, 2);
    const before = head.number;
    await slot();
    result.builtOn = head.number === before + 1;
  } finally {
    await stop(node.child);
    rmSync(dir, { recursive: true, force: true });
  }
  return withRestarts(result);
}

export const SCENARIOS = ['mining', 'import', 'sync', 'bft', 'bft-net', 'engine'];

/**
 * Runs the chosen scenarios (`mining` and `import` unless told), `kills` kills each (`importKills` for
 * import). Each scenario's result carries its restart p50/max; the overall figures cover them all.
 */
export async function runFaults({
  scenarios = ['mining', 'import'],
  kills = 5,
  importKills: importKillCount = 1,
  seed = 1,
  log = () => {},
  minRunMs = 500,
  maxRunMs = 3000,
  engine = 'clique',
  bft = 'qbft',
  syncBlocks = 400,
  syncFork = 'cancun',
} = {}) {
  const rand = random(seed);
  const unknown = scenarios.filter((s) => !SCENARIOS.includes(s));
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')} (${SCENARIOS.join(', ')})`);
  const r = {};
  if (scenarios.includes('mining'))
    r.mining = await sealKills({ kills, rand, log, minRunMs, maxRunMs, engine, label: 'mining' });
  if (scenarios.includes('import') && importKillCount > 0)
    r.imports = await importKills({ kills: importKillCount, rand, log });
  if (scenarios.includes('sync'))
    r.sync = await syncKills({ kills, rand, log, minRunMs, maxRunMs, blocks: syncBlocks, fork: syncFork });
  if (scenarios.includes('bft'))
    r.bft = await sealKills({ kills, rand, log, minRunMs, maxRunMs, engine: bft, label: bft });
  if (scenarios.includes('bft-net'))
    r.bftNet = await bftNetKills({ kills, rand, log, minRunMs, maxRunMs, consensus: bft });
  if (scenarios.includes('engine')) r.engine = await engineKills({ kills, rand, log, minRunMs, maxRunMs });
  const restartMs = Object.values(r).flatMap((s) => s.restartMs);
  r.restartP50 = percentile(restartMs, 50);
  r.restartMax = Math.max(0, ...restartMs);
  return r;
}

/** The summary lines of a run, and whether anything was lost. */
export function summarize(r) {
  const lines = [];
  const restarts = (s) => `restart p50 ${s.restartP50} ms, max ${s.restartMax} ms`;
  const base = (name, s) =>
    `${name}: ${s.survived}/${s.kills} kills survived, blocks lost ${s.blocksLost}, receipts lost ${s.receiptsLost ?? 0}`;
  let failed = false;
  if (r.mining) {
    const m = r.mining;
    lines.push(
      `${base('mining', m)}, balance disagreements ${m.balanceErrors}, ${restarts(m)} (${m.onReceipt ?? 0} kills the moment a receipt was first returned)`,
    );
    failed ||= m.blocksLost + m.receiptsLost + m.balanceErrors > 0;
  }
  if (r.imports) {
    const i = r.imports;
    lines.push(
      `import: ${i.survived}/${i.kills} kills survived, blocks lost ${i.blocksLost}, final head ${i.finalHead?.join(' ') ?? 'none'}, ${restarts(i)}`,
    );
    failed ||= i.blocksLost > 0 || i.finalExit !== 0;
  }
  if (r.sync) {
    const s = r.sync;
    lines.push(
      `${base('sync', s)}, receipts returned above the reported head ${s.aboveHead}, rounds ${s.rounds}, at the source head ${s.synced} (hash or state root different ${s.finalMismatches}), ${restarts(s)}`,
    );
    failed ||= s.blocksLost + s.receiptsLost + s.finalMismatches > 0 || s.synced !== s.rounds;
  }
  if (r.bft) {
    const b = r.bft;
    lines.push(
      `${base('bft', b)}, balance disagreements ${b.balanceErrors}, ${restarts(b)} (${b.onReceipt ?? 0} kills the moment a receipt was first returned)`,
    );
    failed ||= b.blocksLost + b.receiptsLost + b.balanceErrors > 0;
  }
  if (r.bftNet) {
    const b = r.bftNet;
    lines.push(
      `${base('bft-net', b)}, balance disagreements ${b.balanceErrors}, stalls ${b.stalls}, catch-ups with different hashes ${b.forks}, ${restarts(b)}`,
    );
    failed ||= b.blocksLost + b.receiptsLost + b.balanceErrors + b.stalls + b.forks > 0;
  }
  if (r.engine) {
    const e = r.engine;
    const phases = Object.entries(e.phases)
      .map(([p, n]) => `${p} ${n}`)
      .join(', ');
    lines.push(
      `${base('engine', e)}, balance disagreements ${e.balanceErrors}, canonical without forkchoiceUpdated ${e.unconfirmedCanonical}, heads not made by the driver ${e.badHeads}, safe/finalized lost ${e.forkchoiceLost}, blocks sent before a kill made head after it ${e.resumedPayloads.kept} kept + ${e.resumedPayloads['sent again']} sent again (failed ${e.resumeErrors}), built on after the last restart ${e.builtOn ? 'yes' : 'NO'}, ${restarts(e)} (kills: ${phases})`,
    );
    failed ||=
      e.blocksLost +
        e.receiptsLost +
        e.balanceErrors +
        e.unconfirmedCanonical +
        e.badHeads +
        e.forkchoiceLost +
        e.resumeErrors >
        0 || !e.builtOn;
  }
  lines.push(`restart time: p50 ${r.restartP50} ms, max ${r.restartMax} ms`);
  return { lines, failed };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // Ctrl-C or a kill: the nodes this run started go with it (by PID).
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.on(signal, () => {
      for (const child of children) if (child.exitCode === null) process.kill(child.pid, 'SIGKILL');
      process.exit(130);
    });
  const option = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const arg = (name, fallback) => (option(name) === undefined ? fallback : Number(option(name)));
  const kills = arg('kills', 100);
  const seed = arg('seed', Date.now() % 100000);
  console.log(`seed ${seed} (--seed=${seed} repeats the run's random choices)`);
  const r = await runFaults({
    scenarios: (option('scenario') ?? SCENARIOS.join(',')).split(',').filter(Boolean),
    kills,
    importKills: arg('import-kills', Math.max(1, Math.round(kills / 10))),
    seed,
    engine: option('engine') ?? 'clique',
    bft: option('bft') ?? 'qbft',
    syncBlocks: arg('sync-blocks', 400),
    syncFork: option('sync-fork') ?? 'cancun',
    log: (line) => console.log(line),
  });
  const { lines, failed } = summarize(r);
  console.log('');
  for (const line of lines) console.log(line);
  process.exit(failed ? 1 : 0);
}
