#!/usr/bin/env node
/**
 * Fault injection: SIGKILLs a real `bin/alder` at random moments and checks what survives.
 *
 *   npm run faults -- --kills=100 [--import-kills=10] [--seed=1] [--engine=clique|ethash]
 *
 * Mining: a node seals blocks (Clique with a 1 s period by default; `--engine=ethash` mines the dev
 * network instead, whose first start builds a 16 MB ethash cache) while signed transfers flow from one
 * funded account to another. Between kills
 * the harness records every head it was told about (number → hash) and every receipt it was given.
 * After each restart: every recorded head is still canonical with the same hash, every recorded receipt
 * comes back unchanged, the balances of sender and recipient agree with the receipts (value and fees of
 * every mined transfer), and the node answered (restart time = spawn to first answer).
 *
 * Import: `blocks import` of the rpc-compat chain is killed part-way; the restarted node must hold every
 * block the import had logged as imported, and a final import reaches the chain's head hash.
 *
 * Prints one line per kill and a summary (kills survived, blocks lost, receipts lost, restart p50/max).
 * `runFaults` is also called by the bounded test in test/reliability.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { LONDON_AT_GENESIS } from './genchain.mjs';
import { freePort, random, sleep } from './util.mjs';

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
    alloc: {
      [privateKeyToAccount(SENDER_KEY).address]: { balance: '0x3635c9adc5dea00000' },
      [RECIPIENT]: { balance: '0x0' },
    },
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

async function rpc(url, method, params = []) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = await r.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Starts `alder` with args; resolves once it answers, with the time that took. */
async function startAlder(args, port) {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, '--p2p-enabled=false', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
    if (child.exitCode !== null || child.signalCode !== null) return res();
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

/** Kills while mining with transfers flowing. */
async function mineKills({ kills, rand, log, minRunMs, maxRunMs, engine }) {
  const dir = mkdtempSync(join(tmpdir(), 'alder-faults-'));
  const port = await freePort();
  const network =
    engine === 'ethash'
      ? { chainId: 1337, args: ['--network=dev', '--miner-enabled', `--miner-coinbase=${COINBASE}`] }
      : cliqueNetwork(dir);
  const args = [
    ...network.args,
    `--data-path=${join(dir, 'data')}`,
    '--rpc-http-enabled',
    '--rpc-http-host=127.0.0.1',
    `--rpc-http-port=${port}`,
  ];
  const account = privateKeyToAccount(SENDER_KEY);
  const heads = new Map(); // number → hash, as reported
  const receipts = new Map(); // tx hash → receipt JSON, as returned
  const rawByNonce = new Map(); // nonce → { hash, raw }
  const result = { kills: 0, survived: 0, blocksLost: 0, receiptsLost: 0, balanceErrors: 0, restartMs: [] };
  let node = await startAlder(args, port);
  const initial = {
    sender: BigInt(await rpc(node.url, 'eth_getBalance', [account.address, '0x0'])),
    recipient: BigInt(await rpc(node.url, 'eth_getBalance', [RECIPIENT, '0x0'])),
  };
  const sign = async (nonce) => {
    let entry = rawByNonce.get(nonce);
    if (!entry) {
      const raw = await account.signTransaction({
        chainId: network.chainId,
        type: 'eip1559',
        nonce,
        to: RECIPIENT,
        value: VALUE,
        gas: 21_000n,
        maxFeePerGas: 20_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      });
      entry = { raw };
      rawByNonce.set(nonce, entry);
    }
    return entry.raw;
  };

  try {
    for (let k = 0; k < kills; k++) {
      // Run: send transfers (resending anything not yet mined), poll head and receipts. The first run
      // lasts until blocks are being mined (the first start builds the ethash cache).
      const runFor = minRunMs + rand() * (maxRunMs - minRunMs);
      let until = Date.now() + runFor;
      const warmingUp = k === 0;
      if (warmingUp) until = Date.now() + 300_000;
      let nonce = Number(await rpc(node.url, 'eth_getTransactionCount', [account.address, 'latest']));
      const pending = new Map();
      while (Date.now() < until) {
        try {
          for (let i = 0; i < 3; i++) {
            const raw = await sign(nonce);
            try {
              const hash = await rpc(node.url, 'eth_sendRawTransaction', [raw]);
              rawByNonce.get(nonce).hash = hash;
              pending.set(hash, nonce);
            } catch (err) {
              if (!/known|nonce too low|already/i.test(String(err.message))) throw err;
            }
            nonce++;
          }
          const head = await rpc(node.url, 'eth_getBlockByNumber', ['latest', false]);
          heads.set(Number(head.number), head.hash);
          for (const hash of [...pending.keys()]) {
            const receipt = await rpc(node.url, 'eth_getTransactionReceipt', [hash]);
            if (receipt) {
              receipts.set(hash, JSON.stringify(receipt));
              pending.delete(hash);
            }
          }
        } catch (err) {
          if (!/nonce|Known|underpriced/i.test(String(err.message))) throw err;
          nonce = Number(await rpc(node.url, 'eth_getTransactionCount', [account.address, 'pending']));
        }
        if (warmingUp && receipts.size > 0 && Date.now() + runFor < until) until = Date.now() + runFor;
        await sleep(20 + rand() * 80);
      }
      await kill(node.child);
      result.kills++;

      node = await startAlder(args, port);
      result.restartMs.push(node.ms);
      let lostBlocks = 0;
      for (const [number, hash] of heads) {
        const block = await rpc(node.url, 'eth_getBlockByNumber', [`0x${number.toString(16)}`, false]);
        if (!block || block.hash !== hash) lostBlocks++;
      }
      let lostReceipts = 0;
      for (const [hash, json] of receipts) {
        const receipt = await rpc(node.url, 'eth_getTransactionReceipt', [hash]);
        if (JSON.stringify(receipt) !== json) lostReceipts++;
      }
      // Balances agree with the receipts of every mined transfer.
      const mined = Number(await rpc(node.url, 'eth_getTransactionCount', [account.address, 'latest']));
      let fees = 0n;
      let balanceOk = true;
      for (let n = 0; n < mined; n++) {
        const entry = rawByNonce.get(n);
        const receipt = entry?.hash ? await rpc(node.url, 'eth_getTransactionReceipt', [entry.hash]) : null;
        if (!receipt) {
          balanceOk = false;
          break;
        }
        fees += BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
      }
      const sender = BigInt(await rpc(node.url, 'eth_getBalance', [account.address, 'latest']));
      const recipient = BigInt(await rpc(node.url, 'eth_getBalance', [RECIPIENT, 'latest']));
      if (sender !== initial.sender - BigInt(mined) * VALUE - fees) balanceOk = false;
      if (recipient !== initial.recipient + BigInt(mined) * VALUE) balanceOk = false;
      result.blocksLost += lostBlocks;
      result.receiptsLost += lostReceipts;
      if (!balanceOk) result.balanceErrors++;
      if (lostBlocks === 0 && lostReceipts === 0 && balanceOk) result.survived++;
      log(
        `mining kill ${k + 1}/${kills}: restart ${node.ms} ms, heads ${heads.size}, receipts ${receipts.size}, transfers mined ${mined}, lost blocks ${lostBlocks}, lost receipts ${lostReceipts}, balances ${balanceOk ? 'agree' : 'DISAGREE'}`,
      );
    }
  } finally {
    await stop(node.child);
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
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
              seenNow++;
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
  return result;
}

export async function runFaults({
  kills = 5,
  importKills: importKillCount = 1,
  seed = 1,
  log = () => {},
  minRunMs = 500,
  maxRunMs = 3000,
  engine = 'clique',
} = {}) {
  const rand = random(seed);
  const mining = await mineKills({ kills, rand, log, minRunMs, maxRunMs, engine });
  const imports = importKillCount > 0 ? await importKills({ kills: importKillCount, rand, log }) : undefined;
  const restartMs = [...mining.restartMs, ...(imports?.restartMs ?? [])];
  return {
    mining,
    imports,
    restartP50: percentile(restartMs, 50),
    restartMax: Math.max(0, ...restartMs),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name, fallback) => {
    const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
    return hit ? Number(hit.split('=')[1]) : fallback;
  };
  const kills = arg('kills', 100);
  const r = await runFaults({
    kills,
    importKills: arg('import-kills', Math.max(1, Math.round(kills / 10))),
    seed: arg('seed', Date.now() % 100000),
    engine: process.argv.find((a) => a.startsWith('--engine='))?.split('=')[1] ?? 'clique',
    log: (line) => console.log(line),
  });
  const m = r.mining;
  console.log('');
  console.log(
    `mining: ${m.survived}/${m.kills} kills survived, blocks lost ${m.blocksLost}, receipts lost ${m.receiptsLost}, balance disagreements ${m.balanceErrors}`,
  );
  if (r.imports)
    console.log(
      `import: ${r.imports.survived}/${r.imports.kills} kills survived, blocks lost ${r.imports.blocksLost}, final head ${r.imports.finalHead?.join(' ') ?? 'none'}`,
    );
  console.log(`restart time: p50 ${r.restartP50} ms, max ${r.restartMax} ms`);
  const failed = m.blocksLost + m.receiptsLost + m.balanceErrors + (r.imports?.blocksLost ?? 0) > 0;
  process.exit(failed ? 1 : 0);
}
