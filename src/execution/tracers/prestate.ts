/**
 * prestateTracer: the state the transaction read or wrote, as it was before the transaction (every
 * account touched: sender, recipient, fee recipient, callees, BALANCE/EXTCODE*\/SELFDESTRUCT targets,
 * and the storage slots SLOAD/SSTORE reached), as go-ethereum's tracer of that name writes it. With
 * `diffMode` it answers `{post, pre}`: only the accounts that changed, `pre` with their earlier values
 * and `post` with the fields that changed. Precompiles are left out.
 */

import type { StateManagerInterface } from '@ethereumjs/common';
import type { InterpreterStep, Message } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address, bytesToHex, createAddressFromBigInt, setLengthLeft } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { wordBytes } from '../../util/word.js';
import type { TraceOptions } from './options.js';
import type { Deadline } from './sink.js';

interface AccountState {
  exists: boolean;
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  codeHash: Uint8Array;
  storage: Map<string, string>;
}

const ZERO_WORD = `0x${'0'.repeat(64)}`;

function isPrecompile(address: Uint8Array): boolean {
  for (let i = 0; i < 18; i++) if (address[i] !== 0) return false;
  const n = ((address[18] as number) << 8) | (address[19] as number);
  return n !== 0 && (n <= 0x11 || n === 0x100);
}

function slotKey(v: bigint): string {
  return bytesToHex(wordBytes(v));
}

async function readAccount(state: StateManagerInterface, address: Address): Promise<AccountState> {
  const account = await state.getAccount(address);
  if (!account) {
    return {
      exists: false,
      balance: 0n,
      nonce: 0n,
      code: new Uint8Array(),
      codeHash: new Uint8Array(),
      storage: new Map(),
    };
  }
  const code = await state.getCode(address);
  return {
    exists: true,
    balance: account.balance,
    nonce: account.nonce,
    code,
    codeHash: account.codeHash,
    storage: new Map(),
  };
}

async function readSlot(state: StateManagerInterface, address: Address, key: string): Promise<string> {
  const raw = await state.getStorage(address, setLengthLeft(Buffer.from(key.slice(2), 'hex'), 32));
  return raw.length === 0 ? ZERO_WORD : bytesToHex(setLengthLeft(raw, 32));
}

const BALANCE = 0x31;
const EXTCODESIZE = 0x3b;
const EXTCODECOPY = 0x3c;
const EXTCODEHASH = 0x3f;
const SELFDESTRUCT = 0xff;
const SLOAD = 0x54;
const SSTORE = 0x55;

export class PrestateTracer {
  private readonly pre = new Map<string, AccountState>();
  private readonly created = new Set<string>();
  private state: StateManagerInterface | undefined;

  constructor(
    private readonly options: TraceOptions,
    private readonly deadline: Deadline,
    /** The block's fee recipient, which every transaction pays. */
    private readonly coinbase: Address | undefined,
  ) {}

  async start(tx: TypedTransaction, vm: VM): Promise<void> {
    this.state = vm.stateManager;
    await this.touch(tx.getSenderAddress());
    if (tx.to) await this.touch(tx.to);
    if (this.coinbase) await this.touch(this.coinbase);
  }

  async onEnter(message: Message): Promise<void> {
    this.deadline.checkNow();
    await this.touch(message.caller);
    if (message.to) await this.touch(message.to);
  }

  async onExit(result: { createdAddress?: Address }): Promise<void> {
    if (result.createdAddress) {
      const key = result.createdAddress.toString();
      if (!this.pre.has(key)) {
        this.pre.set(key, {
          exists: false,
          balance: 0n,
          nonce: 0n,
          code: new Uint8Array(),
          codeHash: new Uint8Array(),
          storage: new Map(),
        });
      }
      this.created.add(key);
    }
  }

  async onStep(step: InterpreterStep): Promise<void> {
    this.deadline.check();
    const op = step.opcode.code;
    const s = step.stack;
    const top = s[s.length - 1];
    if (top === undefined) return;
    switch (op) {
      case SLOAD:
      case SSTORE: {
        const address = step.address;
        const entry = await this.touch(address);
        if (!entry) return;
        const key = slotKey(top);
        if (!entry.storage.has(key)) entry.storage.set(key, await readSlot(step.stateManager, address, key));
        return;
      }
      case BALANCE:
      case EXTCODESIZE:
      case EXTCODECOPY:
      case EXTCODEHASH:
      case SELFDESTRUCT:
        await this.touch(createAddressFromBigInt(top & ((1n << 160n) - 1n)));
        return;
      default:
        return;
    }
  }

  private async touch(address: Address): Promise<AccountState | undefined> {
    if (isPrecompile(address.bytes)) return undefined;
    const key = address.toString();
    let entry = this.pre.get(key);
    if (!entry && this.state) {
      entry = await readAccount(this.state, address);
      this.pre.set(key, entry);
    }
    return entry;
  }

  async result(_tx: TypedTransaction, _outcome: unknown, vm: VM): Promise<string> {
    const addresses = [...this.pre.keys()].sort();
    if (!this.options.diffMode) {
      const out: Record<string, unknown> = {};
      // Accounts that did not exist before the transaction are left out.
      for (const a of addresses) {
        const account = this.pre.get(a) as AccountState;
        if (account.exists) out[a] = accountJson(account, undefined);
      }
      return JSON.stringify(out);
    }
    const pre: Record<string, unknown> = {};
    const post: Record<string, unknown> = {};
    for (const a of addresses) {
      const before = this.pre.get(a) as AccountState;
      const address = new Address(Buffer.from(a.slice(2), 'hex'));
      const after = await readAccount(vm.stateManager, address);
      for (const key of before.storage.keys())
        after.storage.set(key, await readSlot(vm.stateManager, address, key));
      const changedStorage = new Map<string, string>();
      for (const [k, v] of before.storage) if (after.storage.get(k) !== v) changedStorage.set(k, v);
      const modified =
        before.exists !== after.exists ||
        before.balance !== after.balance ||
        before.nonce !== after.nonce ||
        bytesToHex(before.code) !== bytesToHex(after.code) ||
        changedStorage.size > 0;
      if (!modified) continue;
      if (before.exists) pre[a] = accountJson({ ...before, storage: changedStorage }, undefined);
      if (!after.exists) continue;
      const postStorage = new Map<string, string>();
      for (const k of changedStorage.keys()) {
        const v = after.storage.get(k) as string;
        if (v !== ZERO_WORD) postStorage.set(k, v);
      }
      post[a] = accountJson({ ...after, storage: postStorage }, before);
    }
    return JSON.stringify({ post, pre });
  }
}

/** An account as the tracer writes it; with `before`, only the fields that differ from it. */
function accountJson(a: AccountState, before: AccountState | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!before || before.balance !== a.balance) out.balance = `0x${a.balance.toString(16)}`;
  const codeChanged = !before || bytesToHex(before.code) !== bytesToHex(a.code);
  if (a.code.length > 0 && codeChanged) {
    out.code = bytesToHex(a.code);
    out.codeHash = bytesToHex(a.codeHash);
  }
  if (a.nonce > 0n && (!before || before.nonce !== a.nonce)) out.nonce = Number(a.nonce);
  if (a.storage.size > 0) {
    const storage: Record<string, string> = {};
    for (const k of [...a.storage.keys()].sort()) storage[k] = a.storage.get(k) as string;
    out.storage = storage;
  }
  return out;
}
