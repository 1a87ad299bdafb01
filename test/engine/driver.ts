/**
 * A consensus driver for tests and benchmarks: it plays the consensus client over a node's real engine
 * port, with JWT (HS256, fresh `iat` on every request), as a beacon node does each slot —
 * forkchoiceUpdated with payload attributes, getPayload, newPayload, forkchoiceUpdated to the new head.
 * Several nodes can follow one driver (the first one builds; every one executes and follows).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createBlockHeader,
  genRequestsRoot,
  genTransactionsTrieRoot,
  genWithdrawalsTrieRoot,
} from '@ethereumjs/block';
import { createCommonFromGethGenesis } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { createTxFromBlockBodyData } from '@ethereumjs/tx';
import {
  bytesToHex,
  CLRequest,
  createWithdrawal,
  hexToBytes,
  type PrefixedHexString,
} from '@ethereumjs/util';
import { SignJWT } from 'jose';
import { POS_DEV_GENESIS } from '../../src/config/networks/posDev.js';
import { customCrypto, sha256 } from '../../src/crypto/index.js';

export const JWT_SECRET = '0x' + 'ab'.repeat(32);
export const DEV_KEY = hexToBytes('0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63');
export const ZERO32 = `0x${'00'.repeat(32)}`;

/** Cancun from genesis, Prague from timestamp `pragueTime`: the forks of engine V3 and V4. */
export function pragueGenesis(pragueTime: number) {
  const { osakaTime: _o, ...config } = POS_DEV_GENESIS.config;
  const { osaka: _b, ...blobSchedule } = POS_DEV_GENESIS.config.blobSchedule;
  return { ...POS_DEV_GENESIS, config: { ...config, pragueTime, blobSchedule } };
}

export function writeSetup(dir: string, genesis: unknown): { genesis: string; secret: string } {
  const g = join(dir, 'genesis.json');
  const s = join(dir, 'jwt.secret');
  writeFileSync(g, JSON.stringify(genesis));
  writeFileSync(s, `${JWT_SECRET}\n`);
  return { genesis: g, secret: s };
}

export async function jwt(secret = JWT_SECRET, iat = Math.floor(Date.now() / 1000)): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt(iat)
    .sign(hexToBytes(secret as PrefixedHexString));
}

export interface RpcAnswer<T = unknown> {
  result?: T;
  error?: { code: number; message: string; data?: unknown };
}

let nextId = 1;

/** One JSON-RPC call to an engine port. */
export async function engineCall<T = any>(
  url: string,
  method: string,
  params: unknown[],
  token?: string,
): Promise<RpcAnswer<T>> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token ?? (await jwt())}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${await r.text()}`);
  return (await r.json()) as RpcAnswer<T>;
}

export async function ok<T = any>(url: string, method: string, params: unknown[]): Promise<T> {
  const a = await engineCall<T>(url, method, params);
  if (a.error) throw new Error(`${method}: ${JSON.stringify(a.error)}`);
  return a.result as T;
}

export interface Slot {
  payload: Record<string, any>;
  versionedHashes: string[];
  beaconRoot: string;
  requests: string[];
  version: number;
  blobsBundle?: { commitments: string[]; proofs: string[]; blobs: string[] };
}

export class ConsensusDriver {
  head: string;
  timestamp: number;
  constructor(
    /** Engine URLs; the first one builds. */
    readonly nodes: string[],
    genesisHash: string,
    readonly pragueTime: number,
    readonly slotSeconds = 12,
  ) {
    this.head = genesisHash;
    this.timestamp = 0;
  }

  versionAt(ts: number): number {
    return ts >= this.pragueTime ? 4 : 3;
  }

  /** Builds a payload on `parent` at `timestamp` on the first node (fcU with attributes + getPayload). */
  async build(
    parent = this.head,
    timestamp = this.timestamp + this.slotSeconds,
    feeRecipient = '0x' + '11'.repeat(20),
  ): Promise<Slot> {
    const version = this.versionAt(timestamp);
    const beaconRoot = bytesToHex(sha256(new TextEncoder().encode(`${parent}${timestamp}`)));
    const attrs = {
      timestamp: `0x${timestamp.toString(16)}`,
      prevRandao: beaconRoot,
      suggestedFeeRecipient: feeRecipient,
      withdrawals: [{ index: '0x0', validatorIndex: '0x1', address: '0x' + '22'.repeat(20), amount: '0x64' }],
      parentBeaconBlockRoot: beaconRoot,
    };
    const fcu = await ok(this.nodes[0] as string, 'engine_forkchoiceUpdatedV3', [
      { headBlockHash: parent, safeBlockHash: parent, finalizedBlockHash: ZERO32 },
      attrs,
    ]);
    if (fcu.payloadStatus.status !== 'VALID' || !fcu.payloadId)
      throw new Error(`fcU: ${JSON.stringify(fcu)}`);
    const got = await ok(this.nodes[0] as string, `engine_getPayloadV${version}`, [fcu.payloadId]);
    const versionedHashes = (got.blobsBundle.commitments as string[]).map((c) => {
      const h = sha256(hexToBytes(c as PrefixedHexString));
      h[0] = 1;
      return bytesToHex(h);
    });
    return {
      payload: got.executionPayload,
      versionedHashes,
      beaconRoot,
      requests: got.executionRequests ?? [],
      version,
      blobsBundle: got.blobsBundle,
    };
  }

  newPayloadParams(s: Slot): unknown[] {
    const p: unknown[] = [s.payload, s.versionedHashes, s.beaconRoot];
    if (s.version >= 4) p.push(s.requests);
    return p;
  }

  /** newPayload on one node. */
  newPayload(url: string, s: Slot) {
    return engineCall(url, `engine_newPayloadV${s.version}`, this.newPayloadParams(s));
  }

  /** fcU (no attributes) on every node. */
  async forkchoice(head: string, safe = head, finalized = ZERO32) {
    const out = [];
    for (const url of this.nodes)
      out.push(
        await ok(url, 'engine_forkchoiceUpdatedV3', [
          { headBlockHash: head, safeBlockHash: safe, finalizedBlockHash: finalized },
          null,
        ]),
      );
    return out;
  }

  /** One slot: build on the first node, execute on all, make it head everywhere. */
  async slot(): Promise<Slot> {
    const s = await this.build();
    for (const url of this.nodes) {
      const st = await this.newPayload(url, s);
      if (st.result?.status !== 'VALID') throw new Error(`newPayload on ${url}: ${JSON.stringify(st)}`);
    }
    this.timestamp = Number(s.payload.timestamp);
    this.head = s.payload.blockHash;
    await this.forkchoice(this.head, this.head, this.head);
    return s;
  }
}

/**
 * The block hash of `payload` with some fields changed: what a consensus client would send for a
 * block that differs there (a bad state root under a correct hash, an unknown parent …).
 */
export async function rehash(
  genesis: any,
  s: Slot,
  change: Record<string, string>,
): Promise<Record<string, any>> {
  const p = { ...s.payload, ...change };
  const common = createCommonFromGethGenesis(genesis, { chain: 'test', customCrypto: customCrypto() });
  common.setHardforkBy({ blockNumber: BigInt(p.blockNumber), timestamp: BigInt(p.timestamp) });
  const txs = (p.transactions as string[]).map((t) => {
    const raw = hexToBytes(t as PrefixedHexString);
    return createTxFromBlockBodyData(
      (raw[0] as number) >= 0xc0 ? (RLP.decode(raw) as never) : (raw as never),
      { common },
    );
  });
  const withdrawals = (p.withdrawals as any[]).map((w) =>
    createWithdrawal({
      index: w.index,
      validatorIndex: w.validatorIndex,
      address: w.address,
      amount: w.amount,
    }),
  );
  const header = createBlockHeader(
    {
      parentHash: p.parentHash,
      coinbase: p.feeRecipient,
      stateRoot: p.stateRoot,
      transactionsTrie: await genTransactionsTrieRoot(txs, new MerklePatriciaTrie({ common })),
      receiptTrie: p.receiptsRoot,
      logsBloom: p.logsBloom,
      difficulty: 0n,
      number: p.blockNumber,
      gasLimit: p.gasLimit,
      gasUsed: p.gasUsed,
      timestamp: p.timestamp,
      extraData: p.extraData,
      mixHash: p.prevRandao,
      nonce: '0x0000000000000000',
      baseFeePerGas: p.baseFeePerGas,
      withdrawalsRoot: await genWithdrawalsTrieRoot(withdrawals, new MerklePatriciaTrie({ common })),
      blobGasUsed: p.blobGasUsed,
      excessBlobGas: p.excessBlobGas,
      parentBeaconBlockRoot: s.beaconRoot as PrefixedHexString,
      requestsHash:
        s.version >= 4
          ? genRequestsRoot(
              s.requests.map((r) => {
                const b = hexToBytes(r as PrefixedHexString);
                return new CLRequest(b[0] as never, b.subarray(1));
              }),
              sha256,
            )
          : undefined,
    },
    { common, skipConsensusFormatValidation: true },
  );
  return { ...p, blockHash: bytesToHex(header.hash()) };
}
