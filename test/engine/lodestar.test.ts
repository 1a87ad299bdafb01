/**
 * A real consensus client drives Alder: Lodestar 1.5.1 (`lodestar dev`, 8 interop validators, minimal
 * preset, 3-second slots: with shorter ones a loaded machine makes Lodestar's
 * own validators miss their attestation deadlines and the chain never justifies, Bellatrix and Capella from genesis) against Alder's engine port with JWT,
 * on a post-merge chain with Shanghai from genesis (engine V1/V2, which that Lodestar speaks). Checks
 * that the chain advances, finalizes (Alder's `finalized` tag moves) and includes a transaction sent
 * to Alder. Lodestar runs on 127.0.0.1 only (no discovery, no mDNS, loopback listeners, under the
 * loopback guard) and is stopped by PID.
 *
 * Lodestar is installed into test/clients/lodestar (see its package.json) by
 * `npm ci --prefix test/clients/lodestar`; without it this test is skipped.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCommonFromGethGenesis } from '@ethereumjs/common';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToHex } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POS_DEV_GENESIS } from '../../src/config/networks/posDev.js';
import {
  freePort,
  type NodeProcess,
  ROOT,
  removeDir,
  rpc,
  SHARED,
  startNode,
  tempDir,
} from '../helpers/node.js';
import { DEV_KEY, JWT_SECRET } from './driver.js';

const LODESTAR = join(ROOT, 'test/clients/lodestar/node_modules/@chainsafe/lodestar/lib/index.js');
const installed = existsSync(LODESTAR);
if (!installed)
  console.warn('lodestar.test.ts skipped: Lodestar is not installed (npm ci --prefix test/clients/lodestar)');

/** Shanghai from genesis, nothing later: the forks of engine V1/V2. */
function shanghaiGenesis() {
  const {
    cancunTime: _c,
    pragueTime: _p,
    osakaTime: _o,
    blobSchedule: _b,
    ...config
  } = POS_DEV_GENESIS.config;
  return { ...POS_DEV_GENESIS, config };
}

describe.skipIf(!installed)('Lodestar 1.5.1 drives Alder through the engine API', () => {
  let node: NodeProcess;
  let lodestar: ReturnType<typeof spawn> | undefined;
  let log = '';
  const dir = tempDir('alder-lodestar-');

  beforeAll(async () => {
    const genesis = shanghaiGenesis();
    writeFileSync(join(dir, 'genesis.json'), JSON.stringify(genesis));
    writeFileSync(join(dir, 'jwt.hex'), JWT_SECRET.slice(2));
    const enginePort = await freePort();
    node = await startNode([
      `--genesis-file=${join(dir, 'genesis.json')}`,
      `--data-path=${join(dir, 'alder')}`,
      `--engine-rpc-port=${enginePort}`,
      `--engine-jwt-secret=${join(dir, 'jwt.hex')}`,
    ]);
    const g = await rpc<{ hash: string }>(node.url, 'eth_getBlockByNumber', ['0x0', false]);
    const [p2p, rest] = [await freePort(), await freePort()];
    lodestar = spawn(
      process.execPath,
      [
        '--require',
        join(SHARED, 'clients/loopback-guard.cjs'),
        LODESTAR,
        'dev',
        '--dataDir',
        join(dir, 'lodestar'),
        '--reset',
        '--genesisValidators',
        '8',
        '--startValidators',
        '0..7',
        '--genesisEth1Hash',
        g.hash,
        '--params.ALTAIR_FORK_EPOCH',
        '0',
        '--params.BELLATRIX_FORK_EPOCH',
        '0',
        '--params.CAPELLA_FORK_EPOCH',
        '0',
        '--params.SECONDS_PER_SLOT',
        '3',
        '--terminal-total-difficulty-override',
        '0',
        '--execution.engineMock',
        'false',
        '--execution.urls',
        `http://127.0.0.1:${enginePort}`,
        '--jwt-secret',
        join(dir, 'jwt.hex'),
        '--discv5',
        'false',
        '--mdns',
        'false',
        '--listenAddress',
        '127.0.0.1',
        '--port',
        String(p2p),
        '--rest.address',
        '127.0.0.1',
        '--rest.port',
        String(rest),
        '--server',
        `http://127.0.0.1:${rest}`,
        '--suggestedFeeRecipient',
        '0x00000000000000000000000000000000000000fe',
      ],
      { cwd: dir, env: { ...process.env, LODESTAR_PRESET: 'minimal' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    lodestar.stdout?.on('data', (d) => {
      log = (log + d).slice(-20_000);
    });
    lodestar.stderr?.on('data', (d) => {
      log = (log + d).slice(-20_000);
    });
  }, 60_000);

  afterAll(async () => {
    const pid = lodestar?.pid;
    if (lodestar && pid !== undefined && lodestar.exitCode === null) {
      // Lodestar's shutdown can hang: SIGKILL after a short grace.
      const exited = new Promise<void>((r) => lodestar?.once('exit', () => r()));
      process.kill(pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (lodestar?.exitCode === null) process.kill(pid, 'SIGKILL');
      }, 3000);
      await exited;
      clearTimeout(timer);
    }
    await node?.stop();
    removeDir(dir);
  });

  it('advances the chain, includes a transaction sent to Alder, and finalizes', async () => {
    const waitFor = async (what: string, ok: () => Promise<boolean>, seconds: number) => {
      const deadline = Date.now() + seconds * 1000;
      while (!(await ok())) {
        if (Date.now() > deadline)
          throw new Error(`${what} within ${seconds} s; Lodestar said:\n${log.slice(-4000)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    await waitFor('no block', async () => BigInt(await rpc<string>(node.url, 'eth_blockNumber')) >= 2n, 60);
    const common = createCommonFromGethGenesis(shanghaiGenesis() as never, { chain: 'test' });
    common.setHardfork('shanghai');
    const tx = createFeeMarket1559Tx(
      {
        chainId: 1337n,
        nonce: 0n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 9n,
        gasLimit: 21000n,
        to: `0x${'44'.repeat(20)}`,
        value: 12345n,
      },
      { common },
    ).sign(DEV_KEY);
    const hash = await rpc<string>(node.url, 'eth_sendRawTransaction', [bytesToHex(tx.serialize())]);
    await waitFor(
      'the transaction was not included',
      async () => (await rpc(node.url, 'eth_getTransactionReceipt', [hash])) !== null,
      60,
    );
    expect(await rpc(node.url, 'eth_getBalance', [`0x${'44'.repeat(20)}`, 'latest'])).toBe('0x3039');
    await waitFor(
      'nothing was finalized',
      async () => {
        try {
          const b = await rpc<{ number: string } | null>(node.url, 'eth_getBlockByNumber', [
            'finalized',
            false,
          ]);
          return b !== null && BigInt(b.number) > 0n;
        } catch {
          return false;
        }
      },
      270,
    );
  }, 360_000);
});
