/**
 * State overrides of the simulations (eth_call, eth_estimateGas, eth_createAccessList,
 * eth_simulateV1), one implementation for all four: the account fields and storage an override
 * sets, and the precompiles it moves (`movePrecompileToAddress`).
 */
import type { StateManagerInterface } from '@ethereumjs/common';
import type { EVM, PrecompileFunc } from '@ethereumjs/evm';
import { Account, Address } from '@ethereumjs/util';
import type { AccountOverride, StateOverrides } from './callTypes.js';

/** An override set that cannot be applied (the message says which account and why). */
export class InvalidOverrideError extends Error {
  override name = 'InvalidOverrideError';
}

function addressKey(a: Uint8Array): string {
  return Buffer.from(a.buffer, a.byteOffset, a.length).toString('hex');
}

/** The precompiles a simulation runs with, by unprefixed address key. */
export interface PrecompileSet {
  /** The fork's precompiles, as the fork defines them (EIP-2929 warmth follows these). */
  fork: ReadonlyMap<string, PrecompileFunc>;
  /** The precompiles in force: the fork's, with the moves applied. */
  active: Map<string, PrecompileFunc>;
  /** Addresses a precompile was moved to. */
  movedTo: Set<string>;
}

/**
 * The fork's precompiles with the overrides' moves applied: a moved precompile answers at its new
 * address and no longer at its own; other overrides of a precompile's address (code, balance …)
 * leave the precompile in place, as Besu does. Refused: moving an account that is not a precompile,
 * moving onto an address the set also overrides, and overriding an address a precompile was moved
 * to.
 */
export function resolvePrecompiles(
  fork: ReadonlyMap<string, PrecompileFunc>,
  overrides: StateOverrides | undefined,
): PrecompileSet {
  const active = new Map(fork);
  const movedTo = new Set<string>();
  for (const [addr, o] of overrides ?? []) {
    const key = addr.slice(2);
    if (movedTo.has(key)) {
      throw new InvalidOverrideError(`account ${addr} has already been overridden by a precompile`);
    }
    if (!o.movePrecompileToAddress) continue;
    const fn = fork.get(key);
    if (!fn) throw new InvalidOverrideError(`account ${addr} is not a precompile`);
    const dest = addressKey(o.movePrecompileToAddress);
    if (overrides?.has(`0x${dest}`))
      throw new InvalidOverrideError(`account 0x${dest} is already overridden`);
    active.delete(key);
    active.set(dest, fn);
    movedTo.add(dest);
  }
  return { fork, active, movedTo };
}

/** Whether an override set moves any precompile. */
export function movesPrecompiles(overrides: StateOverrides | undefined): boolean {
  if (overrides === undefined) return false;
  for (const o of overrides.values()) if (o.movePrecompileToAddress) return true;
  return false;
}

interface WarmJournal {
  addAlwaysWarmAddress(address: string, addToAccessList?: boolean): void;
}

/** The precompile set an EVM's journal currently warms by, once it has been wrapped. */
const installed = new WeakMap<WarmJournal, { set: PrecompileSet; primed: boolean }>();

/**
 * Makes `set.active` the EVM's precompiles. EIP-2929 warmth keeps following the fork's precompile
 * addresses, whatever was moved. Installing again (the next simulated block) replaces the set.
 * Returns the function to call before each transaction runs.
 */
export function installPrecompiles(evm: EVM, set: PrecompileSet): () => void {
  (evm as unknown as { _precompiles: Map<string, PrecompileFunc> })._precompiles = set.active;
  const journal = evm.journal as unknown as WarmJournal;
  let state = installed.get(journal);
  if (state === undefined) {
    const current = { set, primed: false };
    state = current;
    installed.set(journal, current);
    const original = journal.addAlwaysWarmAddress.bind(journal);
    journal.addAlwaysWarmAddress = (address: string, addToAccessList?: boolean) => {
      const key = address.startsWith('0x') ? address.slice(2) : address;
      if (!current.primed) {
        current.primed = true;
        for (const p of current.set.fork.keys()) original(p, addToAccessList);
      }
      if (current.set.movedTo.has(key) && !current.set.fork.has(key)) return;
      original(address, addToAccessList);
    };
  }
  const own = state;
  own.set = set;
  own.primed = false;
  return () => {
    own.primed = false;
  };
}

/**
 * Applies the overrides' account fields and storage, in Besu's order: nonce, balance, code, then
 * `state` (the whole storage replaced) and `stateDiff` (single slots set). An override that sets
 * nothing leaves its account as it is.
 */
export async function applyStateOverrides(
  state: StateManagerInterface,
  overrides: StateOverrides | undefined,
): Promise<void> {
  for (const [addr, o] of overrides ?? []) {
    await applyAccountOverride(state, new Address(Uint8Array.from(Buffer.from(addr.slice(2), 'hex'))), o);
  }
}

async function applyAccountOverride(
  state: StateManagerInterface,
  address: Address,
  o: AccountOverride,
): Promise<void> {
  const touches =
    o.nonce !== undefined ||
    o.balance !== undefined ||
    o.code !== undefined ||
    o.state !== undefined ||
    o.stateDiff !== undefined;
  if (!touches) return;
  const acc = (await state.getAccount(address)) ?? new Account();
  if (o.nonce !== undefined) acc.nonce = o.nonce;
  if (o.balance !== undefined) acc.balance = o.balance;
  await state.putAccount(address, acc);
  if (o.code !== undefined) await state.putCode(address, o.code);
  if (o.state !== undefined) {
    await state.clearStorage(address);
    for (const [k, v] of o.state) await state.putStorage(address, k, v);
  }
  if (o.stateDiff !== undefined) {
    for (const [k, v] of o.stateDiff) await state.putStorage(address, k, v);
  }
}
