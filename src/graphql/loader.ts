/**
 * Per-request reads for the resolvers. Every block, receipt list, sender list, total difficulty,
 * state reader, account and storage slot a query needs is read once per request and then served from
 * this object, however many fields ask for it: a query for a hundred blocks' transactions with their
 * receipts' statuses reads each block's receipt list once, not once per transaction and field.
 *
 * It also carries the request's bounds: a budget of list items (blocks, transactions, logs …) and a
 * deadline. Exceeding either stops the request with a clear error instead of exhausting memory or
 * holding the event loop.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { type Account, Address, bytesToHex } from '@ethereumjs/util';
import type { StoredReceipt } from '../chain/receipts.js';
import type { Services } from '../rpc/services.js';
import type { StateSnapshot } from '../state/stateSnapshot.js';
import { ResultBoundError, TimeoutError } from './errors.js';

/** A transaction as the resolvers see it: mined (with its block and index) or pending. */
export interface TxRef {
  tx: TypedTransaction;
  /** Known without hashing the transaction again (the chain keeps each block's transaction hashes). */
  hash?: Uint8Array;
  sender: Address;
  block?: Block;
  index?: number;
}

/**
 * A block or an ommer. A block's body is read only when a field needs it (`block` is a getter), so a
 * query for headers or state reads no bodies; an ommer has a header only.
 */
export interface BlockRef {
  header: BlockHeader;
  readonly block?: Block;
  ommer?: boolean;
}

/** An account in the state of a block; no header means a block that does not exist (empty account). */
export interface AccountRef {
  address: Address;
  header: BlockHeader | undefined;
}

export interface RequestLimits {
  /** List items (blocks, transactions, logs, ommers, withdrawals …) one request may produce. */
  maxItems: number;
  /** Absolute time (ms since the epoch) after which the request is abandoned. */
  deadline: number;
}

export class RequestLoader {
  private readonly blocks = new Map<string, Block | null>();
  private readonly receiptLists = new Map<string, StoredReceipt[] | null>();
  private readonly rawReceiptLists = new Map<string, Uint8Array[] | null>();
  private readonly senderLists = new Map<string, Address[]>();
  private readonly txRefs = new Map<string, TxRef[]>();
  private readonly tds = new Map<string, bigint>();
  private readonly readers = new Map<string, StateSnapshot>();
  private readonly accounts = new Map<string, Promise<Account | undefined>>();
  private readonly slots = new Map<string, Promise<Uint8Array>>();
  private readonly codes = new Map<string, Promise<Uint8Array>>();
  private items = 0;
  timedOut = false;

  constructor(
    readonly services: Services,
    readonly limits: RequestLimits,
  ) {}

  /** Counts `n` more list items against the request's budget, and checks the deadline. */
  charge(n: number): void {
    this.items += n;
    if (this.items > this.limits.maxItems) throw new ResultBoundError(this.limits.maxItems);
    this.checkDeadline();
  }

  checkDeadline(): void {
    if (Date.now() > this.limits.deadline) {
      this.timedOut = true;
      throw new TimeoutError();
    }
  }

  blockByHash(hash: Uint8Array): Block | undefined {
    const key = bytesToHex(hash);
    let block = this.blocks.get(key);
    if (block === undefined) {
      block = this.services.chain.getBlock(hash) ?? null;
      this.blocks.set(key, block);
    }
    return block ?? undefined;
  }

  blockByNumber(number: bigint): Block | undefined {
    const hash = this.services.chain.canonicalHash(number);
    return hash ? this.blockByHash(hash) : undefined;
  }

  headerByNumber(number: bigint): BlockHeader | undefined {
    return this.services.chain.getHeaderByNumber(number);
  }

  headerByHash(hash: Uint8Array): BlockHeader | undefined {
    return this.services.chain.getHeader(hash);
  }

  /** A stored block by its header; the body is read on first use. */
  blockRef(header: BlockHeader): BlockRef {
    const loader = this;
    let body: Block | undefined;
    return {
      header,
      get block() {
        body ??= loader.blockByHash(header.hash());
        return body;
      },
    };
  }

  head(): Block {
    return this.blockByHash(this.services.chain.head().hash) as Block;
  }

  receipts(block: Block): StoredReceipt[] | undefined {
    const key = bytesToHex(block.hash());
    let list = this.receiptLists.get(key);
    if (list === undefined) {
      list = this.services.chain.getReceipts(block.hash()) ?? null;
      this.receiptLists.set(key, list);
    }
    return list ?? undefined;
  }

  /** The block's receipts as stored (consensus encoding). */
  rawReceipts(block: Block): Uint8Array[] | undefined {
    const key = bytesToHex(block.hash());
    let list = this.rawReceiptLists.get(key);
    if (list === undefined) {
      list = this.services.chain.getRawReceipts(block.hash()) ?? null;
      this.rawReceiptLists.set(key, list);
    }
    return list ?? undefined;
  }

  totalDifficulty(header: BlockHeader): bigint {
    const key = bytesToHex(header.hash());
    let td = this.tds.get(key);
    if (td === undefined) {
      td = this.services.chain.getTotalDifficulty(header.hash()) ?? 0n;
      this.tds.set(key, td);
    }
    return td;
  }

  /** The block's transactions with their senders (stored at import, recovered only when missing). */
  transactions(block: Block): TxRef[] {
    const key = bytesToHex(block.hash());
    let refs = this.txRefs.get(key);
    if (!refs) {
      let senders = this.senderLists.get(key);
      if (!senders) {
        senders = this.services.chain.getSenders(block.hash()) ?? [];
        this.senderLists.set(key, senders);
      }
      const known = senders;
      const hashes = this.services.chain.getTxHashes(block.hash()) ?? [];
      refs = block.transactions.map((tx, index) => ({
        tx,
        hash: hashes[index],
        sender: known[index] ?? tx.getSenderAddress(),
        block,
        index,
      }));
      this.txRefs.set(key, refs);
    }
    return refs;
  }

  /** A mined transaction by hash, or undefined. */
  transactionByHash(hash: Uint8Array): TxRef | undefined {
    const loc = this.services.chain.getTxLocation(hash);
    if (!loc) return undefined;
    const block = this.blockByHash(loc.blockHash);
    return block ? this.transactions(block)[loc.index] : undefined;
  }

  private reader(header: BlockHeader): StateSnapshot {
    const key = bytesToHex(header.stateRoot);
    let reader = this.readers.get(key);
    if (!reader) {
      reader = this.services.world.at(header.stateRoot);
      this.readers.set(key, reader);
    }
    return reader;
  }

  account(ref: AccountRef): Promise<Account | undefined> {
    if (!ref.header) return Promise.resolve(undefined);
    const key = `${bytesToHex(ref.header.stateRoot)}:${ref.address.toString()}`;
    let account = this.accounts.get(key);
    if (!account) {
      account = this.reader(ref.header).getAccount(ref.address);
      this.accounts.set(key, account);
    }
    return account;
  }

  code(ref: AccountRef): Promise<Uint8Array> {
    if (!ref.header) return Promise.resolve(new Uint8Array());
    const key = `${bytesToHex(ref.header.stateRoot)}:${ref.address.toString()}`;
    let code = this.codes.get(key);
    if (!code) {
      code = this.reader(ref.header).getCode(ref.address);
      this.codes.set(key, code);
    }
    return code;
  }

  storage(ref: AccountRef, slot: Uint8Array): Promise<Uint8Array> {
    if (!ref.header) return Promise.resolve(new Uint8Array());
    const key = `${bytesToHex(ref.header.stateRoot)}:${ref.address.toString()}:${bytesToHex(slot)}`;
    let value = this.slots.get(key);
    if (!value) {
      value = this.reader(ref.header).getStorage(ref.address, slot);
      this.slots.set(key, value);
    }
    return value;
  }
}

export { Address };
