/**
 * The state one fast call runs on: reads fall through to its base (a simulated call's `CallState`,
 * or the block's state during block execution), writes stay here under an undo journal that frames
 * checkpoint and revert. Nothing is written back by the world itself: a simulated call's effects end
 * with it, and block execution copies them into the block's state once the transaction's message
 * call has completed (`blockCall.ts`). Addresses are unprefixed hex keys (40 characters), slots
 * 64-character hex keys, values `bigint`.
 */
import type { Account } from '@ethereumjs/util';
import { bytesToBigInt } from '@ethereumjs/util';
import { keccak256 } from '../../crypto/index.js';
import { Fallback } from './fallback.js';

/** Synchronous reads the world falls through to, by address key. */
export interface WorldBase {
  accountSync(key: string): Account | undefined;
  codeSync(key: string): Uint8Array;
  /** The slot's value, or `undefined` when it can only be read asynchronously (the call falls back). */
  storageSync(key: string, slot: Uint8Array, slotKey: string): Uint8Array | undefined;
  /** The same read as a word, when the base has a cheaper way to it (a simulated call's state). */
  storageWordSync?(key: string, slotKey: string, id: string): bigint | undefined;
}

/** A log as the execution emitted it: address key, topics, data. */
export type WorldLog = [string, bigint[], Uint8Array];

/** The RIPEMD-160 precompile stays touched when the frame that touched it reverts (as mainnet did). */
const RIPEMD_KEY = '0000000000000000000000000000000000000003';

const HEX64 = '0'.repeat(64);

export function slotKeyOf(slot: bigint): string {
  const s = slot.toString(16);
  return s.length === 64 ? s : HEX64.slice(s.length) + s;
}

type Undo = () => void;

/** The empty collections the lazily made ones read as before their first write (never written). */
const NO_ENTRIES: ReadonlyMap<string, never> = new Map<string, never>();
const NO_KEYS: ReadonlySet<string> = new Set();

export class CallWorld {
  readonly balances = new Map<string, bigint>();
  readonly nonces = new Map<string, bigint>();
  /** Written slots by address key + slot key. */
  readonly slots = new Map<string, bigint>();
  /** Slot values as the transaction found them (EIP-2200's "original"), by address key + slot key. */
  private readonly originals = new Map<string, bigint>();
  // What most executions never use (a view call: none of them) is made on its first write.
  private ownTransient: Map<string, bigint> | undefined;
  private ownCodes: Map<string, Uint8Array> | undefined;
  private ownCreated: Set<string> | undefined;
  private ownSelfdestructs: Map<string, string> | undefined;
  private readonly warmAddresses = new Set<string>();
  private readonly warmSlots = new Set<string>();
  private readonly journal: Undo[] = [];
  /** EIP-2200 refund counter; may dip below zero inside a transaction, never at its end. */
  refund = 0;
  /**
   * When reporting (eth_createAccessList): every address and slot the execution warmed, in the order
   * first warmed, reverted frames included — as the library's journal reports them.
   */
  accessList: Map<string, Set<string>> | undefined;
  /** When recording (block execution): the logs emitted, in order, reverted frames' dropped. */
  logs: WorldLog[] | undefined;
  /**
   * When recording (block execution): the accounts a message call or value transfer touched
   * (EIP-161: the touched ones left empty are removed at the end of the transaction).
   */
  touched: Set<string> | undefined;

  /**
   * `alwaysWarm`: addresses warm for the whole transaction that are not worth copying into the warm
   * set call after call (a fork's precompiles); they behave as if passed to `warmAddress`.
   */
  constructor(
    private readonly base: WorldBase,
    private readonly alwaysWarm?: { has(key: string): boolean },
  ) {}

  /** Code deployed by this execution, by address key. */
  get codes(): ReadonlyMap<string, Uint8Array> {
    return this.ownCodes ?? NO_ENTRIES;
  }

  /** Accounts created by this execution (their storage starts empty whatever the base holds). */
  get created(): ReadonlySet<string> {
    return this.ownCreated ?? NO_KEYS;
  }

  /** SELFDESTRUCTed accounts (address key → beneficiary key), finalised at the end of the transaction. */
  get selfdestructs(): ReadonlyMap<string, string> {
    return this.ownSelfdestructs ?? NO_ENTRIES;
  }

  checkpoint(): number {
    return this.journal.length;
  }

  /** Sets `key` in one of the journaled maps, recording how to undo it. */
  private put<V>(map: Map<string, V>, key: string, value: V): void {
    const prev = map.get(key);
    this.journal.push(() => (prev === undefined ? map.delete(key) : map.set(key, prev)));
    map.set(key, value);
  }

  revert(mark: number): void {
    const j = this.journal;
    for (let i = j.length - 1; i >= mark; i--) j[i]();
    j.length = mark;
  }

  private account(key: string) {
    return this.base.accountSync(key);
  }

  balance(key: string): bigint {
    const own = this.balances.get(key);
    if (own !== undefined) return own;
    return this.account(key)?.balance ?? 0n;
  }

  setBalance(key: string, value: bigint): void {
    this.put(this.balances, key, value);
  }

  nonce(key: string): bigint {
    const own = this.nonces.get(key);
    if (own !== undefined) return own;
    return this.account(key)?.nonce ?? 0n;
  }

  setNonce(key: string, value: bigint): void {
    this.put(this.nonces, key, value);
  }

  code(key: string): Uint8Array {
    return this.codes.get(key) ?? this.base.codeSync(key);
  }

  setCode(key: string, code: Uint8Array): void {
    this.ownCodes ??= new Map();
    this.put(this.ownCodes, key, code);
  }

  /** Marks the account created by this execution (EIP-6780; its storage reads empty from now on). */
  markCreated(key: string): void {
    this.ownCreated ??= new Set();
    const created = this.ownCreated;
    if (created.has(key)) return;
    created.add(key);
    this.journal.push(() => created.delete(key));
  }

  /** Records a SELFDESTRUCT; true when the account was not yet recorded in this transaction. */
  markSelfdestruct(key: string, beneficiary: string): boolean {
    const first = !this.selfdestructs.has(key);
    this.ownSelfdestructs ??= new Map();
    this.put(this.ownSelfdestructs, key, beneficiary);
    return first;
  }

  /**
   * A CREATE to `key` collides (EIP-684, EIP-7610): the account has a nonce, code or storage. The
   * storage root is the account's as the state reads it, as the library's check reads it.
   */
  collides(key: string): boolean {
    if (this.nonce(key) !== 0n || this.code(key).length !== 0) return true;
    if (this.created.has(key)) return false;
    const acc = this.account(key);
    return acc !== undefined && bytesToBigInt(acc.storageRoot) !== EMPTY_TRIE_ROOT;
  }

  /** The code hash as EXTCODEHASH reads it: zero for accounts that do not exist or are empty (EIP-161). */
  codeHash(key: string): bigint {
    const acc = this.account(key);
    const balance = this.balance(key);
    const nonce = this.nonce(key);
    if (acc === undefined && balance === 0n && nonce === 0n) return 0n;
    const code = this.code(key);
    if (code.length === 0 && balance === 0n && nonce === 0n) return 0n;
    const own = this.codes.get(key);
    if (own !== undefined) return bytesToBigInt(keccak256(own));
    return acc === undefined ? EMPTY_CODE_HASH : bytesToBigInt(acc.codeHash);
  }

  /** EIP-161 dead: no code, zero nonce and zero balance (or no account at all). */
  isDead(key: string): boolean {
    return this.balance(key) === 0n && this.nonce(key) === 0n && this.code(key).length === 0;
  }

  /**
   * The slot methods take the slot's id (`key + slotKey`) as made once by the caller: one string,
   * flattened and hashed once, for every set and map the access goes through.
   */
  original(key: string, slotKey: string, k = key + slotKey): bigint {
    const hit = this.originals.get(k);
    if (hit !== undefined) return hit;
    if (this.created.has(key)) return 0n;
    const base = this.base;
    let v: bigint;
    if (base.storageWordSync !== undefined) {
      const word = base.storageWordSync(key, slotKey, k);
      if (word === undefined) throw new Fallback('storage written by an override');
      v = word;
    } else {
      const raw = base.storageSync(key, Buffer.from(slotKey, 'hex'), slotKey);
      if (raw === undefined) throw new Fallback('storage written by an override');
      v = bytesToBigInt(raw);
    }
    this.originals.set(k, v);
    return v;
  }

  sload(key: string, slotKey: string, k = key + slotKey): bigint {
    const own = this.slots.get(k);
    return own !== undefined ? own : this.original(key, slotKey, k);
  }

  sstore(key: string, slotKey: string, value: bigint, k = key + slotKey): void {
    this.put(this.slots, k, value);
  }

  tload(key: string, slotKey: string): bigint {
    return this.ownTransient?.get(key + slotKey) ?? 0n;
  }

  tstore(key: string, slotKey: string, value: bigint): void {
    this.ownTransient ??= new Map();
    this.put(this.ownTransient, key + slotKey, value);
  }

  log(key: string, topics: bigint[], data: Uint8Array): void {
    const logs = this.logs;
    if (logs === undefined) return;
    logs.push([key, topics, data]);
    this.journal.push(() => {
      logs.length--;
    });
  }

  touch(key: string): void {
    const touched = this.touched;
    if (touched === undefined || touched.has(key)) return;
    touched.add(key);
    if (key !== RIPEMD_KEY) this.journal.push(() => touched.delete(key));
  }

  /** Slots this world wrote, by address key then slot key. */
  writtenSlots(): Map<string, Map<string, bigint>> {
    const out = new Map<string, Map<string, bigint>>();
    for (const [k, v] of this.slots) {
      const key = k.slice(0, 40);
      let slots = out.get(key);
      if (slots === undefined) {
        slots = new Map();
        out.set(key, slots);
      }
      slots.set(k.slice(40), v);
    }
    return out;
  }

  addRefund(delta: number): void {
    this.refund += delta;
    this.journal.push(() => {
      this.refund -= delta;
    });
  }

  /** Marks the address warm; true when it already was (EIP-2929). */
  touchAddress(key: string): boolean {
    if (this.warmAddresses.has(key) || this.alwaysWarm?.has(key) === true) return true;
    this.warmAddresses.add(key);
    if (this.accessList !== undefined && !this.accessList.has(key)) this.accessList.set(key, new Set());
    const set = this.warmAddresses;
    this.journal.push(() => set.delete(key));
    return false;
  }

  /** Warm for the whole transaction (sender, recipient, precompiles, access list): not journaled. */
  warmAddress(key: string): void {
    this.warmAddresses.add(key);
  }

  warmSlot(key: string, slotKey: string): void {
    this.warmSlots.add(key + slotKey);
  }

  /** Marks the slot warm; true when it already was. */
  touchSlot(key: string, slotKey: string, k = key + slotKey): boolean {
    if (this.warmSlots.has(k)) return true;
    this.warmSlots.add(k);
    const list = this.accessList;
    if (list !== undefined) {
      let slots = list.get(key);
      if (slots === undefined) {
        slots = new Set();
        list.set(key, slots);
      }
      slots.add(slotKey);
    }
    const set = this.warmSlots;
    this.journal.push(() => set.delete(k));
    return false;
  }
}

/** The root of an empty trie. */
const EMPTY_TRIE_ROOT = 0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421n;
/** keccak256 of empty code. */
const EMPTY_CODE_HASH = 0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470n;
