/**
 * The wire check against a foreign implementation: the EthereumJS client 0.10.5 (run as a child
 * process under the loopback guard, discovery off) peers with a `bin/alder` Clique signer on the same
 * genesis and syncs the chain Alder seals — its status, header and body requests answered by Alder.
 * Alder offers eth/69 beside eth/68; the foreign client, which stops at eth/68, negotiates eth/68.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliqueGenesis, testKey } from '../clique/helpers.js';
import { freePort, ROOT, rpc, SHARED } from '../helpers/node.js';
import { blockHash, blockNumber, TestNetwork, until } from './helpers.js';

const SIGNER = testKey('ethjs-peer');
const genesis = cliqueGenesis([SIGNER.address]) as Record<string, unknown> & {
  config: Record<string, unknown>;
};
// The geth spelling of the Clique settings, which both clients read.
genesis.config.clique = { period: 1, epoch: 30000 };
genesis.coinbase = '0x0000000000000000000000000000000000000000';
genesis.mixHash = `0x${'00'.repeat(32)}`;
const net = new TestNetwork(genesis);
let foreign: ChildProcess | undefined;

afterAll(async () => {
  await stopForeign();
  await net.stopAll();
}, 60_000);

async function stopForeign(): Promise<void> {
  if (foreign?.pid !== undefined && foreign.exitCode === null) {
    const exited = new Promise((r) => foreign?.once('exit', r));
    process.kill(foreign.pid, 'SIGKILL');
    await exited;
  }
}

async function startEthereumJs(
  dir: string,
  extra: string[] = [],
): Promise<{ url: string; enode: string; output: () => string }> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'genesis.json'), JSON.stringify(genesis));
  const [port, rpcPort] = [await freePort(), await freePort()];
  const cli = join(ROOT, 'node_modules/@ethereumjs/client/dist/esm/bin/cli.js');
  const child = spawn(
    process.execPath,
    [
      '--require',
      join(SHARED, 'clients/loopback-guard.cjs'),
      '--import',
      join(ROOT, 'test/p2p/ethereumjs-register.mjs'),
      cli,
      `--gethGenesis=${join(dir, 'genesis.json')}`,
      `--dataDir=${join(dir, 'data')}`,
      `--port=${port}`,
      '--extIP=127.0.0.1',
      '--discDns=false',
      '--discV4=false',
      '--rpc',
      `--rpcPort=${rpcPort}`,
      '--rpcAddr=127.0.0.1',
      '--logLevel=info',
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  foreign = child;
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const enode = await until(
    'the EthereumJS listener',
    async () => new RegExp(`enode://[0-9a-f]{128}@127\\.0\\.0\\.1:${port}`).exec(out)?.[0],
    60_000,
  );
  const url = `http://127.0.0.1:${rpcPort}`;
  await until('the EthereumJS RPC', () => rpc(url, 'eth_blockNumber'), 60_000);
  return { url, enode, output: () => out };
}

describe('the EthereumJS client as a peer', () => {
  it('syncs the chain an Alder signer seals', async () => {
    const alder = await net.add(SIGNER.key);
    const a = await net.start(alder);
    await until('a few blocks', async () => ((await blockNumber(a.url)) >= 5n ? true : undefined));
    const ej = await startEthereumJs(join(alder.dir, 'ethereumjs'));
    expect(await rpc(a.url, 'admin_addPeer', [ej.enode])).toBe(true);
    await until(
      'the peer connects',
      async () => ((await rpc<string>(a.url, 'net_peerCount')) === '0x1' ? true : undefined),
      30_000,
    );
    const target = await blockNumber(a.url);
    await until(
      `EthereumJS reaches block ${target}`,
      async () => ((await blockNumber(ej.url)) >= target ? true : undefined),
      60_000,
    ).catch((err) => {
      throw new Error(`${(err as Error).message}\n${ej.output().slice(-3000)}`);
    });
    expect(await blockHash(ej.url, target)).toBe(await blockHash(a.url, target));
    // Alder offers eth/69 and eth/68; the EthereumJS client stops at eth/68, which both then speak.
    const peers = await rpc<Array<{ name: string; caps: string[]; protocols: { eth: { version: number } } }>>(
      a.url,
      'admin_peers',
    );
    expect(peers[0]?.name).toMatch(/ethereumjs/i);
    expect(peers[0]?.caps).toEqual(['eth/68']);
    expect(peers[0]?.protocols.eth.version).toBe(68);
    await stopForeign();
    await a.stop();
  }, 150_000);

  it('Alder syncs the chain the EthereumJS client seals', async () => {
    const follower = await net.add(testKey('ethjs-follower').key);
    const dir = join(follower.dir, 'ethereumjs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'signer.key'), Buffer.from(SIGNER.key).toString('hex'));
    const ej = await startEthereumJs(dir, ['--mine', `--unlock=${join(dir, 'signer.key')}`]);
    await until(
      'EthereumJS seals blocks',
      async () => ((await blockNumber(ej.url)) >= 5n ? true : undefined),
      60_000,
    );
    const f = await net.start(follower);
    expect(await rpc(f.url, 'admin_addPeer', [ej.enode])).toBe(true);
    const target = await blockNumber(ej.url);
    await until(
      `Alder reaches block ${target}`,
      async () => ((await blockNumber(f.url)) >= target ? true : undefined),
      60_000,
    ).catch((err) => {
      throw new Error(`${(err as Error).message}\n${f.output().slice(-3000)}\n${ej.output().slice(-2000)}`);
    });
    expect(await blockHash(f.url, target)).toBe(await blockHash(ej.url, target));
  }, 150_000);
});
