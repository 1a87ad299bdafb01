/**
 * The transaction pool: validated transactions per sender, split at query time into `pending`
 * (nonces contiguous from the sender's account nonce) and `queued` (after a gap). Validation follows
 * Besu's order and reasons; limits are --tx-pool-max-size (whole pool, cheapest tail evicted) and
 * --tx-pool-max-future-by-sender (distance from the account nonce). The chain's `newHead` drops
 * included transactions and re-injects those of blocks a reorg removed.
 */
import { EventEmitter } from 'node:events';
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import {
  Capability,
  createBlob4844TxFromSerializedNetworkWrapper,
  createTxFromRLP,
  type TypedTransaction,
} from '@ethereumjs/tx';
import {
  Address,
  bigIntToUnpaddedBytes,
  bytesToBigInt,
  SECP256K1_ORDER,
  SECP256K1_ORDER_DIV_2,
} from '@ethereumjs/util';
import type { ChainStore, NewHeadEvent } from '../chain/chainStore.js';
import { minimumGas } from '../chain/intrinsicGas.js';
import { keccak256 } from '../crypto/index.js';
import { addressKey, bytesToHexKey } from '../state/trieStore.js';
import type { WorldState } from '../state/worldState.js';
import { useFastCommonLookups } from '../util/commonLookups.js';
import { shareCommon } from '../util/sharedCommon.js';
import { EvictionQueue } from './evictionQueue.js';
import { fastDecodeTx } from './fastDecode.js';
import { type Recovered, SenderRecovery } from './senderRecovery.js';

export type TxRejection =
  | 'DECODE'
  | 'INVALID_SIGNATURE'
  | 'WRONG_CHAIN_ID'
  | 'REPLAY_PROTECTED_SIGNATURE_REQUIRED'
  | 'TYPE_NOT_SUPPORTED'
  | 'NONCE_TOO_LOW'
  | 'NONCE_TOO_FAR_IN_FUTURE'
  | 'INTRINSIC_GAS'
  | 'EXCEEDS_BLOCK_GAS_LIMIT'
  | 'UPFRONT_COST_EXCEEDS_BALANCE'
  | 'GAS_PRICE_TOO_LOW'
  | 'GAS_PRICE_BELOW_BASE_FEE'
  | 'BLOB_GAS_PRICE_BELOW_BLOB_BASE_FEE'
  | 'REPLACEMENT_UNDERPRICED'
  | 'KNOWN'
  | 'FEE_CAP_EXCEEDED'
  | 'MAX_PRIORITY_FEE_EXCEEDS_MAX_FEE'
  | 'BLOB_COUNT'
  | 'TOTAL_BLOB_GAS_TOO_HIGH'
  | 'INVALID_BLOBS'
  | 'OVERSIZED';

const EMPTY = new Uint8Array(0);

function signatureInRange(v: bigint | undefined): boolean {
  return v !== undefined && v >= 1n && v < SECP256K1_ORDER;
}

export class TxPoolError extends Error {
  override name = 'TxPoolError';
  constructor(
    readonly reason: TxRejection,
    detail?: string,
  ) {
    super(detail ? `${reason}: ${detail}` : reason);
  }
}

export interface PooledTx {
  tx: TypedTransaction;
  hash: Uint8Array;
  hashHex: string;
  sender: Address;
  senderHex: string;
  local: boolean;
  /** Milliseconds since the epoch (the pool's clock). */
  addedAt: number;
  size: number;
  /** Insertion sequence, for eviction ties and stable listing. */
  seq: number;
}

export interface TxPoolOptions {
  maxSize: number;
  priceBump: number;
  blobPriceBump?: number;
  maxFutureBySender: number;
  minGasPrice: bigint;
  /** Wei; 0 means no cap. */
  txFeeCap: bigint;
  strictReplayProtection: boolean;
  /** --tx-pool-retention-hours; checked on every new head. */
  retentionHours?: number;
  /**
   * Transactions sent through JSON-RPC have priority unless --tx-pool-no-local-priority: while the
   * node mines they may pay less than --min-gas-price (down to the fee market's floor), as in Besu.
   */
  noLocalPriority?: boolean;
  miningEnabled?: boolean;
  now?: () => number;
  /**
   * Recover senders of eth_sendRawTransaction on a worker thread, in batches (default true; the
   * thread runs only where the compiled worker is present).
   */
  recoveryThread?: boolean;
}

/** Besu's limit for a non-blob transaction (128 KiB); blob transactions are bounded by their blob count. */
export const MAX_TX_SIZE = 128 * 1024;

interface SenderTxs {
  byNonce: Map<bigint, PooledTx>;
  /** Account nonce when last read (refreshed on add and on every new head). */
  accountNonce: bigint;
  /** The highest-nonce transaction (the sender's eviction candidate). */
  last: PooledTx | undefined;
}

function maxFee(tx: TypedTransaction): bigint {
  return tx.type >= 2
    ? (tx as unknown as { maxFeePerGas: bigint }).maxFeePerGas
    : (tx as unknown as { gasPrice: bigint }).gasPrice;
}
function maxPriority(tx: TypedTransaction): bigint {
  return tx.type >= 2
    ? (tx as unknown as { maxPriorityFeePerGas: bigint }).maxPriorityFeePerGas
    : (tx as unknown as { gasPrice: bigint }).gasPrice;
}

/** The sender's address: the library recovers the key natively but hashes it in JS. */
function senderOf(tx: TypedTransaction): Address {
  return new Address(keccak256(tx.getSenderPublicKey()).subarray(12));
}

/** `bytesToHex(hash)` (the pool's key) with the native encoder: taken per transaction in and out. */
function hashKey(hash: Uint8Array): string {
  return `0x${bytesToHexKey(hash)}`;
}

/** Senders of transactions `decode` made, once known (recovered on the thread or hashed here). */
const knownSenders = new WeakMap<TypedTransaction, Address>();

/**
 * Freezes a transaction the library decoded from `raw` unfrozen, after giving it two answers the
 * library would recompute on every call: its encoding, which is `raw` itself (the decoder accepts
 * canonical RLP only, with nothing after it), and its sender, as the recovery thread worked it out or
 * hashed from the public key once here with the native keccak (the library hashes it in JS on each
 * call, and block execution asks for it). Frozen,
 * the transaction keeps its hash and public key in its cache as the library does.
 */
function withKnownEncoding(tx: TypedTransaction, raw: Uint8Array): TypedTransaction {
  // Plain assignments (frozen right after): cheaper per transaction than property descriptors.
  const own = tx as unknown as { serialize(): Uint8Array; getSenderAddress(): Address };
  own.serialize = () => raw;
  own.getSenderAddress = () => {
    let sender = knownSenders.get(tx);
    if (!sender) {
      sender = senderOf(tx);
      knownSenders.set(tx, sender);
    }
    return sender;
  };
  Object.freeze(tx);
  return tx;
}

interface AccountView {
  nonce: bigint;
  balance: bigint;
}

/** True when a well-formed transaction names another chain (the library refuses to decode it then). */
function forOtherChain(raw: Uint8Array, chainId: bigint): boolean {
  try {
    const first = raw[0] as number;
    if (first >= 0xc0) {
      const fields = RLP.decode(raw) as Uint8Array[];
      if (!Array.isArray(fields) || fields.length !== 9) return false;
      const v = bytesToBigInt(fields[6] as Uint8Array);
      return v >= 35n && (v - 35n) >> 1n !== chainId;
    }
    if (first < 1 || first > 4) return false;
    let fields = RLP.decode(raw.subarray(1)) as unknown[];
    if (first === 3 && Array.isArray(fields[0])) fields = fields[0] as unknown[];
    const id = fields[0];
    return id instanceof Uint8Array && bytesToBigInt(id) !== chainId;
  } catch {
    return false;
  }
}

/** A typed fee-market transaction whose priority fee exceeds its fee cap (undecodable by the library). */
function priorityAboveMax(raw: Uint8Array): boolean {
  const first = raw[0] as number;
  if (first < 2 || first > 4) return false;
  try {
    const fields = RLP.decode(raw.subarray(1)) as unknown[];
    const [prio, max] = [fields[2], fields[3]];
    return (
      prio instanceof Uint8Array && max instanceof Uint8Array && bytesToBigInt(prio) > bytesToBigInt(max)
    );
  } catch {
    return false;
  }
}

export class TxPool extends EventEmitter<{ added: [PooledTx]; dropped: [PooledTx] }> {
  private readonly byHash = new Map<string, PooledTx>();
  private readonly bySender = new Map<string, SenderTxs>();
  private readonly eviction = new EvictionQueue<PooledTx>();
  private seq = 0;
  /** The head's Common and the base fee of the block after it (undefined before London), per head. */
  private commonCache:
    | { key: string; header: BlockHeader; common: Common; nextBaseFee: bigint | undefined }
    | undefined;
  /** Sender nonces and balances at one state root: one trie read per sender per head, not per tx. */
  private readonly now: () => number;
  private readonly recovery: SenderRecovery | undefined;
  /** Senders that submitted through JSON-RPC: their reorged transactions come back as local. */
  private readonly localSenders = new Set<string>();
  /** Head events are handled one after another, in the order the chain emitted them. */
  private headWork: Promise<void> = Promise.resolve();
  private readonly onHead = (e: NewHeadEvent) => {
    this.headWork = this.headWork.then(() => this.handleNewHead(e)).catch(() => undefined);
  };

  constructor(
    private readonly chain: ChainStore,
    private readonly world: WorldState,
    private readonly common: Common,
    readonly options: TxPoolOptions,
  ) {
    super();
    this.setMaxListeners(0);
    this.now = options.now ?? Date.now;
    this.recovery = options.recoveryThread === false ? undefined : new SenderRecovery();
    chain.on('newHead', this.onHead);
  }

  close(): void {
    this.chain.off('newHead', this.onHead);
    void this.recovery?.close();
  }

  /** Resolves once every head event emitted so far has been applied to the pool. */
  settled(): Promise<void> {
    return this.headWork;
  }

  get size(): number {
    return this.byHash.size;
  }

  /** The insertion sequence number the next transaction gets (`PooledTx.seq`). */
  get nextSeq(): number {
    return this.seq;
  }

  get(hash: Uint8Array | string): PooledTx | undefined {
    return this.byHash.get(typeof hash === 'string' ? hash.toLowerCase() : hashKey(hash));
  }

  all(): PooledTx[] {
    return [...this.byHash.values()].sort((a, b) => a.seq - b.seq);
  }

  /** Pending (executable) and queued transactions per sender, nonce-ordered. */
  content(): { pending: Map<string, PooledTx[]>; queued: Map<string, PooledTx[]> } {
    const pending = new Map<string, PooledTx[]>();
    const queued = new Map<string, PooledTx[]>();
    for (const [sender, s] of this.bySender) {
      const sorted = [...s.byNonce.values()].sort((a, b) => (a.tx.nonce < b.tx.nonce ? -1 : 1));
      let next = s.accountNonce;
      const p: PooledTx[] = [];
      const q: PooledTx[] = [];
      for (const t of sorted) {
        if (t.tx.nonce === next && q.length === 0) {
          p.push(t);
          next++;
        } else q.push(t);
      }
      if (p.length) pending.set(sender, p);
      if (q.length) queued.set(sender, q);
    }
    return { pending, queued };
  }

  /**
   * The executable transactions of each sender, in nonce order: the run of consecutive nonces from its
   * account nonce, found by lookup (no sort), so what a block builder reads costs what it takes.
   */
  pendingLanes(): PooledTx[][] {
    const lanes: PooledTx[][] = [];
    for (const sender of this.bySender.keys()) {
      const lane = this.laneFrom(sender);
      if (lane.length > 0) lanes.push(lane);
    }
    return lanes;
  }

  /**
   * The executable transactions of the sender `senderHex` (lower-case hex) from nonce `from` on (its
   * account nonce when absent), in nonce order, up to the first gap.
   */
  laneFrom(senderHex: string, from?: bigint): PooledTx[] {
    const lane: PooledTx[] = [];
    const s = this.bySender.get(senderHex);
    if (!s) return lane;
    for (let next = from ?? s.accountNonce, t = s.byNonce.get(next); t; t = s.byNonce.get(++next))
      lane.push(t);
    return lane;
  }

  /** The next nonce for `sender` counting its executable pool transactions; undefined if it has none. */
  nextNonce(sender: Address, accountNonce: bigint): bigint {
    const s = this.bySender.get(sender.toString());
    let next = accountNonce;
    if (!s) return next;
    while (s.byNonce.has(next)) next++;
    return next;
  }

  /** The fork rules of the block being built on the head. */
  private headCommon(): {
    common: Common;
    header: ReturnType<ChainStore['headHeader']>;
    nextBaseFee: bigint | undefined;
  } {
    const header = this.chain.headHeader();
    // The chain hands out one header object per head: the hash is compared only when it changed.
    let cache = this.commonCache;
    if (cache?.header !== header) {
      const key = hashKey(header.hash());
      if (cache?.key !== key) {
        // Copying Common costs ~0.2 ms: one copy per head, not per transaction.
        const common = this.common.copy();
        common.setHardforkBy({ blockNumber: header.number + 1n, timestamp: header.timestamp + 1n });
        // Its transactions ask it about forks and EIPs at intake and again throughout their execution.
        useFastCommonLookups(common);
        // Worked out once per head (the header reads its fee parameters anew on every call).
        const nextBaseFee = header.baseFeePerGas !== undefined ? header.calcNextBaseFee() : undefined;
        cache = { key, header, common: shareCommon(common), nextBaseFee };
        this.commonCache = cache;
      } else cache.header = header;
    }
    return { common: cache.common, header, nextBaseFee: cache.nextBaseFee };
  }

  /** Decodes a raw transaction (blob transactions in the network wrapper form, KZG checked). */
  decode(raw: Uint8Array): TypedTransaction {
    const { common } = this.headCommon();
    if (raw.length > 0 && raw[0] === 3) {
      try {
        return createBlob4844TxFromSerializedNetworkWrapper(raw, { common });
      } catch (err) {
        const msg = String((err as Error).message ?? err);
        if (forOtherChain(raw, common.chainId())) throw new TxPoolError('WRONG_CHAIN_ID');
        if (/kzg|proof|versioned hash|commitment/i.test(msg)) throw new TxPoolError('INVALID_BLOBS', msg);
        // Not the wrapper form: a bare blob transaction has no blobs to propagate.
        try {
          createTxFromRLP(raw, { common });
        } catch (inner) {
          throw new TxPoolError('DECODE', String((inner as Error).message ?? inner));
        }
        throw new TxPoolError('BLOB_COUNT', 'blob transaction without blobs');
      }
    }
    try {
      // The common signed types take the fast decoder; anything it is unsure of, the library.
      const tx = fastDecodeTx(raw, common) ?? createTxFromRLP(raw, { common, freeze: false });
      return withKnownEncoding(tx, raw.slice());
    } catch (err) {
      if (raw.length > 0 && forOtherChain(raw, common.chainId())) throw new TxPoolError('WRONG_CHAIN_ID');
      if (priorityAboveMax(raw)) throw new TxPoolError('MAX_PRIORITY_FEE_EXCEEDS_MAX_FEE');
      throw new TxPoolError('DECODE', String((err as Error).message ?? err));
    }
  }

  /** Validates and adds a raw transaction; returns its pooled entry. Throws TxPoolError. */
  async addRaw(raw: Uint8Array, local = true): Promise<PooledTx> {
    const tx = this.decode(raw);
    // A signature value outside [1, n-1] (an unsigned transaction's zeros) does not decode, as Besu has it;
    // nor does a legacy transaction with r and s but an empty v (the library reads it as unsigned).
    if (tx.v === undefined || !signatureInRange(tx.r) || !signatureInRange(tx.s)) {
      throw new TxPoolError('DECODE', 'signature values out of range');
    }
    // The decoder accepts canonical RLP only, with nothing after it, so a decoded transaction
    // serialises back to `raw`: its hash is that of the bytes received, without encoding it again.
    // (A blob transaction arrives in its network form, which is not what it hashes.)
    if (raw[0] !== 3) {
      const recovered = this.recovery ? await this.recoverOffThread(raw, tx, this.recovery) : undefined;
      (tx as unknown as { cache: { hash?: Uint8Array } }).cache.hash ??= recovered?.hash ?? keccak256(raw);
    }
    return this.add(tx, local, raw.length);
  }

  /**
   * Recovers the sender's public key on the recovery thread and leaves it in the transaction's cache,
   * where validation and execution read it. Only signatures the library would accept go there (the
   * same high-s and v rules); anything else, or a failed recovery, is left to the library in place,
   * which then gives its exact error.
   */
  private async recoverOffThread(
    raw: Uint8Array,
    tx: TypedTransaction,
    recovery: SenderRecovery,
  ): Promise<Recovered | undefined> {
    const { v, r, s } = tx;
    if (v === undefined || r === undefined || s === undefined || !Object.isFrozen(tx)) return undefined;
    if (tx.common.gteHardfork('homestead') && s > SECP256K1_ORDER_DIV_2) return undefined;
    let id = v;
    let chainId: Uint8Array = EMPTY;
    if (v !== 0n && v !== 1n) {
      const eip155 = tx.supports(Capability.EIP155ReplayProtection);
      if (eip155) chainId = bigIntToUnpaddedBytes(tx.common.chainId());
      id = eip155 ? v - (2n * tx.common.chainId() + 35n) : v - 27n;
    }
    if (id !== 0n && id !== 1n) return undefined;
    const recovered = await recovery.recover(raw, Number(id), chainId);
    if (recovered.publicKey && recovered.address) {
      (tx as unknown as { cache: { senderPubKey?: Uint8Array } }).cache.senderPubKey = recovered.publicKey;
      knownSenders.set(tx, new Address(recovered.address));
    }
    return recovered;
  }

  async add(tx: TypedTransaction, local: boolean, size = tx.serialize().length): Promise<PooledTx> {
    const { common, header, nextBaseFee: baseFee } = this.headCommon();
    const hashHex = hashKey(tx.hash());
    if (this.byHash.has(hashHex)) throw new TxPoolError('KNOWN');
    if (!common.isActivatedEIP(2930) && tx.type === 1) throw new TxPoolError('TYPE_NOT_SUPPORTED');
    if (!common.isActivatedEIP(1559) && tx.type === 2) throw new TxPoolError('TYPE_NOT_SUPPORTED');
    if (!common.isActivatedEIP(4844) && tx.type === 3) throw new TxPoolError('TYPE_NOT_SUPPORTED');
    if (!common.isActivatedEIP(7702) && tx.type === 4) throw new TxPoolError('TYPE_NOT_SUPPORTED');
    if (tx.type !== 3 && size > MAX_TX_SIZE) throw new TxPoolError('OVERSIZED');
    // chain id
    const chainId = common.chainId();
    if (tx.type === 0) {
      const v = tx.v ?? 0n;
      if (v >= 35n) {
        if ((v - 35n) >> 1n !== chainId) throw new TxPoolError('WRONG_CHAIN_ID');
      } else if (this.options.strictReplayProtection) {
        throw new TxPoolError('REPLAY_PROTECTED_SIGNATURE_REQUIRED');
      }
    } else if ((tx as unknown as { chainId: bigint }).chainId !== chainId) {
      throw new TxPoolError('WRONG_CHAIN_ID');
    }
    let sender: Address;
    try {
      // A transaction `decode` made remembers its sender (block execution asks again).
      sender = Object.hasOwn(tx, 'getSenderAddress') ? tx.getSenderAddress() : senderOf(tx);
    } catch (err) {
      throw new TxPoolError('INVALID_SIGNATURE', String((err as Error).message ?? err));
    }
    if (tx.type >= 2 && maxPriority(tx) > maxFee(tx))
      throw new TxPoolError('MAX_PRIORITY_FEE_EXCEEDS_MAX_FEE');
    const least = minimumGas(tx);
    if (least.intrinsic > tx.gasLimit || least.floor > tx.gasLimit) throw new TxPoolError('INTRINSIC_GAS');
    if (tx.gasLimit > header.gasLimit) throw new TxPoolError('EXCEEDS_BLOCK_GAS_LIMIT');
    if (this.belowMinimumPrice(tx, common, local)) throw new TxPoolError('GAS_PRICE_TOO_LOW');
    if (baseFee !== undefined && maxFee(tx) < baseFee) throw new TxPoolError('GAS_PRICE_BELOW_BASE_FEE');
    if (this.options.txFeeCap > 0n && maxFee(tx) * tx.gasLimit > this.options.txFeeCap)
      throw new TxPoolError('FEE_CAP_EXCEEDED');
    if (tx.type === 3) {
      const blobTx = tx as unknown as { numBlobs(): number; maxFeePerBlobGas: bigint; getDataGas(): bigint };
      if (blobTx.numBlobs() === 0) throw new TxPoolError('BLOB_COUNT');
      const maxBlobGas = common.param('maxBlobGasPerBlock');
      if (maxBlobGas !== undefined && blobTx.getDataGas() > maxBlobGas)
        throw new TxPoolError('TOTAL_BLOB_GAS_TOO_HIGH');
      if (header.excessBlobGas !== undefined) {
        let blobFee: bigint | undefined;
        try {
          blobFee = header.calcNextBlobGasPrice(common);
        } catch {
          blobFee = undefined;
        }
        if (blobFee !== undefined && blobTx.maxFeePerBlobGas < blobFee)
          throw new TxPoolError('BLOB_GAS_PRICE_BELOW_BLOB_BASE_FEE');
      }
    }
    // account state
    const { nonce: accountNonce, balance } = await this.accountAt(header.stateRoot, sender);
    // The same transaction may have come in (another connection) while this one was validated.
    if (this.byHash.has(hashHex)) throw new TxPoolError('KNOWN');
    if (tx.nonce < accountNonce) throw new TxPoolError('NONCE_TOO_LOW');
    if (tx.nonce - accountNonce >= BigInt(this.options.maxFutureBySender))
      throw new TxPoolError('NONCE_TOO_FAR_IN_FUTURE');
    if (this.upfrontCost(tx) > balance) throw new TxPoolError('UPFRONT_COST_EXCEEDS_BALANCE');
    // The same text as `sender.toString()`, from the key execution also reads off the Address object.
    const senderHex = `0x${addressKey(sender)}`;
    let s = this.bySender.get(senderHex);
    const existing = s?.byNonce.get(tx.nonce);
    if (existing && !this.isReplacement(existing.tx, tx)) throw new TxPoolError('REPLACEMENT_UNDERPRICED');
    if (existing) this.removeEntry(existing, true);
    s = this.bySender.get(senderHex);
    if (!s) {
      s = { byNonce: new Map(), accountNonce, last: undefined };
      this.bySender.set(senderHex, s);
    }
    s.accountNonce = accountNonce;
    const entry: PooledTx = {
      tx,
      hash: tx.hash(),
      hashHex,
      sender,
      senderHex,
      local,
      addedAt: this.now(),
      size,
      seq: this.seq++,
    };
    s.byNonce.set(tx.nonce, entry);
    if (!s.last || tx.nonce >= s.last.tx.nonce) {
      s.last = entry;
      this.eviction.offer(entry, maxFee(tx));
    }
    this.byHash.set(hashHex, entry);
    if (local) this.localSenders.add(senderHex);
    this.emit('added', entry);
    this.evictOverflow();
    return entry;
  }

  /**
   * Besu's price rule: a remote transaction must offer --min-gas-price; a local one only while the
   * node does not mine, and always the London fee market's floor (7 wei, or 0 on chains whose first
   * base fee was 0, such as the dev network).
   */
  private belowMinimumPrice(tx: TypedTransaction, common: Common, local: boolean): boolean {
    const price = maxFee(tx);
    const priority = local && !this.options.noLocalPriority;
    if (!priority || !this.options.miningEnabled) {
      if (price < this.options.minGasPrice) return true;
    }
    return priority && common.isActivatedEIP(1559) && price < this.baseFeeFloor();
  }

  private floor: bigint | undefined;
  private baseFeeFloor(): bigint {
    if (this.floor === undefined) {
      const genesis = this.chain.canonicalHash(0n);
      const first = genesis ? this.chain.getHeader(genesis)?.baseFeePerGas : undefined;
      this.floor = first === 0n ? 0n : 7n;
    }
    return this.floor;
  }

  /** The sender's nonce and balance in the state at `stateRoot` (the world state's read path). */
  private async accountAt(stateRoot: Uint8Array, sender: Address): Promise<AccountView> {
    const account = this.world.at(stateRoot).account(sender.bytes);
    return { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n };
  }

  private upfrontCost(tx: TypedTransaction): bigint {
    let cost = tx.gasLimit * maxFee(tx) + tx.value;
    if (tx.type === 3) {
      const b = tx as unknown as { maxFeePerBlobGas: bigint; getDataGas(): bigint };
      cost += b.getDataGas() * b.maxFeePerBlobGas;
    }
    return cost;
  }

  private isReplacement(old: TypedTransaction, next: TypedTransaction): boolean {
    const bump = BigInt(old.type === 3 ? (this.options.blobPriceBump ?? 100) : this.options.priceBump);
    const needs = (o: bigint) => o + (o * bump) / 100n;
    if (maxFee(next) < needs(maxFee(old))) return false;
    if (next.type >= 2 || old.type >= 2) {
      if (maxPriority(next) < needs(maxPriority(old))) return false;
    }
    if (old.type === 3 && next.type === 3) {
      const f = (t: TypedTransaction) => (t as unknown as { maxFeePerBlobGas: bigint }).maxFeePerBlobGas;
      if (f(next) < needs(f(old))) return false;
    }
    return true;
  }

  /** Whether `entry` is still in the pool as its sender's highest nonce. */
  private readonly isLast = (entry: PooledTx): boolean =>
    this.bySender.get(entry.senderHex)?.last === entry && this.byHash.get(entry.hashHex) === entry;

  /** Drops the cheapest last-nonce transactions until the pool fits --tx-pool-max-size. */
  private evictOverflow(): void {
    while (this.byHash.size > this.options.maxSize) {
      const victim = this.eviction.next(this.isLast);
      if (!victim) return;
      this.removeEntry(victim, true);
    }
    this.eviction.compact(this.bySender.size, this.isLast);
  }

  private removeEntry(entry: PooledTx, dropped: boolean): void {
    this.byHash.delete(entry.hashHex);
    const s = this.bySender.get(entry.senderHex);
    if (s && s.byNonce.get(entry.tx.nonce) === entry) {
      s.byNonce.delete(entry.tx.nonce);
      if (s.byNonce.size === 0) this.bySender.delete(entry.senderHex);
      else if (s.last === entry) {
        // The sender's next-highest nonce becomes its eviction candidate.
        let last: PooledTx | undefined;
        for (const t of s.byNonce.values()) if (!last || t.tx.nonce > last.tx.nonce) last = t;
        s.last = last;
        if (last) this.eviction.offer(last, maxFee(last.tx));
      }
    }
    if (dropped) this.emit('dropped', entry);
  }

  /** Removes a transaction by hash (e.g. when included by the block builder). */
  remove(hash: Uint8Array | string): boolean {
    const e = this.get(hash);
    if (!e) return false;
    this.removeEntry(e, false);
    return true;
  }

  async handleNewHead(event: NewHeadEvent): Promise<void> {
    for (const block of event.added) this.dropIncluded(block);
    const header = event.head.header;
    this.dropExpired();
    for (const [, s] of this.bySender) {
      const first = s.byNonce.values().next().value as PooledTx | undefined;
      if (!first) continue;
      s.accountNonce = (await this.accountAt(header.stateRoot, first.sender)).nonce;
      for (const t of [...s.byNonce.values()]) if (t.tx.nonce < s.accountNonce) this.removeEntry(t, true);
    }
    // Transactions of blocks that left the canonical chain go back in, unless the new chain has them,
    // per sender in nonce order so that none lands beyond --tx-pool-max-future-by-sender.
    const orphans: Array<{ tx: TypedTransaction; sender: string }> = [];
    for (const block of event.removed) {
      for (const tx of block.transactions) {
        if (this.chain.getTxLocation(tx.hash())) continue;
        orphans.push({ tx: tx as TypedTransaction, sender: senderOf(tx as TypedTransaction).toString() });
      }
    }
    orphans.sort((a, b) =>
      a.sender !== b.sender ? (a.sender < b.sender ? -1 : 1) : a.tx.nonce < b.tx.nonce ? -1 : 1,
    );
    for (const { tx, sender } of orphans) {
      try {
        await this.add(tx, this.localSenders.has(sender));
      } catch {
        // no longer valid on the new chain
      }
    }
  }

  /** --tx-pool-retention-hours: transactions older than that leave the pool. */
  dropExpired(): void {
    const hours = this.options.retentionHours;
    if (hours === undefined || hours <= 0) return;
    const oldest = this.now() - hours * 3_600_000;
    for (const e of [...this.byHash.values()]) if (e.addedAt < oldest) this.removeEntry(e, true);
  }

  private dropIncluded(block: Block): void {
    for (const tx of block.transactions) {
      const e = this.byHash.get(hashKey(tx.hash()));
      if (e) this.removeEntry(e, false);
    }
  }
}
