/**
 * Block execution on the call interpreter. The EVM library's `runTx` keeps every transaction-level
 * rule (validation, intrinsic gas, up-front cost, nonce, EIP-2929 warm set, refunds and their cap,
 * the coinbase payment, the base fee burn, EIP-161 cleanup, SELFDESTRUCT finalisation, receipts);
 * its one call into the EVM, `runCall` for the transaction's message, runs here instead when the
 * interpreter can: synchronously, on a `CallWorld` over the block's state, its effects copied into
 * the block's state (through the EVM's journal, so `runTx` sees the touched accounts) only once the
 * message has completed. Receipts, logs and gas therefore come out of the library's own accounting.
 *
 * The rule: every transaction message — calls and contract creations, with inner CREATE/CREATE2
 * (EIP-3860 init code limits, code size and EIP-3541 deposit rules) and SELFDESTRUCT (EIP-6780 from
 * Cancun) — of the forks from Berlin on that `forkRules` accepts (not the Amsterdam proposals), while
 * no tracer is attached and not under Clique's signer-as-coinbase execution. Anything the interpreter
 * leaves (an asynchronous precompile, EIP-7702 delegated code, a gas limit beyond 2^40, a call deeper
 * than the JavaScript stack, an unknown ancestor for BLOCKHASH) throws `Fallback` before anything was
 * written, and the message runs on the library's EVM from its start, as if the interpreter had never
 * been asked.
 */
import { ConsensusAlgorithm } from '@ethereumjs/common';
import { type EVM, EVMError, type EVMResult, type EVMRunCallOpts, type Log } from '@ethereumjs/evm';
import { Account, Address, bytesToBigInt } from '@ethereumjs/util';
import { logger } from '../../log.js';
import { addressKey, hexKeyToBytes } from '../../state/trieStore.js';
import { objectList } from '../../util/objectList.js';
import { unpaddedWordBytes, wordBytes } from '../../util/word.js';
import { Fallback } from './fallback.js';
import { type CallEnv, create, createAddress, executeTop, type FrameResult, Outcome } from './interpreter.js';
import { type ForkRules, forkRules, runPrecompile } from './runner.js';
import { CallWorld, slotKeyOf, type WorldBase } from './world.js';

/** The part of the EVM's journal the interpreter reads (the warm set) and writes through. */
interface EvmJournal {
  alwaysWarmJournal: Map<string, Set<string>>;
  journal: Map<string, Set<string>>;
  touchAccount(address: string): void;
  putAccount(address: Address, account: Account | undefined): Promise<void>;
}

/** An event emitter, as far as asking who listens. */
export interface Listened {
  listenerCount(event: string): number;
}

/**
 * The block state the interpreter runs on: synchronous reads, the state manager's writes, and the
 * synchronous writes by key a message's or transaction's commit makes (BlockState's `setAccountAt`,
 * `setSlotAt`, `putCodeAt`, `clearStorageAt` and `deleteAccountAt`: the values handed over become the
 * state's own).
 */
export interface FastBlockState extends WorldBase {
  setAccountAt(key: string, address: Uint8Array, account: Account): void;
  setSlotAt(key: string, slotKey: string, value: Uint8Array): void;
  putCodeAt(key: string, address: Uint8Array, code: Uint8Array): void;
  clearStorageAt(key: string): void;
  deleteAccountAt(key: string, address: Uint8Array): void;
  putAccount(address: Address, account: Account | undefined): Promise<void>;
  putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void>;
}

export interface FastExecutionOptions {
  state: FastBlockState;
  /** The hash of ancestor `number` of the block being executed. */
  blockHash(number: bigint): Uint8Array | undefined;
  /** False to run every message on the library's EVM. */
  enabled?: () => boolean;
}

/** How many messages ran where, and why the fallbacks fell back (for logs and tests). */
export interface FastExecutionStats {
  fast: number;
  fallback: number;
  reasons: Map<string, number>;
  /** Transactions run by the own transaction runner (blockTx.ts), and those it left to the library. */
  ownTxs: number;
  libraryTxs: number;
}

const log = logger('execution');

/** EVM events a tracer listens to: with any listener the library's EVM runs, step by step. */
const TRACED_EVENTS = ['step', 'beforeMessage', 'afterMessage', 'newContract'];
/** Gas limits the interpreter counts in (a JavaScript number, exactly). */
export const MAX_GAS = 1n << 40n;
const EMPTY = new Uint8Array(0);
const MAX_BALANCE = (1n << 256n) - 1n;

/** The options and counters of the EVMs the interpreter is installed on. */
const installed = new WeakMap<
  EVM,
  { opts: FastExecutionOptions; stats: FastExecutionStats; runners: Map<string, FastTxRunner | null> }
>();

/**
 * Routes `vm.evm`'s top-level `runCall` (the transaction's message) through the interpreter where
 * the rule above allows. Returns the counters it keeps.
 */
export function installFastExecution(evm: EVM, opts: FastExecutionOptions): FastExecutionStats {
  const stats: FastExecutionStats = { fast: 0, fallback: 0, reasons: new Map(), ownTxs: 0, libraryTxs: 0 };
  installed.set(evm, { opts, stats, runners: new Map() });
  const library = evm.runCall.bind(evm);
  const fallback = (reason: string, callOpts: EVMRunCallOpts): Promise<EVMResult> => {
    stats.fallback++;
    stats.reasons.set(reason, (stats.reasons.get(reason) ?? 0) + 1);
    return library(callOpts);
  };

  evm.runCall = async (callOpts: EVMRunCallOpts): Promise<EVMResult> => {
    // Inner messages of a library run, and anything not shaped as a transaction's message.
    if (callOpts.message !== undefined || (callOpts.depth ?? 0) !== 0) return library(callOpts);
    const runner = fastTxRunner(evm);
    if (runner === undefined) return library(callOpts);
    const { caller, block } = callOpts;
    if (caller === undefined || block === undefined || callOpts.skipBalance === true)
      return library(callOpts);
    const gasLimit = callOpts.gasLimit ?? 0n;
    if (gasLimit > MAX_GAS) return fallback('gas limit', callOpts);
    let ran: Ran;
    try {
      ran = runMessage(runner, worldFromJournal(evm, opts.state), callOpts);
    } catch (err) {
      const reason = fallbackReason(err);
      if (reason === undefined) throw err;
      return fallback(reason, callOpts);
    }
    stats.fast++;
    await commit(ran.world, evm.journal as unknown as EvmJournal, opts.state);
    return ran.result;
  };
  return stats;
}

/** What runs a transaction's message on the interpreter: the EVM, its fork's rules, the options. */
export interface FastTxRunner {
  evm: EVM;
  rules: ForkRules;
  /** What the messages of one block share (`blockEnv`), for the block last run. */
  block?: { header: EnvHeader; env: BlockEnv };
  opts: FastExecutionOptions;
  stats: FastExecutionStats;
}

/**
 * The interpreter's runner for `evm`'s transaction messages now, by the rule above (installed and
 * enabled, no tracer, a served fork, not Clique); undefined when the library's EVM runs them.
 */
export function fastTxRunner(evm: EVM): FastTxRunner | undefined {
  const entry = installed.get(evm);
  if (entry === undefined) return undefined;
  const { opts, stats } = entry;
  if (opts.enabled !== undefined && !opts.enabled()) return undefined;
  const events = evm.events as unknown as Listened | undefined;
  if (events !== undefined && TRACED_EVENTS.some((e) => events.listenerCount(e) > 0)) return undefined;
  const common = evm.common;
  if (common.consensusAlgorithm() === ConsensusAlgorithm.Clique) return undefined;
  const fork = common.hardfork();
  let runner = entry.runners.get(fork);
  if (runner === undefined) {
    const rules = forkRules(common);
    runner = rules === undefined ? null : { evm, rules, opts, stats };
    entry.runners.set(fork, runner);
  }
  return runner ?? undefined;
}

/**
 * Why the interpreter left a message it was running (nothing was written), or undefined when `err`
 * is not such a case: a `Fallback`, a call nested deeper than the JavaScript stack allows, or a
 * failure of the interpreter itself (logged; the library's EVM answers).
 */
export function fallbackReason(err: unknown): string | undefined {
  if (err instanceof Fallback) return err.message;
  if (err instanceof RangeError) return 'stack depth';
  log.error({ err }, 'The call interpreter failed on a transaction message; it runs on the EVM library');
  return 'interpreter error';
}

/**
 * A world over the block's state for a message the library's `runTx` prepared, warm with what it
 * warmed: precompiles, sender, recipient, coinbase, the access list.
 */
function worldFromJournal(evm: EVM, state: FastBlockState): CallWorld {
  const journal = evm.journal as unknown as EvmJournal;
  const world = new CallWorld(state);
  world.logs = [];
  world.touched = new Set();
  for (const warm of [journal.alwaysWarmJournal, journal.journal]) {
    for (const [address, slots] of warm) {
      world.warmAddress(address);
      for (const slot of slots)
        world.warmSlot(address, slot.length === 64 ? slot : slotKeyOf(BigInt(`0x${slot}`)));
    }
  }
  return world;
}

/**
 * A recording world over the block's state for a whole transaction (the own transaction runner,
 * blockTx.ts): the fork's precompiles warm throughout, the rest of the warm set added by the caller.
 */
export function transactionWorld(runner: FastTxRunner): CallWorld {
  const world = new CallWorld(runner.opts.state, runner.evm.precompiles);
  world.logs = [];
  world.touched = new Set();
  return world;
}

/** A message the interpreter ran: its result, and its effects still only in its world. */
export interface Ran {
  world: CallWorld;
  result: EVMResult;
}

/** The header fields a message's environment reads (the EVM's view of the block's header). */
type EnvHeader = NonNullable<EVMRunCallOpts['block']>['header'];

/** The part of a message's environment every message of a block shares. */
type BlockEnv = Omit<CallEnv, 'world' | 'origin' | 'gasPrice' | 'blobHashes'>;

/** The block's shared environment, made once per block (per header object) and runner. */
function blockEnv(runner: FastTxRunner, header: EnvHeader): BlockEnv {
  const last = runner.block;
  if (last !== undefined && last.header === header) return last.env;
  const { evm, rules, opts } = runner;
  const precompiles = evm.precompiles;
  const env: BlockEnv = {
    valid: rules.valid,
    fee: rules.fee,
    sstoreClearRefund: rules.sstoreClearRefund,
    coinbase: bytesToBigInt(header.coinbase.bytes),
    timestamp: header.timestamp,
    number: header.number,
    prevRandao: rules.prevRandao ? bytesToBigInt(header.prevRandao) : header.difficulty,
    blockGasLimit: header.gasLimit,
    chainId: evm.common.chainId(),
    baseFee: header.baseFeePerGas ?? 0n,
    blobBaseFee: evm.common.isActivatedEIP(4844) ? (header.getBlobGasPrice() ?? 0n) : 0n,
    delegation: rules.delegation,
    lifecycle: rules.lifecycle,
    blockHash: (n) => {
      const h = opts.blockHash(n);
      // The library's EVM fails the block on an unknown ancestor: leave that to it.
      if (h === undefined) throw new Fallback('unknown ancestor');
      return bytesToBigInt(h);
    },
    isPrecompile: (key) => precompiles.has(key),
    runPrecompile: (key, data, gas) => runPrecompile(evm, key, data, gas),
  };
  runner.block = { header, env };
  return env;
}

/**
 * Runs a transaction's message on `world` (over the block's state, warm as the transaction makes it);
 * writes nothing outside that world. Throws what `fallbackReason` names when the interpreter leaves it.
 */
export function runMessage(runner: FastTxRunner, world: CallWorld, callOpts: EVMRunCallOpts): Ran {
  const { to } = callOpts;
  const caller = callOpts.caller as Address;
  const gasLimit = callOpts.gasLimit ?? 0n;
  const header = (callOpts.block as NonNullable<EVMRunCallOpts['block']>).header;
  const from = addressKey(caller);
  const value = callOpts.value ?? 0n;
  const origin = callOpts.origin;
  const block = blockEnv(runner, header);
  // One literal in CallEnv's order (the shape eth_call's environment has too): spreading the block's
  // part into a new object took ~6 µs per transaction, most of this function's own time.
  const env: CallEnv = {
    world,
    valid: block.valid,
    fee: block.fee,
    sstoreClearRefund: block.sstoreClearRefund,
    origin: BigInt(`0x${origin === undefined || origin === caller ? from : addressKey(origin)}`),
    gasPrice: callOpts.gasPrice ?? 0n,
    coinbase: block.coinbase,
    timestamp: block.timestamp,
    number: block.number,
    prevRandao: block.prevRandao,
    blockGasLimit: block.blockGasLimit,
    chainId: block.chainId,
    baseFee: block.baseFee,
    blobBaseFee: block.blobBaseFee,
    blobHashes:
      callOpts.blobVersionedHashes === undefined ? [] : callOpts.blobVersionedHashes.map((h) => BigInt(h)),
    delegation: block.delegation,
    lifecycle: block.lifecycle,
    blockHash: block.blockHash,
    isPrecompile: block.isPrecompile,
    runPrecompile: block.runPrecompile,
  };

  if (value > world.balance(from)) throw new Fallback('value beyond the sender balance');
  const gas = Number(gasLimit);
  const data = callOpts.data ?? EMPTY;
  let frame: FrameResult;
  let created: string | undefined;
  if (to === undefined) {
    // A contract creation: the sender's nonce is bumped already (runTx, or the own runner).
    created = createAddress(from, world.nonce(from) - 1n);
    world.touchAddress(created);
    const limit = runner.rules.lifecycle.maxInitCodeSize;
    frame =
      limit > 0 && data.length > limit
        ? { outcome: Outcome.Halt, gasLeft: 0, output: EMPTY }
        : create(env, from, created, value, data, gas, 0);
  } else {
    frame = message(env, from, addressKey(to), value, data, gas, callOpts.isStatic === true);
  }
  const success = frame.outcome === Outcome.Success;
  // One array shape for every transaction's logs and every log's topics, none or some (see objectList).
  const logs = objectList<Log>();
  if (success && world.logs !== undefined)
    for (const [key, topics, data] of world.logs) {
      const words = objectList<Uint8Array>();
      for (const topic of topics) words.push(wordBytes(topic));
      logs.push([hexKeyToBytes(key), words, data]);
    }
  const prefixed = (key: string): `0x${string}` => `0x${key}`;
  const result: EVMResult = {
    createdAddress: created === undefined ? undefined : new Address(hexKeyToBytes(created)),
    execResult: {
      returnValue: frame.output,
      executionGasUsed: gasLimit - BigInt(frame.gasLeft),
      gasRefund: success ? BigInt(world.refund) : 0n,
      exceptionError: success ? undefined : evmError(frame),
      logs,
      selfdestruct: success
        ? new Map([...world.selfdestructs].map(([k, b]) => [prefixed(k), prefixed(b)]))
        : new Map(),
      createdAddresses: success ? new Set([...world.created].map(prefixed)) : new Set(),
      gas: BigInt(frame.gasLeft),
    },
  };
  return { world, result };
}

/** The transaction's message call to `toKey`: the value moves (the recipient is touched even without value), then its code runs. */
function message(
  env: CallEnv,
  from: string,
  toKey: string,
  value: bigint,
  data: Uint8Array,
  gas: number,
  isStatic: boolean,
): FrameResult {
  const world = env.world;
  const mark = world.checkpoint();
  world.touch(from);
  world.touch(toKey);
  if (value !== 0n && toKey !== from) {
    const credited = world.balance(toKey) + value;
    if (credited > MAX_BALANCE) throw new Fallback('balance overflow');
    world.setBalance(from, world.balance(from) - value);
    world.setBalance(toKey, credited);
  }
  const frame = executeTop(
    env,
    {
      code: env.isPrecompile(toKey) ? EMPTY : world.code(toKey),
      address: toKey,
      caller: BigInt(`0x${from}`),
      value,
      data,
      gas,
      isStatic,
      depth: 0,
    },
    toKey,
  );
  if (frame.outcome !== Outcome.Success) world.revert(mark);
  return frame;
}

/**
 * Copies the message's effects into the block's state: balances and nonces through the EVM's
 * journal (which marks the accounts touched for EIP-161, as the library's own writes do), touched
 * accounts left unchanged as touched only, and the storage slots whose value changed.
 */
async function commit(world: CallWorld, journal: EvmJournal, state: FastBlockState): Promise<void> {
  // The journal's writes take effect when called (its promises only report completion): the
  // order below is the order of the calls.
  const writes: Promise<void>[] = [];
  const changed = applyWorld(world, state, (key, account) =>
    writes.push(journal.putAccount(new Address(hexKeyToBytes(key)), account)),
  );
  await Promise.all(writes);
  for (const key of world.touched ?? []) if (!changed.has(key)) journal.touchAccount(key);
}

/**
 * Writes a whole transaction's effects (the own transaction runner's world) into the block's state
 * directly, as `commit` writes a message's; returns the keys of the accounts whose balance or nonce
 * it wrote (with the world's touched ones, what the transaction's EIP-161 clean-up looks at).
 */
export function commitTransaction(world: CallWorld, state: FastBlockState): Set<string> {
  return applyWorld(world, state, (key, account) => state.setAccountAt(key, hexKeyToBytes(key), account));
}

/**
 * The world's writes into the block's state, synchronously: a created account's storage cleared
 * before it takes its code, each changed balance and nonce as a new account handed to `putAccount`
 * (by address key), the slots whose value changed.
 */
function applyWorld(
  world: CallWorld,
  state: FastBlockState,
  putAccount: (key: string, account: Account) => unknown,
): Set<string> {
  // A created account starts without storage, then takes its code (which sets its code hash).
  for (const key of world.created) state.clearStorageAt(key);
  for (const [key, code] of world.codes) state.putCodeAt(key, hexKeyToBytes(key), code);
  const changed = new Set<string>(world.balances.keys());
  for (const key of world.nonces.keys()) changed.add(key);
  for (const key of changed) {
    const current = state.accountSync(key);
    const account =
      current === undefined
        ? new Account()
        : new Account(current.nonce, current.balance, current.storageRoot, current.codeHash);
    const balance = world.balances.get(key);
    if (balance !== undefined) account.balance = balance;
    const nonce = world.nonces.get(key);
    if (nonce !== undefined) account.nonce = nonce;
    putAccount(key, account);
  }
  for (const [key, slots] of world.writtenSlots()) {
    for (const [slotKey, value] of slots) {
      if (value !== world.original(key, slotKey)) state.setSlotAt(key, slotKey, unpaddedWordBytes(value));
    }
  }
  return changed;
}

/** The library's error for a failed message (only its presence reaches the receipt). */
function evmError(frame: FrameResult): EVMError {
  const m = EVMError.errorMessages;
  if (frame.outcome === Outcome.Revert) return new EVMError(m.REVERT);
  const reason = frame.error ?? '';
  if (reason === 'Invalid jump destination') return new EVMError(m.INVALID_JUMP);
  if (reason === 'Stack underflow') return new EVMError(m.STACK_UNDERFLOW);
  if (reason === 'Stack overflow') return new EVMError(m.STACK_OVERFLOW);
  if (reason === 'static state change') return new EVMError(m.STATIC_STATE_CHANGE);
  if (reason.startsWith('Invalid opcode')) return new EVMError(m.INVALID_OPCODE);
  if (reason === 'Collision') return new EVMError(m.CREATE_COLLISION);
  // A failed precompile reports in the library's own words.
  if ((Object.values(m) as string[]).includes(reason)) return new EVMError(reason as EVMError['error']);
  return new EVMError(m.OUT_OF_GAS);
}
