/**
 * One peer's `eth` session: the status exchange and its checks (in Besu's order: network id, fork id,
 * genesis hash), serving headers, bodies, receipts and pooled transactions within Besu's limits,
 * request/response matching with per-peer bounds, and the hand-off of announcements to the network
 * service. Anything malformed, oversize or unrequested disconnects the peer.
 */
import { RLP } from '@ethereumjs/rlp';
import type { ChainStore } from '../../chain/chainStore.js';
import type { ForkIdService } from '../../chain/forkId.js';
import type { CapabilitySession, PeerConnection, SendMessage } from '../capability.js';
import { DisconnectReason, SubprotocolReason } from '../disconnect.js';
import {
  bytes,
  decode,
  decodeAnnouncement,
  decodeHeadersQuery,
  decodeStatus,
  EthCode,
  encode,
  encodeHeadersQuery,
  encodeStatus,
  encodeUint,
  type HeadersQuery,
  hashList,
  list,
  MAX_BODIES,
  MAX_HEADERS,
  MAX_POOLED_TXS,
  MAX_RECEIPTS,
  MalformedMessageError,
  type Rlp,
  requestOf,
  SOFT_RESPONSE_BYTES,
  type Status,
  txBytes,
  txNetworkForm,
  uint,
} from './messages.js';

/** What the session needs from the node. */
export interface EthContext {
  chain: ChainStore;
  forkIds: ForkIdService;
  networkId: bigint;
  /** Canonical bytes of a pooled transaction, if the pool holds it. */
  pooledTx(hash: Uint8Array): Uint8Array | undefined;
  handlers: EthHandlers;
}

export interface EthHandlers {
  ready(peer: EthPeer): void;
  closed(peer: EthPeer): void;
  newBlock(peer: EthPeer, block: Rlp[], td: bigint): void;
  newBlockHashes(peer: EthPeer, announced: Array<{ hash: Uint8Array; number: bigint }>): void;
  transactions(peer: EthPeer, txs: Uint8Array[]): void;
  announcement(peer: EthPeer, types: Uint8Array, sizes: number[], hashes: Uint8Array[]): void;
}

export class RequestTimeoutError extends Error {}

/** Requests to one peer in flight at once; more wait their turn. */
const MAX_IN_FLIGHT = 4;
const REQUEST_TIMEOUT_MS = 15_000;
const STATUS_TIMEOUT_MS = 10_000;
/** Requests a peer may make of us per second before it is disconnected. */
const MAX_INBOUND_PER_SECOND = 300;
/** Timed-out requests after which a peer is dropped. */
const MAX_TIMEOUTS = 3;
const KNOWN_LIMIT = 32_768;

interface Outstanding {
  code: number;
  max: number;
  resolve(items: Rlp[]): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** A set that forgets its oldest entries past a bound. */
export class KnownSet {
  private readonly set = new Set<string>();
  constructor(private readonly limit = KNOWN_LIMIT) {}
  add(key: string): void {
    if (this.set.has(key)) return;
    this.set.add(key);
    if (this.set.size > this.limit) {
      const first = this.set.values().next().value as string;
      this.set.delete(first);
    }
  }
  has(key: string): boolean {
    return this.set.has(key);
  }
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export class EthPeer implements CapabilitySession {
  status: Status | undefined;
  /** Best block the peer is known to have: hash, total difficulty (eth/68) and number where known. */
  headHash: Uint8Array = new Uint8Array(32);
  td = 0n;
  headNumber: bigint | undefined;
  /** eth/69: the lowest block the peer serves. */
  earliestBlock = 0n;
  readonly knownBlocks = new KnownSet();
  readonly knownTxs = new KnownSet();
  private nextId = BigInt(Math.floor(Math.random() * 2 ** 31));
  private readonly outstanding = new Map<bigint, Outstanding>();
  private readonly expired = new KnownSet(256);
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  private timeouts = 0;
  private windowStart = 0;
  private windowCount = 0;
  private readonly statusTimer: NodeJS.Timeout;
  private closed = false;

  constructor(
    readonly conn: PeerConnection,
    readonly version: number,
    private readonly send: SendMessage,
    private readonly ctx: EthContext,
  ) {
    this.statusTimer = setTimeout(
      () => conn.disconnect(DisconnectReason.TIMEOUT, 'no status'),
      STATUS_TIMEOUT_MS,
    );
    this.statusTimer.unref();
    this.send(EthCode.Status, encodeStatus(this.localStatus()));
  }

  get id(): string {
    return this.conn.id;
  }

  private localStatus(): Status {
    const chain = this.ctx.chain;
    const head = chain.headHeader();
    const genesis = chain.genesisHash() as Uint8Array;
    return {
      version: this.version,
      networkId: this.ctx.networkId,
      td: chain.getTotalDifficulty(head.hash()) ?? 0n,
      bestHash: head.hash(),
      genesisHash: genesis,
      forkId: this.ctx.forkIds.forkIdAt(head.number, head.timestamp),
      earliestBlock: 0n,
      latestBlock: head.number,
    };
  }

  onMessage(code: number, payload: Uint8Array): void {
    if (this.closed) return;
    if (!this.status) {
      if (code !== EthCode.Status) throw new MalformedMessageError(`message ${code} before status`);
      this.onStatus(payload);
      return;
    }
    switch (code) {
      case EthCode.Status:
        throw new MalformedMessageError('second status');
      case EthCode.GetBlockHeaders:
      case EthCode.GetBlockBodies:
      case EthCode.GetReceipts:
      case EthCode.GetPooledTransactions:
        this.countInbound();
        this.serve(code, payload);
        return;
      case EthCode.BlockHeaders:
      case EthCode.BlockBodies:
      case EthCode.Receipts:
      case EthCode.PooledTransactions:
        this.onResponse(code, payload);
        return;
      // eth/69 keeps NewBlockHashes and NewBlock (Besu accepts and sends them there too): a pre-merge
      // chain still propagates its blocks with them.
      case EthCode.NewBlockHashes: {
        const items = list(decode(payload), 'block hashes').map((e) => {
          const pair = list(e, 'block hash entry');
          return { hash: bytes(pair[0], 'block hash', 32), number: uint(pair[1], 'block number') };
        });
        for (const i of items) this.knownBlocks.add(hex(i.hash));
        this.ctx.handlers.newBlockHashes(this, items);
        return;
      }
      case EthCode.NewBlock: {
        const v = list(decode(payload), 'new block');
        const block = list(v[0], 'block');
        const td = uint(v[1], 'total difficulty');
        if (block.length < 3) throw new MalformedMessageError('block has too few fields');
        this.ctx.handlers.newBlock(this, block, td);
        return;
      }
      case EthCode.Transactions: {
        const txs = list(decode(payload), 'transactions').map(txBytes);
        this.ctx.handlers.transactions(this, txs);
        return;
      }
      case EthCode.NewPooledTransactionHashes: {
        const a = decodeAnnouncement(payload);
        for (const h of a.hashes) this.knownTxs.add(hex(h));
        this.ctx.handlers.announcement(this, a.types, a.sizes, a.hashes);
        return;
      }
      case EthCode.BlockRangeUpdate: {
        if (this.version < 69) throw new MalformedMessageError('BlockRangeUpdate before eth/69');
        const v = list(decode(payload), 'block range');
        const earliest = uint(v[0], 'earliest block');
        const latest = uint(v[1], 'latest block');
        const hash = bytes(v[2], 'latest hash', 32);
        if (latest < earliest) {
          this.conn.disconnect(DisconnectReason.SUBPROTOCOL_TRIGGERED, SubprotocolReason.INVALID_BLOCK_RANGE);
          return;
        }
        this.earliestBlock = earliest;
        this.headNumber = latest;
        this.headHash = hash;
        this.knownBlocks.add(hex(hash));
        return;
      }
      default:
        throw new MalformedMessageError(`unknown message code ${code}`);
    }
  }

  private onStatus(payload: Uint8Array): void {
    clearTimeout(this.statusTimer);
    const s = decodeStatus(payload);
    if (s.version !== this.version) {
      this.conn.disconnect(DisconnectReason.SUBPROTOCOL_TRIGGERED, SubprotocolReason.UNSUPPORTED_PROTOCOL);
      return;
    }
    const chain = this.ctx.chain;
    if (s.networkId !== this.ctx.networkId) {
      this.conn.disconnect(DisconnectReason.SUBPROTOCOL_TRIGGERED, SubprotocolReason.MISMATCHED_NETWORK);
      return;
    }
    const head = chain.headHeader();
    if (this.ctx.forkIds.validate(s.forkId, head.number, head.timestamp) !== 'ok') {
      this.conn.disconnect(DisconnectReason.SUBPROTOCOL_TRIGGERED, SubprotocolReason.MISMATCHED_FORKID);
      return;
    }
    if (hex(s.genesisHash) !== hex(chain.genesisHash() as Uint8Array)) {
      this.conn.disconnect(DisconnectReason.SUBPROTOCOL_TRIGGERED, SubprotocolReason.MISMATCHED_GENESIS_HASH);
      return;
    }
    this.status = s;
    this.headHash = s.bestHash;
    this.td = s.td ?? 0n;
    this.headNumber = s.latestBlock;
    this.earliestBlock = s.earliestBlock ?? 0n;
    this.knownBlocks.add(hex(s.bestHash));
    this.ctx.handlers.ready(this);
  }

  onClose(): void {
    this.closed = true;
    clearTimeout(this.statusTimer);
    for (const o of this.outstanding.values()) {
      clearTimeout(o.timer);
      o.reject(new Error('peer disconnected'));
    }
    this.outstanding.clear();
    for (const w of this.waiting.splice(0)) w();
    if (this.status) this.ctx.handlers.closed(this);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private countInbound(): void {
    const now = Date.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowCount = 0;
    }
    if (++this.windowCount > MAX_INBOUND_PER_SECOND) throw new MalformedMessageError('too many requests');
  }

  // --- serving

  private serve(code: number, payload: Uint8Array): void {
    const { id, body } = requestOf(payload, 'request');
    const reply = (respCode: number, items: unknown[]) =>
      this.send(respCode, encode([encodeUint(id), items]));
    switch (code) {
      case EthCode.GetBlockHeaders:
        reply(EthCode.BlockHeaders, this.headersFor(decodeHeadersQuery(body)));
        return;
      case EthCode.GetBlockBodies:
        reply(EthCode.BlockBodies, this.bodiesFor(hashList(body, 'body hashes', MAX_BODIES)));
        return;
      case EthCode.GetReceipts:
        reply(EthCode.Receipts, this.receiptsFor(hashList(body, 'receipt hashes', MAX_RECEIPTS)));
        return;
      case EthCode.GetPooledTransactions: {
        const out: Rlp[] = [];
        let size = 0;
        for (const h of hashList(body, 'tx hashes', MAX_POOLED_TXS)) {
          const raw = this.ctx.pooledTx(h);
          if (!raw) continue;
          out.push(txNetworkForm(raw));
          size += raw.length;
          if (size > SOFT_RESPONSE_BYTES) break;
        }
        reply(EthCode.PooledTransactions, out);
        return;
      }
    }
  }

  private headersFor(q: HeadersQuery): Rlp[] {
    const chain = this.ctx.chain;
    const amount = Math.min(q.amount, MAX_HEADERS);
    const out: Rlp[] = [];
    let number: bigint;
    if (q.origin instanceof Uint8Array) {
      const header = chain.getHeader(q.origin);
      if (!header) return out;
      if (!chain.isCanonical(q.origin, header.number)) {
        // A side-chain origin: answer the walk back through parents, or the origin alone.
        let h: typeof header | undefined = header;
        for (let i = 0; h && i < amount; i++) {
          out.push(decode(chain.getRawHeader(h.hash()) as Uint8Array));
          if (!q.reverse || q.skip !== 0) break;
          h = chain.getHeader(h.parentHash);
        }
        return out;
      }
      number = header.number;
    } else {
      number = q.origin;
    }
    const step = BigInt(q.skip + 1);
    let size = 0;
    for (let i = 0; i < amount && number >= 0n; i++) {
      const hash = chain.canonicalHash(number);
      if (!hash) break;
      const raw = chain.getRawHeader(hash) as Uint8Array;
      out.push(decode(raw));
      size += raw.length;
      if (size > SOFT_RESPONSE_BYTES) break;
      number = q.reverse ? number - step : number + step;
    }
    return out;
  }

  private bodiesFor(hashes: Uint8Array[]): Rlp[] {
    const out: Rlp[] = [];
    let size = 0;
    for (const h of hashes) {
      const raw = this.ctx.chain.getRawBlock(h);
      if (!raw) continue;
      out.push((decode(raw) as Rlp[]).slice(1));
      size += raw.length;
      if (size > SOFT_RESPONSE_BYTES) break;
    }
    return out;
  }

  private receiptsFor(hashes: Uint8Array[]): Rlp[] {
    const out: Rlp[] = [];
    let size = 0;
    for (const h of hashes) {
      const receipts = this.ctx.chain.getRawReceipts(h);
      if (!receipts) continue;
      out.push(
        receipts.map((r) => {
          if (this.version < 69) return txNetworkForm(r);
          // eth/69 receipts: [tx-type, post-state-or-status, cumulative-gas, logs] without the bloom.
          const typed = (r[0] as number) < 0xc0;
          const fields = decode(typed ? r.subarray(1) : r) as Rlp[];
          return [typed ? encodeUint(r[0] as number) : new Uint8Array(), fields[0], fields[1], fields[3]];
        }),
      );
      for (const r of receipts) size += r.length;
      if (size > SOFT_RESPONSE_BYTES) break;
    }
    return out;
  }

  // --- requesting

  private async slot(): Promise<void> {
    while (this.inFlight >= MAX_IN_FLIGHT) {
      if (this.closed) throw new Error('peer disconnected');
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    if (this.closed) throw new Error('peer disconnected');
    this.inFlight++;
  }

  private release(): void {
    this.inFlight--;
    this.waiting.shift()?.();
  }

  private async request(code: number, responseCode: number, body: Rlp, max: number): Promise<Rlp[]> {
    await this.slot();
    try {
      const id = this.nextId++;
      return await new Promise<Rlp[]>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.outstanding.delete(id);
          if (++this.timeouts >= MAX_TIMEOUTS)
            this.conn.disconnect(DisconnectReason.TIMEOUT, 'requests timed out');
          reject(new RequestTimeoutError(`request ${code} to ${this.id.slice(0, 16)} timed out`));
        }, REQUEST_TIMEOUT_MS);
        this.outstanding.set(id, { code: responseCode, max, resolve, reject, timer });
        this.send(code, encode([encodeUint(id), body]));
      });
    } finally {
      this.release();
    }
  }

  private onResponse(code: number, payload: Uint8Array): void {
    const { id, body } = requestOf(payload, 'response');
    const o = this.outstanding.get(id);
    // A late answer to a request that timed out is dropped, not held against the peer.
    if (!o && this.expired.has(id.toString())) return;
    if (!o || o.code !== code)
      throw new MalformedMessageError(`unrequested response ${code} (request id ${id})`);
    const items = list(body, 'response items');
    if (items.length > o.max) throw new MalformedMessageError('response longer than requested');
    this.outstanding.delete(id);
    clearTimeout(o.timer);
    this.timeouts = 0;
    o.resolve(items);
  }

  /** Headers as RLP field lists. */
  async getHeaders(q: HeadersQuery): Promise<Rlp[][]> {
    const amount = Math.min(q.amount, MAX_HEADERS);
    const items = await this.request(
      EthCode.GetBlockHeaders,
      EthCode.BlockHeaders,
      encodeHeadersQuery({ ...q, amount }),
      amount,
    );
    return items.map((h) => list(h, 'header'));
  }

  /** Bodies `[txs, uncles, withdrawals?]` in request order (a peer may answer a prefix). */
  async getBodies(hashes: Uint8Array[]): Promise<Rlp[][]> {
    const items = await this.request(
      EthCode.GetBlockBodies,
      EthCode.BlockBodies,
      hashes.slice(0, MAX_BODIES),
      hashes.length,
    );
    return items.map((b) => list(b, 'body'));
  }

  async getPooledTransactions(hashes: Uint8Array[]): Promise<Uint8Array[]> {
    const items = await this.request(
      EthCode.GetPooledTransactions,
      EthCode.PooledTransactions,
      hashes.slice(0, MAX_POOLED_TXS),
      hashes.length,
    );
    return items.map(txBytes);
  }

  // --- announcing

  sendNewBlock(rawBlock: Uint8Array, td: bigint, hash: Uint8Array): void {
    this.knownBlocks.add(hex(hash));
    this.send(EthCode.NewBlock, encode([RLP.decode(rawBlock), encodeUint(td)]));
  }

  sendNewBlockHashes(items: Array<{ hash: Uint8Array; number: bigint }>): void {
    for (const i of items) this.knownBlocks.add(hex(i.hash));
    this.send(EthCode.NewBlockHashes, encode(items.map((i) => [i.hash, encodeUint(i.number)])));
  }

  sendTransactions(raws: Uint8Array[], hashes: Uint8Array[]): void {
    for (const h of hashes) this.knownTxs.add(hex(h));
    this.send(EthCode.Transactions, encode(raws.map(txNetworkForm)));
  }

  announceTransactions(types: number[], sizes: number[], hashes: Uint8Array[]): void {
    for (const h of hashes) this.knownTxs.add(hex(h));
    this.send(
      EthCode.NewPooledTransactionHashes,
      encode([Uint8Array.from(types), sizes.map(encodeUint), hashes]),
    );
  }

  /** eth/69 BlockRangeUpdate: the blocks this node serves (all, from genesis) up to its head. */
  sendBlockRange(latest: bigint, hash: Uint8Array): void {
    if (this.version >= 69)
      this.send(EthCode.BlockRangeUpdate, encode([encodeUint(0), encodeUint(latest), hash]));
  }
}
