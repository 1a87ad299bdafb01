/**
 * The chain as stored: headers, bodies, receipts, senders, total difficulty, the canonical
 * number→hash index, the transaction index and the head pointer. Reads decode on demand and keep
 * recently used blocks decoded. Writes arrive as one WriteBatch per block from the importer.
 */
import { EventEmitter } from 'node:events';
import {
  Block,
  type BlockHeader,
  createBlockHeaderFromBytesArray,
  createBlockHeaderFromRLP,
} from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { createTxFromBlockBodyData, type TypedTransaction } from '@ethereumjs/tx';
import {
  Address,
  bigIntToBytes,
  bytesToBigInt,
  bytesToHex,
  createWithdrawal,
  hexToBytes,
  type WithdrawalBytes,
} from '@ethereumjs/util';
import { keccak256 } from '../crypto/index.js';
import { type Database, metaKey, numberKey, WriteBatch } from '../db/database.js';
import { Lru } from '../util/lru.js';
import { shareCommon } from '../util/sharedCommon.js';
import { encodeBody } from './blockEncoding.js';
import { decodeReceipt, decodeReceiptList, encodeReceiptList, type StoredReceipt } from './receipts.js';
import { bodyTransactionEncodings } from './rlpScan.js';

export interface Head {
  number: bigint;
  hash: Uint8Array;
}

export interface TxLocation {
  blockHash: Uint8Array;
  index: number;
}

export interface NewHeadEvent {
  head: Block;
  /** Blocks that became canonical, oldest first (the head last). */
  added: Block[];
  /** Blocks that left the canonical chain, newest first. */
  removed: Block[];
}

const HEAD = metaKey('head');
const GENESIS = metaKey('genesis');
const GENESIS_INPUT = metaKey('genesisInput');
const SAFE = metaKey('safe');
const FINALIZED = metaKey('finalized');

export class ChainStore extends EventEmitter<{ newHead: [NewHeadEvent] }> {
  private headCache: Head | undefined;
  /** The head's header, for the `Head` object it belongs to. */
  private headHeaderCache: { hash: Uint8Array; header: BlockHeader } | undefined;
  private readonly blocks = new Lru<string, Block>(128);
  private readonly headers = new Lru<string, BlockHeader>(2048);
  private readonly receiptCache = new Lru<string, StoredReceipt[]>(256);
  private readonly senderCache = new Lru<string, Address[]>(512);
  private readonly txHashCache = new Lru<string, Uint8Array[]>(1024);
  private readonly decodingCommons = new Map<string, Common>();

  constructor(
    readonly db: Database,
    readonly common: Common,
  ) {
    super();
    this.setMaxListeners(0);
  }

  // ---------------------------------------------------------------- head and tags

  head(): Head {
    if (!this.headCache) {
      const hash = this.db.get('meta', HEAD);
      if (!hash) throw new Error('chain has no head: genesis was not initialised');
      const header = this.getHeader(hash);
      if (!header) throw new Error('head block missing from the database');
      this.headCache = { number: header.number, hash: new Uint8Array(hash) };
    }
    return this.headCache;
  }

  headHeader(): BlockHeader {
    const head = this.head();
    // Most reads are at the head: its header is kept beside the head pointer.
    if (this.headHeaderCache !== undefined && this.headHeaderCache.hash === head.hash)
      return this.headHeaderCache.header;
    const header = this.getHeader(head.hash) as BlockHeader;
    this.headHeaderCache = { hash: head.hash, header };
    return header;
  }

  genesisHash(): Uint8Array | undefined {
    return this.db.get('meta', GENESIS);
  }

  safeHash(): Uint8Array | undefined {
    return this.db.get('meta', SAFE);
  }

  finalizedHash(): Uint8Array | undefined {
    return this.db.get('meta', FINALIZED);
  }

  setForkchoiceTags(batch: WriteBatch, safe?: Uint8Array, finalized?: Uint8Array): void {
    if (safe) batch.put('meta', SAFE, safe);
    if (finalized) batch.put('meta', FINALIZED, finalized);
  }

  // ---------------------------------------------------------------- reads

  canonicalHash(number: bigint): Uint8Array | undefined {
    if (number < 0n) return undefined;
    return this.db.get('canonical', numberKey(number));
  }

  isCanonical(hash: Uint8Array, number: bigint): boolean {
    const c = this.canonicalHash(number);
    return c !== undefined && bytesEqual(c, hash);
  }

  /**
   * Hash of the ancestor of `tip` (or `tip` itself) at `number` — what BLOCKHASH reads: from the
   * canonical index when `tip` is canonical, else by walking parent hashes.
   */
  ancestorHash(tip: BlockHeader, number: bigint): Uint8Array | undefined {
    if (number > tip.number || number < 0n) return undefined;
    if (this.isCanonical(tip.hash(), tip.number)) {
      const hash = this.canonicalHash(number);
      if (hash) return hash;
    }
    let h: BlockHeader | undefined = tip;
    while (h && h.number > number) h = this.getHeader(h.parentHash);
    return h && h.number === number ? h.hash() : undefined;
  }

  hasBlock(hash: Uint8Array): boolean {
    return this.db.has('headers', hash);
  }

  getHeader(hash: Uint8Array): BlockHeader | undefined {
    const key = bytesToHex(hash);
    const cached = this.headers.get(key) ?? this.blocks.get(key)?.header;
    if (cached) return cached;
    const raw = this.db.get('headers', hash);
    if (!raw) return undefined;
    const header = createBlockHeaderFromRLP(raw, {
      common: this.common,
      setHardfork: true,
      skipConsensusFormatValidation: true,
    });
    this.headers.set(key, header);
    return header;
  }

  getHeaderByNumber(number: bigint): BlockHeader | undefined {
    const hash = this.canonicalHash(number);
    return hash ? this.getHeader(hash) : undefined;
  }

  getRawHeader(hash: Uint8Array): Uint8Array | undefined {
    return this.db.get('headers', hash);
  }

  getBlock(hash: Uint8Array): Block | undefined {
    const key = bytesToHex(hash);
    const cached = this.blocks.get(key);
    if (cached) return cached;
    const headerRaw = this.db.get('headers', hash);
    const bodyRaw = this.db.get('bodies', hash);
    if (!headerRaw || !bodyRaw) return undefined;
    const block = this.decodeStoredBlock(
      RLP.decode(headerRaw) as Uint8Array[],
      RLP.decode(bodyRaw) as unknown as Uint8Array[][],
    );
    this.blocks.set(key, block);
    return block;
  }

  /**
   * A stored block as objects. Its transactions share one Common per hardfork instead of copying the
   * header's (each copy re-merges the parameter tables: most of the cost of decoding a block, and most
   * of the memory of the block cache).
   */
  private decodeStoredBlock(headerValues: Uint8Array[], body: Uint8Array[][]): Block {
    const opts = { common: this.common, setHardfork: true, skipConsensusFormatValidation: true };
    const header = createBlockHeaderFromBytesArray(headerValues, opts);
    const txCommon = this.decodingCommon(header.common);
    const [txsData = [], unclesData = [], withdrawalsData] = body;
    const transactions: TypedTransaction[] = new Array(txsData.length);
    for (let i = 0; i < txsData.length; i++)
      transactions[i] = createTxFromBlockBodyData(txsData[i] as never, { ...opts, common: txCommon });
    const uncleHeaders = (unclesData as unknown as Uint8Array[][]).map((u) =>
      createBlockHeaderFromBytesArray(u, { ...opts, common: header.common }),
    );
    const withdrawals = header.common.isActivatedEIP(4895)
      ? ((withdrawalsData as unknown as WithdrawalBytes[] | undefined)?.map(
          ([index, validatorIndex, address, amount]) =>
            createWithdrawal({ index, validatorIndex, address, amount }),
        ) ?? [])
      : undefined;
    return new Block(header, transactions, uncleHeaders, withdrawals, opts);
  }

  /** One Common per hardfork for the transactions of stored blocks; see `decodeStoredBlock`. */
  private decodingCommon(headerCommon: Common): Common {
    const hardfork = headerCommon.hardfork();
    let common = this.decodingCommons.get(hardfork);
    if (!common) {
      common = shareCommon(headerCommon.copy(), { fixHardfork: true });
      this.decodingCommons.set(hardfork, common);
    }
    return common;
  }

  getBlockByNumber(number: bigint): Block | undefined {
    const hash = this.canonicalHash(number);
    return hash ? this.getBlock(hash) : undefined;
  }

  /** The stored body RLP (`[transactions, uncles, withdrawals?]`) as it is kept. */
  getRawBody(hash: Uint8Array): Uint8Array | undefined {
    return this.db.get('bodies', hash);
  }

  /** Block RLP exactly as it travels on the wire. */
  getRawBlock(hash: Uint8Array): Uint8Array | undefined {
    const headerRaw = this.db.get('headers', hash);
    const bodyRaw = this.db.get('bodies', hash);
    if (!headerRaw || !bodyRaw) return undefined;
    const body = RLP.decode(bodyRaw) as unknown as Uint8Array[];
    return RLP.encode([RLP.decode(headerRaw), ...body] as never);
  }

  /** Length of the block's RLP, from the stored header and body without decoding either. */
  getBlockSize(hash: Uint8Array): number | undefined {
    const headerRaw = this.db.get('headers', hash);
    const bodyRaw = this.db.get('bodies', hash);
    if (!headerRaw || !bodyRaw) return undefined;
    const b = bodyRaw[0];
    const bodyPrefix = b <= 0xf7 ? 1 : 1 + (b - 0xf7);
    return rlpListLength(headerRaw.length + bodyRaw.length - bodyPrefix);
  }

  getRawReceipts(hash: Uint8Array): Uint8Array[] | undefined {
    const raw = this.db.get('receipts', hash);
    return raw ? decodeReceiptList(raw) : undefined;
  }

  getReceipts(hash: Uint8Array): StoredReceipt[] | undefined {
    const key = bytesToHex(hash);
    const cached = this.receiptCache.get(key);
    if (cached) return cached;
    const raw = this.getRawReceipts(hash);
    if (!raw) return undefined;
    const receipts = raw.map(decodeReceipt);
    this.receiptCache.set(key, receipts);
    return receipts;
  }

  /** Hashes of a block's transactions, from the stored body's encodings (no transaction objects built). */
  getTxHashes(hash: Uint8Array): Uint8Array[] | undefined {
    const key = bytesToHex(hash);
    const cached = this.txHashCache.get(key);
    if (cached) return cached;
    const block = this.blocks.get(key);
    let hashes: Uint8Array[];
    if (block) hashes = block.transactions.map((tx) => tx.hash());
    else {
      const body = this.db.get('bodies', hash);
      if (!body) return undefined;
      hashes = bodyTransactionEncodings(body).map((raw) => keccak256(raw));
    }
    this.txHashCache.set(key, hashes);
    return hashes;
  }

  getSenders(hash: Uint8Array): Address[] | undefined {
    const key = bytesToHex(hash);
    const cached = this.senderCache.get(key);
    if (cached) return cached;
    const raw = this.db.get('senders', hash);
    if (!raw) return undefined;
    const out: Address[] = [];
    for (let i = 0; i < raw.length; i += 20) out.push(new Address(raw.slice(i, i + 20)));
    this.senderCache.set(key, out);
    return out;
  }

  getTotalDifficulty(hash: Uint8Array): bigint | undefined {
    const raw = this.db.get('td', hash);
    return raw ? bytesToBigInt(raw) : undefined;
  }

  getTxLocation(txHash: Uint8Array): TxLocation | undefined {
    const raw = this.db.get('txIndex', txHash);
    if (!raw) return undefined;
    return {
      blockHash: raw.slice(0, 32),
      index: new DataView(raw.buffer, raw.byteOffset + 32, 4).getUint32(0),
    };
  }

  // ---------------------------------------------------------------- writes (used by the importer)

  putBlock(batch: WriteBatch, block: Block, td: bigint, receipts: Uint8Array[], senders: Address[]): void {
    const hash = block.hash();
    batch.put('headers', hash, block.header.serialize());
    batch.put('bodies', hash, encodeBody(block));
    batch.put('receipts', hash, encodeReceiptList(receipts));
    const s = new Uint8Array(senders.length * 20);
    for (let i = 0; i < senders.length; i++) s.set((senders[i] as Address).bytes, i * 20);
    batch.put('senders', hash, s);
    batch.put('td', hash, bigIntToBytes(td));
    this.blocks.set(bytesToHex(hash), block);
  }

  /**
   * Makes `newHead` (already stored, or stored in this batch) the canonical head: rewrites the
   * canonical index and the transaction index from the common ancestor. Returns the blocks added
   * and removed; the caller commits the batch, then calls `headCommitted`. `from` is the head the
   * batch moves away from when it is not the committed one (earlier batches are still committing).
   */
  setHead(batch: WriteBatch, newHead: Block, from?: Head): { added: Block[]; removed: Block[] } {
    const added: Block[] = [newHead];
    const removed: Block[] = [];
    let oldHead: Head | undefined = from;
    try {
      oldHead ??= this.head();
    } catch {
      oldHead = undefined;
    }
    // Walk the new chain back until it meets the canonical chain.
    let cursor = newHead;
    while (cursor.header.number > 0n) {
      const parentHash = cursor.header.parentHash;
      if (this.isCanonical(parentHash, cursor.header.number - 1n)) break;
      const parent = this.getBlock(parentHash);
      if (!parent) throw new Error(`missing ancestor ${bytesToHex(parentHash)}`);
      added.unshift(parent);
      cursor = parent;
    }
    const forkNumber = added[0].header.number - 1n; // last block both chains share
    if (oldHead) {
      for (let n = oldHead.number; n > forkNumber; n--) {
        const h = this.canonicalHash(n);
        if (!h) continue;
        const b = this.getBlock(h);
        if (b) {
          removed.push(b);
          for (const tx of b.transactions) batch.del('txIndex', tx.hash());
        }
        batch.del('canonical', numberKey(n));
      }
    }
    for (const b of added) {
      const hash = b.hash();
      batch.put('canonical', numberKey(b.header.number), hash);
      b.transactions.forEach((tx, i) => {
        const idx = new Uint8Array(36);
        idx.set(hash, 0);
        new DataView(idx.buffer).setUint32(32, i);
        batch.put('txIndex', tx.hash(), idx);
      });
    }
    batch.put('meta', HEAD, newHead.hash());
    return { added, removed };
  }

  /** Records what hashed trie keys stand for (addresses, storage slots), for the debug range methods. */
  putPreimages(batch: WriteBatch, preimages: Iterable<[Uint8Array, Uint8Array]>): void {
    for (const [hashed, key] of preimages) batch.put('preimages', hashed, key);
  }

  /** The address or slot whose keccak256 is `hashed`, when it was recorded. */
  getPreimage(hashed: Uint8Array): Uint8Array | undefined {
    return this.db.get('preimages', hashed);
  }

  markGenesis(batch: WriteBatch, hash: Uint8Array): void {
    batch.put('meta', GENESIS, hash);
  }

  /** Digest of the genesis input (header fields and allocation) the stored genesis was built from. */
  genesisInputDigest(): Uint8Array | undefined {
    return this.db.get('meta', GENESIS_INPUT);
  }

  markGenesisInputDigest(batch: WriteBatch, digest: Uint8Array): void {
    batch.put('meta', GENESIS_INPUT, digest);
  }

  /** Called after a batch that moved the head was committed. */
  headCommitted(event: NewHeadEvent): void {
    this.headCache = { number: event.head.header.number, hash: event.head.hash() };
    if (event.removed.length > 0) this.receiptCache.clear();
    this.emit('newHead', event);
  }

  newBatch(): WriteBatch {
    return new WriteBatch();
  }
}

/** RLP length of a list whose payload is `payload` bytes long. */
export function rlpListLength(payload: number): number {
  if (payload < 56) return 1 + payload;
  let lenBytes = 0;
  for (let n = payload; n > 0; n = Math.floor(n / 256)) lenBytes++;
  return 1 + lenBytes + payload;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export { hexToBytes };
