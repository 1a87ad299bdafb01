/**
 * The `stateDiff` of a transaction: for every account the transaction changed, its balance, code,
 * nonce and written storage slots before and after (`=` unchanged, `{"*":{from,to}}` changed,
 * `{"+":…}` created, `{"-":…}` deleted), in address order, as Besu reports it.
 *
 * The recorder sits on the state manager of a VM it owns (a replay's or a simulation's): the first
 * write of a transaction to an account or slot reads the value it replaces, which is the value before
 * the transaction; after the transaction the current values are the ones after.
 */
import type { StateManagerInterface } from '@ethereumjs/common';
import { type Account, Address, bytesToHex, setLengthLeft } from '@ethereumjs/util';

export type DiffValue = '=' | { '*': { from: string; to: string } } | { '+': string } | { '-': string };

export interface AccountDiffJson {
  balance: DiffValue;
  code: DiffValue;
  nonce: DiffValue;
  storage: Record<string, DiffValue>;
}

export type StateDiffJson = Record<string, AccountDiffJson>;

interface Touched {
  address: Address;
  account: Account | undefined;
  code: Uint8Array;
  /** Slot (hex) → value before the transaction. */
  slots: Map<string, Uint8Array>;
}

type Writable = Pick<
  StateManagerInterface,
  'putAccount' | 'deleteAccount' | 'putStorage' | 'putCode' | 'getAccount' | 'getCode' | 'getStorage'
>;

export class StateDiffRecorder {
  private touched = new Map<string, Touched>();

  /** Puts the recorder in `state`'s write path (state must be private to the traced run). */
  constructor(private readonly state: Writable) {
    const putAccount = state.putAccount.bind(state);
    const deleteAccount = state.deleteAccount.bind(state);
    const putStorage = state.putStorage.bind(state);
    const putCode = state.putCode.bind(state);
    state.putAccount = async (address, account) => {
      await this.touch(address);
      return putAccount(address, account);
    };
    state.deleteAccount = async (address) => {
      await this.touch(address);
      return deleteAccount(address);
    };
    state.putCode = async (address, code) => {
      await this.touch(address);
      return putCode(address, code);
    };
    state.putStorage = async (address, key, value) => {
      const t = await this.touch(address);
      const slot = bytesToHex(setLengthLeft(key, 32));
      if (!t.slots.has(slot)) t.slots.set(slot, await state.getStorage(address, key));
      return putStorage(address, key, value);
    };
  }

  /** Forgets the previous transaction's writes. */
  reset(): void {
    this.touched = new Map();
  }

  private async touch(address: Address): Promise<Touched> {
    const key = address.toString();
    let t = this.touched.get(key);
    if (!t) {
      const account = await this.state.getAccount(address);
      t = {
        address: new Address(address.bytes.slice()),
        account: account ? copyAccount(account) : undefined,
        code: account ? await this.state.getCode(address) : new Uint8Array(0),
        slots: new Map(),
      };
      this.touched.set(key, t);
    }
    return t;
  }

  /** The diff of everything written since `reset`, read against the state as it is now. */
  async diff(): Promise<StateDiffJson> {
    const entries: Array<[string, AccountDiffJson]> = [];
    for (const [key, t] of this.touched) {
      const after = await this.state.getAccount(t.address);
      if (!after) {
        if (t.account) entries.push([key, accountDiff(t.account, t.code, undefined, new Uint8Array(0), {})]);
        continue;
      }
      const storage: Record<string, DiffValue> = {};
      for (const slot of [...t.slots.keys()].sort()) {
        const now = setLengthLeft(await this.state.getStorage(t.address, hexBytes(slot)), 32);
        const before = setLengthLeft(t.slots.get(slot) as Uint8Array, 32);
        const nowHex = bytesToHex(now);
        if (!t.account) {
          if (now.some((b) => b !== 0)) storage[slot] = { '+': nowHex };
        } else if (bytesToHex(before) !== nowHex) {
          storage[slot] = { '*': { from: bytesToHex(before), to: nowHex } };
        }
      }
      const code = await this.state.getCode(t.address);
      const diff = accountDiff(t.account, t.code, after, code, storage);
      if (hasDifference(t.account, t.code, after, code, storage)) entries.push([key, diff]);
    }
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const out: StateDiffJson = {};
    for (const [k, v] of entries) out[k] = v;
    return out;
  }
}

function copyAccount(a: Account): Account {
  return Object.assign(Object.create(Object.getPrototypeOf(a)), a) as Account;
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));
}

const weiHex = (v: bigint): string => `0x${v.toString(16)}`;

function node(from: string | undefined, to: string | undefined): DiffValue {
  if (from !== undefined) {
    if (to !== undefined) return from.toLowerCase() === to.toLowerCase() ? '=' : { '*': { from, to } };
    return { '-': from };
  }
  return to !== undefined ? { '+': to } : '=';
}

function accountDiff(
  before: Account | undefined,
  beforeCode: Uint8Array,
  after: Account | undefined,
  afterCode: Uint8Array,
  storage: Record<string, DiffValue>,
): AccountDiffJson {
  return {
    balance: node(before && weiHex(before.balance), after && weiHex(after.balance)),
    code: node(before && bytesToHex(beforeCode), after && bytesToHex(afterCode)),
    nonce: node(before && weiHex(before.nonce), after && weiHex(after.nonce)),
    storage,
  };
}

function hasDifference(
  before: Account | undefined,
  beforeCode: Uint8Array,
  after: Account,
  afterCode: Uint8Array,
  storage: Record<string, DiffValue>,
): boolean {
  if (!before) return true;
  return (
    before.balance !== after.balance ||
    before.nonce !== after.nonce ||
    bytesToHex(beforeCode) !== bytesToHex(afterCode) ||
    Object.keys(storage).length > 0
  );
}
