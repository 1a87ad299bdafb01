/**
 * `alder dev-network`: a local IBFT 2.0 or QBFT network for development in one command. It generates
 * the validator keys and a genesis whose extraData lists them (prefunding Besu's three public test
 * accounts), starts one `alder` process per validator on free 127.0.0.1 ports, each knowing the others
 * as static nodes, prints their endpoints, and stops them all together on Ctrl-C (SIGINT or SIGTERM).
 * Everything lives under one directory (`--data-path`, a new temporary one by default), so a network
 * can be started again on the chain it had.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bytesToHex } from '@ethereumjs/util';
import { ConfigError } from '../config/load.js';
import { genesisExtraData } from '../consensus/bft/extraData.js';
import { BFT_MIX_HASH } from '../consensus/bft/rules.js';
import { nodeAddress, nodePublicKey } from '../crypto/nodeKey.js';

export type DevConsensus = 'qbft' | 'ibft2';

export interface DevNetworkOptions {
  consensus: DevConsensus;
  validators: number;
  dataPath?: string;
  blockPeriodSeconds: number;
  requestTimeoutSeconds: number;
  chainId: number;
  /** Extra `alder` options given to every node. */
  nodeArgs: string[];
}

/** Besu's public test accounts (never to be used outside development). */
const DEV_ALLOC: Record<string, { balance: string }> = {
  fe3b557e8fb62b89f4916b721be55ceb828dbd73: { balance: '0xad78ebc5ac6200000' },
  '627306090abab3a6e1400e9345bc60c78a8bef57': { balance: '90000000000000000000000' },
  f17f52151ebef6c7334fad080c5704d77216b732: { balance: '90000000000000000000000' },
};

/** A London-based BFT genesis with `validators` and the dev accounts funded. */
export function bftGenesis(
  consensus: DevConsensus,
  validators: readonly string[],
  opts: { chainId: number; blockPeriodSeconds: number; requestTimeoutSeconds: number; alloc?: object },
): object {
  return {
    config: {
      chainId: opts.chainId,
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: 0,
      petersburgBlock: 0,
      istanbulBlock: 0,
      berlinBlock: 0,
      londonBlock: 0,
      [consensus]: {
        blockperiodseconds: opts.blockPeriodSeconds,
        epochlength: 30000,
        requesttimeoutseconds: opts.requestTimeoutSeconds,
      },
    },
    nonce: '0x0',
    timestamp: '0x0',
    // 30 M gas: a block the proposer can build and the others execute within a round.
    gasLimit: '0x1c9c380',
    difficulty: '0x1',
    mixHash: BFT_MIX_HASH,
    coinbase: '0x0000000000000000000000000000000000000000',
    baseFeePerGas: '0x0',
    extraData: bytesToHex(genesisExtraData(consensus, [...validators].map((v) => v.toLowerCase()).sort())),
    alloc: opts.alloc ?? DEV_ALLOC,
  };
}

export async function freeLocalPort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

interface DevNode {
  index: number;
  dir: string;
  key: Uint8Array;
  address: string;
  p2pPort: number;
  rpcPort: number;
  enode: string;
  child?: ChildProcess;
}

const hexKey = (k: Uint8Array) => `0x${Buffer.from(k).toString('hex')}`;

/** Writes (or reuses) the network's directory: one folder per validator with its key, and the genesis. */
async function layout(
  opts: DevNetworkOptions,
): Promise<{ root: string; genesisFile: string; nodes: DevNode[] }> {
  const root = resolve(opts.dataPath ?? mkdtempSync(join(tmpdir(), `alder-${opts.consensus}-`)));
  mkdirSync(root, { recursive: true });
  const genesisFile = join(root, 'genesis.json');
  const nodes: DevNode[] = [];
  for (let i = 0; i < opts.validators; i++) {
    const dir = join(root, `node-${i}`);
    mkdirSync(dir, { recursive: true });
    const keyFile = join(dir, 'key');
    if (!existsSync(keyFile)) writeFileSync(keyFile, hexKey(randomBytes(32)), { mode: 0o600 });
    const key = Uint8Array.from(Buffer.from(readFileSync(keyFile, 'utf8').trim().replace(/^0x/, ''), 'hex'));
    const p2pPort = await freeLocalPort();
    const rpcPort = await freeLocalPort();
    const id = Buffer.from(nodePublicKey(key)).toString('hex');
    nodes.push({
      index: i,
      dir,
      key,
      address: nodeAddress(key),
      p2pPort,
      rpcPort,
      enode: `enode://${id}@127.0.0.1:${p2pPort}`,
    });
  }
  if (existsSync(genesisFile)) {
    const existing = JSON.parse(readFileSync(genesisFile, 'utf8')) as { config?: Record<string, unknown> };
    if (!existing.config?.[opts.consensus])
      throw new ConfigError(`${genesisFile} is not a ${opts.consensus} genesis; use another --data-path`);
  } else {
    const genesis = bftGenesis(
      opts.consensus,
      nodes.map((n) => n.address),
      opts,
    );
    writeFileSync(genesisFile, `${JSON.stringify(genesis, null, 2)}\n`);
  }
  for (const n of nodes) {
    const peers = nodes.filter((o) => o !== n).map((o) => o.enode);
    writeFileSync(join(n.dir, 'static-nodes.json'), `${JSON.stringify(peers, null, 2)}\n`);
  }
  return { root, genesisFile, nodes };
}

function binPath(): string {
  // dist/cli/devNetwork.js → bin/alder
  return resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/alder');
}

export interface DevNetworkIo {
  stdout: { write(text: string): unknown };
  waitForShutdown(): Promise<string>;
}

/** Runs the network until shutdown is asked, then stops every node and waits for them. */
export async function runDevNetwork(opts: DevNetworkOptions, io: DevNetworkIo): Promise<void> {
  if (!Number.isInteger(opts.validators) || opts.validators < 1 || opts.validators > 16)
    throw new ConfigError(`--validators must be between 1 and 16, not ${opts.validators}`);
  const { root, genesisFile, nodes } = await layout(opts);
  const api = opts.consensus === 'qbft' ? 'QBFT' : 'IBFT';
  for (const n of nodes) {
    const args = [
      binPath(),
      `--data-path=${n.dir}`,
      `--genesis-file=${genesisFile}`,
      '--p2p-interface=127.0.0.1',
      '--p2p-host=127.0.0.1',
      `--p2p-port=${n.p2pPort}`,
      '--discovery-enabled=false',
      '--rpc-http-enabled',
      '--rpc-http-host=127.0.0.1',
      `--rpc-http-port=${n.rpcPort}`,
      `--rpc-http-api=ETH,NET,WEB3,TXPOOL,ADMIN,${api}`,
      '--host-allowlist=localhost,127.0.0.1',
      ...opts.nodeArgs,
    ];
    const log = createWriteStream(join(n.dir, 'alder.log'), { flags: 'a' });
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    n.child = child;
  }
  const chainName = opts.consensus === 'qbft' ? 'QBFT' : 'IBFT 2.0';
  io.stdout.write(
    `${chainName} network of ${nodes.length} validator${nodes.length === 1 ? '' : 's'} in ${root}\n`,
  );
  io.stdout.write(`genesis: ${genesisFile} (chain id ${opts.chainId})\n`);
  for (const n of nodes) {
    io.stdout.write(
      `node-${n.index}  validator ${n.address}  JSON-RPC http://127.0.0.1:${n.rpcPort}  enode ${n.enode}  log ${join(n.dir, 'alder.log')}\n`,
    );
  }
  io.stdout.write(
    'Funded test account 0xfe3b557e8fb62b89f4916b721be55ceb828dbd73 (key 8f2a5594…be63). Ctrl-C stops every node.\n',
  );
  const exited = nodes.map(
    (n) =>
      new Promise<number | null>((r) => {
        n.child?.once('exit', (code) => r(code));
      }),
  );
  // A node that dies early (a bad option, a port taken) stops the whole network with its log's path.
  const early = Promise.race(exited.map((p, i) => p.then((code) => ({ i, code }))));
  const outcome = await Promise.race([io.waitForShutdown().then(() => undefined), early]);
  for (const n of nodes) if (n.child && n.child.exitCode === null) n.child.kill('SIGTERM');
  const killer = setTimeout(() => {
    for (const n of nodes) if (n.child && n.child.exitCode === null) n.child.kill('SIGKILL');
  }, 10_000);
  await Promise.all(exited);
  clearTimeout(killer);
  if (outcome) {
    const n = nodes[outcome.i] as DevNode;
    throw new ConfigError(
      `node-${n.index} exited with code ${outcome.code}; see ${join(n.dir, 'alder.log')}`,
    );
  }
  io.stdout.write('Every node stopped.\n');
}
