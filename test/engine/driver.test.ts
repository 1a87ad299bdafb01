/**
 * Two real nodes, peered over devp2p on 127.0.0.1, under one consensus driver over their engine ports
 * (HTTP + JWT), on a chain with
 * Cancun from genesis and Prague from timestamp 48 (engine V3, then V4): blocks every slot with a
 * blob transaction and withdrawals, both nodes agree on every block; a reorg to another branch and
 * back; invalid payloads answered as the specification says and never imported; a payload with an
 * unknown parent kept and imported once the gap closes; fork and version checks; JWT rules on HTTP and
 * WebSocket. Transactions gossip between the peers (one sent to the second node lands in a payload the
 * first builds); blocks reach each node only through the engine API.
 */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCommonFromGethGenesis } from '@ethereumjs/common';
import { createBlob4844Tx, createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToHex } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { customCrypto } from '../../src/crypto/index.js';
import { nodePublicKey } from '../../src/crypto/nodeKey.js';
import { freePort, type NodeProcess, removeDir, rpc, startNode, tempDir } from '../helpers/node.js';
import { until } from '../p2p/helpers.js';
import {
  ConsensusDriver,
  DEV_KEY,
  engineCall,
  jwt,
  ok,
  pragueGenesis,
  rehash,
  type Slot,
  writeSetup,
  ZERO32,
} from './driver.js';

const PRAGUE_TIME = 48;
const genesis = pragueGenesis(PRAGUE_TIME);
const TO = `0x${'33'.repeat(20)}`;

describe('engine API under a consensus driver (Cancun → Prague)', () => {
  const dirs: string[] = [];
  const nodes: NodeProcess[] = [];
  const engines: string[] = [];
  let driver: ConsensusDriver;
  const slots: Slot[] = [];
  let side: Slot;

  beforeAll(async () => {
    // Two node keys and P2P ports; the second node names the first as its static peer.
    const keys = [1, 2].map((b) => new Uint8Array(32).fill(b));
    const p2pPorts = [await freePort(), await freePort()];
    const enodes = keys.map(
      (k, i) => `enode://${Buffer.from(nodePublicKey(k)).toString('hex')}@127.0.0.1:${p2pPorts[i]}`,
    );
    for (let i = 0; i < 2; i++) {
      const dir = tempDir('alder-engine-');
      dirs.push(dir);
      const setup = writeSetup(dir, genesis);
      writeFileSync(join(dir, 'key'), bytesToHex(keys[i]!));
      if (i === 1) writeFileSync(join(dir, 'static-nodes.json'), JSON.stringify([enodes[0]]));
      const port = await freePort();
      nodes.push(
        await startNode([
          `--genesis-file=${setup.genesis}`,
          `--data-path=${dir}`,
          `--engine-rpc-port=${port}`,
          `--engine-jwt-secret=${setup.secret}`,
          '--p2p-enabled=true',
          '--p2p-interface=127.0.0.1',
          `--p2p-port=${p2pPorts[i]}`,
          '--discovery-enabled=false',
          '--rpc-http-api=ETH,NET,WEB3,ADMIN,TXPOOL',
        ]),
      );
      engines.push(`http://127.0.0.1:${port}`);
    }
    // Peered over devp2p before the first slot.
    await until(
      'the two nodes to be peers',
      async () => {
        const counts = await Promise.all(nodes.map((n) => rpc<string>(n.url, 'net_peerCount')));
        return counts.every((c) => c === '0x1') ? true : undefined;
      },
      20_000,
    );
    const peers = await rpc<Array<{ enode: string }>>(nodes[0]!.url, 'admin_peers');
    expect(peers.map((p) => p.enode.split('@')[0])).toEqual([enodes[1]!.split('@')[0]]);
    const g = await rpc<{ hash: string }>(nodes[0]!.url, 'eth_getBlockByNumber', ['0x0', false]);
    driver = new ConsensusDriver(engines, g.hash, PRAGUE_TIME);
  }, 60_000);

  afterAll(async () => {
    for (const n of nodes) await n.stop();
    for (const d of dirs) removeDir(d);
  });

  it('produces blocks every slot across Cancun and Prague, with a blob transaction, on both nodes alike', async () => {
    const common = createCommonFromGethGenesis(genesis as never, {
      chain: 'test',
      customCrypto: customCrypto(),
    });
    common.setHardfork('cancun');
    const blobTx = createBlob4844Tx(
      {
        chainId: 1337,
        nonce: 0,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 10n ** 9n,
        maxFeePerBlobGas: 10n ** 10n,
        gasLimit: 21000,
        to: TO,
        blobs: [`0x${'00'.repeat(131072)}`],
      },
      { common },
    ).sign(DEV_KEY);
    const sent = await rpc<string>(nodes[0]!.url, 'eth_sendRawTransaction', [
      bytesToHex(blobTx.serializeNetworkWrapper()),
    ]);
    expect(sent).toBe(bytesToHex(blobTx.hash()));
    // engine_getBlobsV1 answers from the pool.
    const vh = blobTx.blobVersionedHashes[0] as string;
    const blobs = await ok(engines[0]!, 'engine_getBlobsV1', [[vh, ZERO32]]);
    expect(blobs[0].proof).toMatch(/^0x[0-9a-f]{96}$/);
    expect(blobs[1]).toBeNull();

    for (let i = 0; i < 6; i++) {
      slots.push(await driver.slot());
      // On block 4, a second payload with another fee recipient: the branch the reorg test takes.
      if (i === 3) side = await driver.build(driver.head, driver.timestamp + 5, `0x${'77'.repeat(20)}`);
    }
    expect(slots[0]!.version).toBe(3);
    expect(slots[5]!.version).toBe(4);
    expect(slots[0]!.blobsBundle!.commitments).toHaveLength(1);
    expect(slots[0]!.versionedHashes).toEqual([vh]);
    expect(slots[0]!.payload.transactions).toHaveLength(1);
    expect(slots[0]!.payload.blobGasUsed).toBe('0x20000');
    for (const n of nodes) expect(await rpc(n.url, 'eth_blockNumber')).toBe('0x6');
    for (let b = 1; b <= 6; b++) {
      const [a, c] = await Promise.all(
        nodes.map((n) =>
          rpc<{ hash: string; stateRoot: string }>(n.url, 'eth_getBlockByNumber', [
            `0x${b.toString(16)}`,
            false,
          ]),
        ),
      );
      expect(a!.hash).toBe(c!.hash);
      expect(a!.hash).toBe(slots[b - 1]!.payload.blockHash);
    }
    const receipt = await rpc<{ status: string; blobGasUsed: string }>(
      nodes[1]!.url,
      'eth_getTransactionReceipt',
      [sent],
    );
    expect(receipt.status).toBe('0x1');
    // fcU made the last block head, safe and finalized: the tags answer.
    const fin = await rpc<{ number: string }>(nodes[1]!.url, 'eth_getBlockByNumber', ['finalized', false]);
    expect(fin.number).toBe('0x6');
    // The withdrawal of every slot credited 100 gwei to its address.
    expect(await rpc(nodes[1]!.url, 'eth_getBalance', [`0x${'22'.repeat(20)}`, 'latest'])).toBe(
      `0x${(600n * 10n ** 9n).toString(16)}`,
    );
  });

  it('gossips transactions between the peers: one sent to the second node lands in a payload the first builds', async () => {
    const common = createCommonFromGethGenesis(genesis as never, {
      chain: 'test',
      customCrypto: customCrypto(),
    });
    common.setHardfork('prague');
    const tx = createFeeMarket1559Tx(
      {
        chainId: 1337,
        nonce: 1,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 10n ** 9n,
        gasLimit: 21000,
        to: TO,
        value: 5n,
      },
      { common },
    ).sign(DEV_KEY);
    const hash = await rpc<string>(nodes[1]!.url, 'eth_sendRawTransaction', [bytesToHex(tx.serialize())]);
    await until(
      'the transaction in the first node pool',
      async () => ((await rpc(nodes[0]!.url, 'eth_getTransactionByHash', [hash])) ? true : undefined),
      15_000,
    );
    const s = await driver.slot();
    expect(s.payload.transactions).toEqual([bytesToHex(tx.serialize())]);
    for (const n of nodes) {
      const b = await rpc<{ hash: string; transactions: string[] }>(n.url, 'eth_getBlockByNumber', [
        'latest',
        false,
      ]);
      expect(b).toMatchObject({ hash: s.payload.blockHash, transactions: [hash] });
    }
    // Still peers after the blocks of the merge-era chain: no block message broke the link.
    for (const n of nodes) expect(await rpc(n.url, 'net_peerCount')).toBe('0x1');
    slots.push(s);
  });

  it('answers invalid payloads as the specification says and never imports them', async () => {
    const s = await driver.build();
    const url = engines[1]!;
    const parent = s.payload.parentHash;
    const badRoot = await rehash(genesis, s, { stateRoot: `0x${'44'.repeat(32)}` });
    const r1 = await engineCall(
      url,
      `engine_newPayloadV${s.version}`,
      driver.newPayloadParams({ ...s, payload: badRoot }),
    );
    expect(r1.result).toMatchObject({ status: 'INVALID', latestValidHash: parent });
    expect((r1.result as any).validationError).toMatch(/stateRoot/);
    // A second time it is known bad; fcU to it is INVALID too.
    const fc = await ok(url, 'engine_forkchoiceUpdatedV3', [
      { headBlockHash: badRoot.blockHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
      null,
    ]);
    expect(fc.payloadStatus.status).toBe('INVALID');

    const badHash = { ...s.payload, blockHash: `0x${'55'.repeat(32)}` };
    const r2 = await engineCall(
      url,
      `engine_newPayloadV${s.version}`,
      driver.newPayloadParams({ ...s, payload: badHash }),
    );
    expect(r2.result).toMatchObject({ status: 'INVALID', latestValidHash: null });
    expect((r2.result as any).validationError).toMatch(/^Computed block hash/);

    const r3 = await engineCall(
      url,
      `engine_newPayloadV${s.version}`,
      driver.newPayloadParams({ ...s, versionedHashes: [ZERO32] }),
    );
    expect(r3.result).toMatchObject({ status: 'INVALID', latestValidHash: parent });
    expect((r3.result as any).validationError).toBe(
      'Versioned hashes from blob transactions do not match expected values',
    );

    const orphan = await rehash(genesis, s, { parentHash: `0x${'66'.repeat(32)}` });
    const r4 = await engineCall(
      url,
      `engine_newPayloadV${s.version}`,
      driver.newPayloadParams({ ...s, payload: orphan }),
    );
    expect(r4.result).toEqual({ status: 'SYNCING', latestValidHash: null, validationError: null });

    // Wrong fork version: a Prague payload through V3, attributes through V2, getPayload through V3.
    const r5 = await engineCall(url, 'engine_newPayloadV3', [s.payload, s.versionedHashes, s.beaconRoot]);
    expect(r5.error?.code).toBe(-38005);
    const r6 = await engineCall(url, 'engine_newPayloadV2', [s.payload]);
    expect(r6.error?.code).toBe(-38005);
    const r7 = await engineCall(url, 'engine_newPayloadV4', [s.payload, s.versionedHashes, s.beaconRoot]);
    expect(r7.error).toMatchObject({ code: -32602, data: 'Missing execution requests field' });

    for (const bad of [badRoot, badHash, orphan]) {
      expect(await rpc(nodes[1]!.url, 'eth_getBlockByHash', [bad.blockHash, false])).toBeNull();
    }
    expect(await rpc(nodes[1]!.url, 'eth_blockNumber')).toBe('0x7');
  });

  it('reorganises to another branch and back; fcU to an ancestor is ignored', async () => {
    const base = slots[3]!.payload.blockHash; // block 4
    const tipA = driver.head; // block 7
    for (const url of engines) expect((await driver.newPayload(url, side)).result?.status).toBe('VALID');
    // Stored, not head until fork choice names it.
    expect(await rpc(nodes[0]!.url, 'eth_blockNumber')).toBe('0x7');
    await driver.forkchoice(side.payload.blockHash, base, ZERO32);
    for (const n of nodes) {
      const b = await rpc<{ hash: string; number: string }>(n.url, 'eth_getBlockByNumber', ['latest', false]);
      expect(b).toMatchObject({ hash: side.payload.blockHash, number: '0x5' });
      expect(await rpc(n.url, 'eth_getBlockByNumber', ['0x6', false])).toBeNull();
    }
    await driver.forkchoice(tipA, base, ZERO32);
    for (const n of nodes)
      expect((await rpc<{ hash: string }>(n.url, 'eth_getBlockByNumber', ['latest', false])).hash).toBe(tipA);
    // An ancestor of the head: VALID, head unchanged.
    const [res] = await driver.forkchoice(base, base, ZERO32);
    expect(res.payloadStatus).toEqual({ status: 'VALID', latestValidHash: base, validationError: null });
    expect((await rpc<{ hash: string }>(nodes[0]!.url, 'eth_getBlockByNumber', ['latest', false])).hash).toBe(
      tipA,
    );
  });

  it('keeps a payload whose parent is unknown and imports it when the gap closes', async () => {
    const [a, b] = engines as [string, string];
    const only = new ConsensusDriver([a], driver.head, PRAGUE_TIME);
    only.timestamp = driver.timestamp;
    const s1 = await only.slot();
    const s2 = await only.slot();
    // The first node's head moved to s2; past the merge it announces no block over devp2p, so the
    // second node still lacks s1 a moment later (a NewBlock would have brought it).
    await new Promise((r) => setTimeout(r, 750));
    expect(await rpc(nodes[1]!.url, 'eth_getBlockByHash', [s1.payload.blockHash, false])).toBeNull();
    expect((await only.newPayload(b, s2)).result?.status).toBe('SYNCING');
    expect((await only.newPayload(b, s1)).result?.status).toBe('VALID');
    // The waiting child was imported behind its parent: fcU to it is VALID at once.
    const [fc] = await new ConsensusDriver([b], '', PRAGUE_TIME).forkchoice(s2.payload.blockHash);
    expect(fc.payloadStatus.status).toBe('VALID');
    expect((await rpc<{ hash: string }>(nodes[1]!.url, 'eth_getBlockByNumber', ['latest', false])).hash).toBe(
      s2.payload.blockHash,
    );
    driver.head = s2.payload.blockHash;
    driver.timestamp = Number(s2.payload.timestamp);
  });

  it('refuses bad tokens, unknown payloads, bad forkchoice states; serves WebSocket with JWT', async () => {
    const url = engines[0]!;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
    const post = (auth?: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
        body,
      });
    expect((await post()).status).toBe(401);
    expect((await post(`Bearer ${await jwt(undefined, Math.floor(Date.now() / 1000) - 120)}`)).status).toBe(
      401,
    );
    expect((await post(`Bearer ${await jwt('0x' + 'cd'.repeat(32))}`)).status).toBe(401);
    expect(await (await post(`Bearer ${await jwt()}`)).json()).toMatchObject({ result: '0x539' });

    expect((await engineCall(url, 'engine_getPayloadV4', ['0x0000000000000001'])).error).toEqual({
      code: -32001,
      message: 'Payload does not exist / is not available',
    });
    const unknown = `0x${'88'.repeat(32)}`;
    const fc = await engineCall(url, 'engine_forkchoiceUpdatedV3', [
      { headBlockHash: driver.head, safeBlockHash: unknown, finalizedBlockHash: ZERO32 },
      null,
    ]);
    expect(fc.error?.code).toBe(-38002);
    const syncing = await ok(url, 'engine_forkchoiceUpdatedV3', [
      { headBlockHash: unknown, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
      null,
    ]);
    expect(syncing.payloadStatus.status).toBe('SYNCING');
    const caps = await ok<string[]>(url, 'engine_exchangeCapabilities', [['engine_newPayloadV4']]);
    expect(caps).toContain('engine_forkchoiceUpdatedV3');
    expect(caps).not.toContain('engine_exchangeCapabilities');

    const wsUrl = url.replace('http', 'ws');
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(wsUrl);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => undefined);
    });
    expect(refused).toBe(403);
    const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${await jwt()}` } });
    const answer = await new Promise<any>((resolve, reject) => {
      ws.on('open', () =>
        ws.send(
          JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'engine_exchangeCapabilities', params: [[]] }),
        ),
      );
      ws.on('message', (m) => resolve(JSON.parse(String(m))));
      ws.on('error', reject);
    });
    ws.close();
    expect(answer.result).toContain('engine_newPayloadV4');
  });
});
