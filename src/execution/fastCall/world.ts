/**
 * The state one fast call runs on: reads fall through to the call's `CallState` (the block's state
 * under the request's overrides), writes stay here under an undo journal that frames checkpoint and
 * revert. Nothing is ever written back: a call's effects end with it. Addresses are unprefixed hex
 * keys (40 characters), slots 64-character hex keys, values `bigint`.
 */
import { bytesToBigInt } from '@ethereumjs/util';
import type { CallState } from '../callState.js';
import { Fallback } from './fallback.js';

const HEX64 = '0'.repeat(64);

export function slotKeyOf(slot: bigint): string {
  const s = slot.toString(16);
  return s.length === 64 ? s : HEX64.slice(s.length) + s;
}

type Undo = () => void;

export class CallWorld {
  private readonly balances = new Map<string, bigint>();
  private readonly nonces = new Map<string, bigint>();
  /** Written slots by address key + slot key. */
  private readonly slots = new Map<string, bigint>();
  /** Slot values as the transaction found them (EIP-2200's "original"), by address key + slot key. */
  private readonly originals = new Map<string, bigint>();
  private readonly transient = new Map<string, bigint>();
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

  constructor(private readonly base: CallState) {}

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
    return this.base.codeSync(key);
  }

  /** The code hash as EXTCODEHASH reads it: zero for accounts that do not exist or are empty (EIP-161). */
  codeHash(key: string): bigint {
    const acc = this.account(key);
    const balance = this.balance(key);
    const nonce = this.nonce(key);
    if (acc === undefined && balance === 0n && nonce === 0n) return 0n;
    const code = this.code(key);
    if (code.length === 0 && balance === 0n && nonce === 0n) return 0n;
    return acc === undefined ? EMPTY_CODE_HASH : bytesToBigInt(acc.codeHash);
  }

  /** EIP-161 dead: no code, zero nonce and zero balance (or no account at all). */
  isDead(key: string): boolean {
    return this.balance(key) === 0n && this.nonce(key) === 0n && this.code(key).length === 0;
  }

  original(key: string, slotKey: string): bigint {
    const k = key + slotKey;
    const hit = this.originals.get(k);
    if (hit !== undefined) return hit;
    const raw = this.base.storageSync(key, Buffer.from(slotKey, 'hex'), slotKey);
    if (raw === undefined) throw new Fallback('storage written by an override');
    const v = bytesToBigInt(raw);
    this.originals.set(k, v);
    return v;
  }

  sload(key: string, slotKey: string): bigint {
    const own = this.slots.get(key + slotKey);
    return own !== undefined ? own : this.original(key, slotKey);
  }

  sstore(key: string, slotKey: string, value: bigint): void {
    this.put(this.slots, key + slotKey, value);
  }

  tload(key: string, slotKey: string): bigint {
    return this.transient.get(key + slotKey) ?? 0n;
  }

  tstore(key: string, slotKey: string, value: bigint): void {
    this.put(this.transient, key + slotKey, value);
  }

  addRefund(delta: number): void {
    this.refund += delta;
    this.journal.push(() => {
      this.refund -= delta;
    });
  }

  /** Marks the address warm; true when it already was (EIP-2929). */
  touchAddress(key: string): boolean {
    if (this.warmAddresses.has(key)) return true;
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
  touchSlot(key: string, slotKey: string): boolean {
    const k = key + slotKey;
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

/** keccak256 of empty code. */
const EMPTY_CODE_HASH = 0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470n;
