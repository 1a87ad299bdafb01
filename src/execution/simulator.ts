/**
 * Simulates a transaction on the state of a block, as Besu's transaction simulator does for
 * eth_call, eth_estimateGas and eth_createAccessList: state = the block's state root, block
 * environment = the block's own header. Nothing reaches the chain's store: each run's writes and
 * overrides stay in its `CallState` overlay, which is dropped afterwards, while the committed state
 * it reads is memoised in a `StateSnapshot` shared by every call at that state root. VMs are pooled
 * per block, so a call at a warm block builds nothing but its transaction.
 */

import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { type EVM, getActivePrecompiles } from '@ethereumjs/evm';
import { paramsTx, type TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, bytesToHex, equalsBytes, KECCAK256_NULL, setLengthLeft } from '@ethereumjs/util';
import { createVM, type RunTxResult, runTx, type VM } from '@ethereumjs/vm';
import { AncestorHashes } from '../chain/ancestorHashes.js';
import type { ChainStore } from '../chain/chainStore.js';
import type { WorldState } from '../state/worldState.js';
import { useFastCommonLookups } from '../util/commonLookups.js';
import { armAuthorizations } from './authorizations.js';
import { CallState } from './callState.js';
import { buildCallTransaction, type CallTxFields } from './callTransaction.js';
import type { AccessListEntry, CallRequest, StateOverrides } from './callTypes.js';
import { addressKeyOf } from './fastCall/addressKeys.js';
import { Fallback } from './fastCall/fallback.js';
import { type FastTx, type ForkRules, forkRules, runFastCall } from './fastCall/runner.js';
import {
  applyStateOverrides,
  InvalidOverrideError,
  installPrecompiles,
  movesPrecompiles,
  resolvePrecompiles,
} from './stateOverrides.js';
import { attachTracer, type BlockTracer, TraceAbort } from './tracer.js';

export type {
  AccessListEntry,
  AccountOverride,
  AuthorizationItem,
  CallRequest,
  StateOverrides,
} from './callTypes.js';
export { openOverlayState } from './overlayStore.js';

export type InvalidReason =
  | 'NONCE_TOO_LOW'
  | 'UPFRONT_COST_EXCEEDS_BALANCE'
  | 'INTRINSIC_GAS_EXCEEDS_GAS_LIMIT'
  | 'INITCODE_TOO_LARGE'
  | 'TOTAL_BLOB_GAS_TOO_HIGH'
  | 'INVALID_BLOBS'
  | 'INVALID_TRANSACTION_FORMAT'
  | 'BLOB_GAS_PRICE_BELOW_BLOB_BASE_FEE'
  | 'OTHER';

/** The transaction could not be run at all (Besu's transaction validation result). */
export class InvalidSimulationError extends Error {
  override name = 'InvalidSimulationError';
  constructor(
    readonly reason: InvalidReason,
    readonly detail: string,
  ) {
    super(detail);
  }
}

export interface SimulationResult {
  status: 'success' | 'revert' | 'halt';
  output: Uint8Array;
  /** Gas used before refunds (Besu's estimate-gas figure). */
  gasUsedBeforeRefund: bigint;
  /** Gas charged after refunds. */
  gasUsed: bigint;
  gasLimit: bigint;
  /** Besu's halt reason, e.g. `Invalid opcode: 0xfe` or `Out of gas`. */
  haltReason?: string;
  accessList?: AccessListEntry[];
}

export interface SimulateOptions {
  overrides?: StateOverrides;
  /** Replaces the call's gas (estimateGas probing). */
  gasLimit?: bigint;
  reportAccessList?: boolean;
  /**
   * Traces the run (the library's EVM, on a VM of its own whose state manager the tracer may wrap):
   * `onBlockStart` sees the VM and the block environment, then the transaction hooks run as in a block.
   */
  tracer?: BlockTracer;
  /** Run even when the sender's balance cannot pay the call's value and gas (debug_traceCall). */
  allowExceedingBalance?: boolean;
}

const ZERO_ADDRESS = new Uint8Array(20);

function hexQ(v: bigint): string {
  return `0x${v.toString(16)}`;
}

/** The fees of a call that is neither a blob nor a set-code transaction, and the shape it takes. */
interface MessageFees {
  kind: 'feeMarket' | 'accessList' | 'legacy';
  /** The legacy and access-list gas price (0 for the fee-market shape). */
  gasPrice: bigint;
  /** What the sender may pay per gas: the fee cap, or the gas price. */
  maxFee: bigint;
  tip: bigint;
}

/**
 * Besu's choice: after London any EIP-1559 fee field makes a fee-market call (the cap defaulting to
 * base fee + tip, the tip no higher than the cap); otherwise an access list makes an EIP-2930 call
 * and anything else a legacy one, priced by the gas price.
 */
function messageFees(
  call: CallRequest,
  london: boolean,
  baseFee: bigint | undefined,
  common: Common,
): MessageFees {
  if (london && (call.maxFeePerGas !== undefined || call.maxPriorityFeePerGas !== undefined)) {
    const tip = call.maxPriorityFeePerGas ?? 0n;
    const maxFee = call.maxFeePerGas ?? (baseFee ?? 0n) + tip;
    return { kind: 'feeMarket', gasPrice: 0n, maxFee, tip: tip > maxFee ? maxFee : tip };
  }
  if (call.accessList !== undefined && common.isActivatedEIP(2930)) {
    const gasPrice = call.gasPrice ?? 0n;
    return { kind: 'accessList', gasPrice, maxFee: gasPrice, tip: 0n };
  }
  const gasPrice = call.gasPrice ?? call.maxFeePerGas ?? 0n;
  return { kind: 'legacy', gasPrice, maxFee: gasPrice, tip: 0n };
}

const WEI_UNITS = [
  'wei',
  'kwei',
  'mwei',
  'gwei',
  'szabo',
  'finney',
  'ether',
  'kether',
  'mether',
  'gether',
  'tether',
] as const;

/** An amount as Besu writes it in messages: `0 wei`, `1.50 kwei`, `30.00 gwei` … */
function humanWei(v: bigint): string {
  const digits = v.toString().length;
  let unit = WEI_UNITS.findIndex((_, i) => digits <= i * 3 + 3);
  if (unit < 0) unit = WEI_UNITS.length - 1;
  const value = Number(v) / 10 ** (unit * 3);
  return `${value.toFixed(unit === 0 ? 0 : 2)} ${WEI_UNITS[unit]}`;
}

function intrinsicTooHigh(intrinsic: bigint, gasLimit: bigint): InvalidSimulationError {
  return new InvalidSimulationError(
    'INTRINSIC_GAS_EXCEEDS_GAS_LIMIT',
    `intrinsic gas cost ${intrinsic} exceeds gas limit ${gasLimit}`,
  );
}

function upfrontTooHigh(upfront: bigint, balance: bigint, from: Address): InvalidSimulationError {
  return new InvalidSimulationError(
    'UPFRONT_COST_EXCEEDS_BALANCE',
    `transaction up-front cost ${hexQ(upfront)} exceeds transaction sender account balance ${hexQ(balance)} for sender ${from.toString()}`,
  );
}

interface SimContext {
  vm: VM;
  /** The call interpreter's fork rules; `null` when it does not run this fork (worked out on first use). */
  rules?: ForkRules | null;
  state: CallState;
  common: Common;
  /** What the context's transactions are built with (see `sharedTxCommon`). */
  txCommon: Common;
  /** The block it is at; undefined for one-off contexts (moved precompiles), never pooled. */
  key?: string;
  /** Moved precompiles: re-primes their warm set before a run. */
  rearm?: () => void;
}

/** Blocks with idle contexts kept, and idle contexts kept per block (one per concurrent caller). */
const MAX_BLOCKS = 4;
const MAX_IDLE_PER_BLOCK = 16;

/**
 * A Common for building call transactions with. Every transaction constructor copies the Common it
 * is given and merges the transaction parameters into the copy, which rebuilds the whole parameter
 * table (a sixth of a view call's time). Here that is done once per context: the copy already holds
 * the transaction parameters, and copying or re-merging it hands back the same object. Transactions
 * never change their Common's hardfork or parameters, so sharing it between them is safe.
 */
function sharedTxCommon(common: Common): Common {
  const shared = common.copy();
  shared.updateParams(paramsTx);
  useFastCommonLookups(shared);
  Object.defineProperties(shared, {
    copy: { value: () => shared },
    updateParams: { value: () => {} },
  });
  return shared;
}

/** The author of `header`, worked out once, whatever header the EVM later asks about. */
function authorOf(author: (header: BlockHeader) => Address, header: BlockHeader): () => Address {
  let address: Address | undefined;
  return () => {
    address ??= author(header);
    return address;
  };
}

export class CallSimulator {
  /** Idle contexts by block hash, most recently used block last. */
  private readonly idle = new Map<string, SimContext[]>();
  private readonly poolKeys = new WeakMap<BlockHeader, string>();
  /** Calls run on the interpreter and on the EVM library (fallbacks included). */
  readonly stats = { fast: 0, library: 0 };

  constructor(
    private readonly chain: ChainStore,
    private readonly world: WorldState,
    /** 0 = no cap. */
    private readonly gasCap: bigint,
    /**
     * Proof of authority: who sealed a block (its fee recipient, and what COINBASE reads in calls on
     * its state, as Besu's mining-beneficiary rule has it). The EVM runs no code on such a chain
     * without it.
     */
    private readonly blockAuthor?: (header: BlockHeader) => Address,
    /** Runs every call on the EVM library (the interpreter's differential tests compare both). */
    private readonly fastDisabled = false,
  ) {}

  /** The gas limit a call runs with: the given gas or the block's, capped by --rpc-gas-cap. */
  gasLimitFor(header: BlockHeader, call: CallRequest): bigint {
    let gas = call.gas ?? header.gasLimit;
    if (this.gasCap > 0n && gas > this.gasCap) gas = this.gasCap;
    // EIP-7825 (Osaka) caps a transaction's gas; a call that names no gas gets the cap.
    const common = header.common;
    if (call.gas === undefined && common.isActivatedEIP(7825)) {
      let max = 1n << 24n;
      try {
        max = common.param('maxTransactionGasLimit');
      } catch {
        // the parameter is only registered with the Osaka parameter set
      }
      if (gas > max) gas = max;
    }
    return gas;
  }

  async simulate(
    header: BlockHeader,
    call: CallRequest,
    opts: SimulateOptions = {},
  ): Promise<SimulationResult> {
    let ctx: SimContext;
    try {
      ctx =
        movesPrecompiles(opts.overrides) || opts.tracer
          ? await this.freshContext(header, opts.overrides)
          : await this.acquire(header);
    } catch (err) {
      if (err instanceof InvalidOverrideError) throw new InvalidSimulationError('OTHER', err.message);
      throw err;
    }
    try {
      await applyStateOverrides(ctx.state, opts.overrides);
      return await this.run(ctx, header, call, opts);
    } finally {
      ctx.state.reset();
      this.release(ctx);
    }
  }

  /**
   * Runs `calls` one after another on the state of `header`, each seeing the writes of those before it
   * (trace_callMany), each with its tracer. A call that cannot run as a transaction throws.
   */
  async simulateSequence(
    header: BlockHeader,
    calls: ReadonlyArray<{ call: CallRequest; tracer: BlockTracer }>,
  ): Promise<SimulationResult[]> {
    const ctx = await this.freshContext(header, undefined);
    ctx.state.meterAgainstSnapshot();
    try {
      const out: SimulationResult[] = [];
      for (const { call, tracer } of calls) out.push(await this.run(ctx, header, call, { tracer }));
      return out;
    } finally {
      ctx.state.reset();
    }
  }

  private release(ctx: SimContext): void {
    if (ctx.key === undefined) return;
    const pool = this.idle.get(ctx.key);
    if (pool) {
      if (pool.length < MAX_IDLE_PER_BLOCK) pool.push(ctx);
      return;
    }
    this.idle.set(ctx.key, [ctx]);
    while (this.idle.size > MAX_BLOCKS) {
      const oldest = this.idle.keys().next().value as string;
      this.idle.delete(oldest);
    }
  }

  /**
   * A VM at the block, reused while idle: calls at the same block skip building a VM (its state is
   * reset after every run). Each concurrent call holds its own context; released ones wait in a
   * per-block pool.
   */
  private async acquire(header: BlockHeader): Promise<SimContext> {
    const key = this.poolKey(header);
    const idle = this.acquireIdle(key);
    if (idle !== undefined) return idle;
    const ctx = await this.freshContext(header, undefined);
    ctx.key = key;
    return ctx;
  }

  /** The key of a block's context pool: its hash in hex (kept per header object, which the chain reuses). */
  private poolKey(header: BlockHeader): string {
    let key = this.poolKeys.get(header);
    if (key === undefined) {
      key = bytesToHex(header.hash());
      this.poolKeys.set(header, key);
    }
    return key;
  }

  /** An idle pooled context at the block with this key, if there is one. */
  private acquireIdle(key: string): SimContext | undefined {
    const pool = this.idle.get(key);
    if (pool === undefined) return undefined;
    // Most recently used block last.
    if (this.idle.size > 1) {
      this.idle.delete(key);
      this.idle.set(key, pool);
    }
    return pool.pop();
  }

  private async freshContext(
    header: BlockHeader,
    overrides: StateOverrides | undefined,
  ): Promise<SimContext> {
    const common = header.common.copy();
    useFastCommonLookups(common);
    const state = new CallState(this.world.at(header.stateRoot));
    const precompiles = movesPrecompiles(overrides)
      ? resolvePrecompiles(getActivePrecompiles(common), overrides)
      : undefined;
    const vm: VM = await createVM({
      common,
      stateManager: state,
      blockchain: new AncestorHashes(this.chain, header) as never,
      evmOpts: this.blockAuthor ? { cliqueSigner: authorOf(this.blockAuthor, header) } : {},
    });
    const rearm = precompiles ? installPrecompiles(vm.evm as EVM, precompiles) : undefined;
    return { vm, state, common, txCommon: sharedTxCommon(common), rearm };
  }

  /**
   * The call on the interpreter in `fastCall/` when it can run it (a message call of a legacy,
   * access-list or fee-market shape on a fork it implements); `undefined` to use the library's EVM.
   * Validation failures throw exactly as on the library path.
   */
  private tryFast(
    ctx: SimContext,
    header: BlockHeader,
    call: CallRequest,
    opts: SimulateOptions,
    p: {
      from: Address;
      gasLimit: bigint;
      baseFee: bigint | undefined;
      london: boolean;
      feesGiven: boolean;
      checkBalance: boolean;
      balance: bigint;
    },
  ): SimulationResult | undefined {
    if (ctx.key === undefined || this.fastDisabled || opts.tracer) return undefined;
    if (
      call.to === undefined ||
      call.blobVersionedHashes !== undefined ||
      call.authorizationList !== undefined
    ) {
      return undefined;
    }
    const common = ctx.common;
    if (ctx.rules === undefined) ctx.rules = forkRules(ctx.vm.evm.common) ?? null;
    const rules = ctx.rules;
    if (rules === null) return undefined;
    if (common.isActivatedEIP(7825) && p.gasLimit > 1n << 24n) return undefined;

    const { kind, gasPrice, maxFee, tip } = messageFees(call, p.london, p.baseFee, common);
    const value = call.value ?? 0n;
    // Out-of-range figures make the library refuse the transaction: leave those answers to it.
    if (maxFee >= 1n << 256n || value >= 1n << 256n || p.gasLimit * maxFee >= 1n << 256n) return undefined;

    const data = call.data ?? new Uint8Array();
    let zeros = 0;
    for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++;
    const nonZeros = data.length - zeros;
    let intrinsic = 21000n + BigInt(zeros * 4 + nonZeros * 16);
    const accessList = call.accessList ?? [];
    for (const [, keys] of accessList) intrinsic += 2400n + 1900n * BigInt(keys.length);
    if (intrinsic > p.gasLimit) throw intrinsicTooHigh(intrinsic, p.gasLimit);
    // Without the balance check the call is priced at zero, but its value must still be there.
    const upfront = p.checkBalance ? p.gasLimit * maxFee + value : value;
    if (upfront > p.balance) throw upfrontTooHigh(upfront, p.balance, p.from);
    const zeroBaseFee = p.baseFee !== undefined && (!p.feesGiven || maxFee < p.baseFee);
    const tx: FastTx = {
      from: p.from.bytes,
      to: call.to,
      value,
      data,
      gasLimit: p.gasLimit,
      intrinsic,
      floor: 21000n + 10n * BigInt(zeros + nonZeros * 4),
      accessList,
      feeMarket: kind === 'feeMarket',
      gasPrice,
      maxFeePerGas: maxFee,
      maxPriorityFeePerGas: tip,
    };
    try {
      const r = runFastCall(
        {
          rules,
          evm: ctx.vm.evm as EVM,
          state: ctx.state,
          header,
          baseFee: zeroBaseFee ? 0n : (p.baseFee ?? 0n),
          coinbase: this.blockAuthor ? this.blockAuthor(header).bytes : header.coinbase.bytes,
          blockHash: (n) => this.chain.ancestorHash(header, n),
        },
        tx,
        opts.reportAccessList === true,
      );
      this.stats.fast++;
      // Spelled out rather than spread: the same keys in the same order, without the spread's cost.
      return {
        status: r.status,
        output: r.output,
        gasUsed: r.gasUsed,
        gasUsedBeforeRefund: r.gasUsedBeforeRefund,
        haltReason: r.haltReason,
        accessList: r.accessList,
        gasLimit: p.gasLimit,
      };
    } catch (err) {
      // A call nested deeper than the JavaScript stack allows is left to the library's EVM too.
      if (err instanceof Fallback || err instanceof RangeError) return undefined;
      throw err;
    }
  }

  /** What a run works out from the call before executing it (shared by both paths). */
  private callParams(
    ctx: SimContext,
    header: BlockHeader,
    call: CallRequest,
    opts: SimulateOptions,
    account: Account | undefined,
  ) {
    const { common } = ctx;
    const from = new Address(call.from ?? ZERO_ADDRESS);
    const gasLimit = opts.gasLimit ?? this.gasLimitFor(header, call);
    const baseFee = header.baseFeePerGas;
    const london = common.isActivatedEIP(1559);
    const feesGiven =
      (call.gasPrice ?? 0n) > 0n || (call.maxFeePerGas ?? 0n) > 0n || (call.maxPriorityFeePerGas ?? 0n) > 0n;
    // Besu's automatic choice when `strict` is absent: before London only a gas price counts; after
    // it any fee field does, and a blob call without a blob fee is never balance-checked.
    let autoCheck = baseFee === undefined ? (call.gasPrice ?? 0n) > 0n : feesGiven;
    if (
      baseFee !== undefined &&
      call.blobVersionedHashes !== undefined &&
      (call.maxFeePerBlobGas ?? 0n) === 0n
    ) {
      autoCheck = false;
    }
    const checkBalance = opts.allowExceedingBalance ? false : (call.strict ?? autoCheck);
    const accountNonce = account?.nonce ?? 0n;
    const nonce = call.nonce ?? accountNonce;
    // Besu validates the transaction (init code size, intrinsic gas) before the sender (balance,
    // then nonce): a stale nonce is reported only when nothing else is wrong, so such a call takes
    // the library path, where the checks run in that order.
    const nonceTooLow = call.nonce !== undefined && call.nonce < accountNonce;
    return {
      from,
      gasLimit,
      baseFee,
      london,
      feesGiven,
      checkBalance,
      balance: account?.balance ?? 0n,
      nonce,
      nonceTooLow,
    };
  }

  /**
   * The call on the interpreter, synchronously, when nothing asks for the asynchronous path: no
   * overrides, no tracer, an idle context already pooled at the block, a message call the interpreter
   * runs. Undefined otherwise, and the caller then uses `simulate`, which answers the same. Validation
   * failures throw as `simulate` throws them.
   */
  simulateFast(
    header: BlockHeader,
    call: CallRequest,
    opts: SimulateOptions = {},
  ): SimulationResult | undefined {
    if (opts.overrides !== undefined || opts.tracer || this.fastDisabled) return undefined;
    if (
      call.to === undefined ||
      call.blobVersionedHashes !== undefined ||
      call.authorizationList !== undefined
    )
      return undefined;
    const ctx = this.acquireIdle(this.poolKey(header));
    if (ctx === undefined) return undefined;
    try {
      const from = call.from ?? ZERO_ADDRESS;
      const p = this.callParams(ctx, header, call, opts, ctx.state.accountSync(addressKeyOf(from).key));
      if (p.nonceTooLow) return undefined;
      return this.tryFast(ctx, header, call, opts, p);
    } finally {
      ctx.state.reset();
      this.release(ctx);
    }
  }

  private async run(
    ctx: SimContext,
    header: BlockHeader,
    call: CallRequest,
    opts: SimulateOptions,
  ): Promise<SimulationResult> {
    const { vm, state, common } = ctx;
    let account = await state.getAccount(new Address(call.from ?? ZERO_ADDRESS));
    const params = this.callParams(ctx, header, call, opts, account);
    const { from, gasLimit, baseFee, london, feesGiven, checkBalance, nonce, nonceTooLow } = params;
    if (!account) account = new Account();

    const fast = nonceTooLow || opts.tracer ? undefined : this.tryFast(ctx, header, call, opts, params);
    if (fast !== undefined) return fast;
    this.stats.library++;

    // Besu validates a blob transaction's shape before anything else about it.
    if (call.blobVersionedHashes !== undefined && call.to === undefined && common.isActivatedEIP(4844)) {
      throw new InvalidSimulationError(
        'INVALID_TRANSACTION_FORMAT',
        'transaction blob transactions must have a to address',
      );
    }
    if (call.to === undefined && common.isActivatedEIP(3860)) {
      const size = call.data?.length ?? 0;
      const max = Number(common.param('maxInitCodeSize'));
      if (size > max) {
        throw new InvalidSimulationError(
          'INITCODE_TOO_LARGE',
          `Initcode size of ${size} exceeds maximum size of ${max}`,
        );
      }
    }

    let maxFee = 0n;
    const blobs = call.blobVersionedHashes;
    if (blobs !== undefined && common.isActivatedEIP(4844)) {
      const maxBlobs = Number(common.param('maxBlobGasPerBlock') / common.param('blobGasPerBlob'));
      if (blobs.length > maxBlobs) {
        throw new InvalidSimulationError(
          'TOTAL_BLOB_GAS_TOO_HIGH',
          `Blob transaction has too many blobs: ${blobs.length}`,
        );
      }
    }
    const fields: CallTxFields = {
      kind: 'legacy',
      nonce,
      gasLimit,
      gasPrice: 0n,
      maxFeePerGas: 0n,
      maxPriorityFeePerGas: call.maxPriorityFeePerGas ?? 0n,
      maxFeePerBlobGas: 0n,
    };
    if (blobs !== undefined && common.isActivatedEIP(4844)) {
      const blobPrice = header.getBlobGasPrice();
      const blobFeeCap = call.maxFeePerBlobGas ?? 0n;
      // A checked (priced) call must pay the block's blob base fee, as a transaction must.
      if (checkBalance && blobFeeCap < blobPrice) {
        throw new InvalidSimulationError(
          'BLOB_GAS_PRICE_BELOW_BLOB_BASE_FEE',
          `tx max fee per blob gas less than block blob gas fee: address ${from.toString()} blobGasFeeCap: ${humanWei(blobFeeCap)}, blobBaseFee: ${humanWei(blobPrice)}`,
        );
      }
      maxFee = call.maxFeePerGas ?? call.gasPrice ?? 0n;
      fields.kind = 'blob';
      fields.maxFeePerGas = maxFee;
      fields.maxFeePerBlobGas =
        !checkBalance && (call.maxFeePerBlobGas ?? 0n) < blobPrice
          ? blobPrice
          : (call.maxFeePerBlobGas ?? 0n);
    } else if (call.authorizationList !== undefined && common.isActivatedEIP(7702)) {
      maxFee = call.maxFeePerGas ?? call.gasPrice ?? 0n;
      fields.kind = 'setCode';
      fields.maxFeePerGas = maxFee;
    } else {
      const fees = messageFees(call, london, baseFee, common);
      maxFee = fees.maxFee;
      fields.kind = fees.kind;
      fields.gasPrice = fees.gasPrice;
      fields.maxFeePerGas = fees.maxFee;
      fields.maxPriorityFeePerGas = fees.tip;
    }
    let tx: TypedTransaction;
    try {
      tx = buildCallTransaction(call, from, fields, { common: ctx.txCommon });
    } catch (err) {
      throw new InvalidSimulationError('OTHER', (err as Error).message);
    }

    const intrinsic = tx.getIntrinsicGas();
    if (intrinsic > gasLimit) throw intrinsicTooHigh(intrinsic, gasLimit);
    // Without the balance check the call is priced at zero, but its value must still be there.
    let upfront = call.value ?? 0n;
    if (checkBalance) {
      upfront += gasLimit * maxFee;
      if (blobs !== undefined) {
        upfront += BigInt(blobs.length) * common.param('blobGasPerBlob') * (call.maxFeePerBlobGas ?? 0n);
      }
    }
    if (upfront > account.balance) throw upfrontTooHigh(upfront, account.balance, from);
    if (nonceTooLow) {
      throw new InvalidSimulationError(
        'NONCE_TOO_LOW',
        `transaction nonce ${call.nonce} below sender account nonce ${account.nonce} for sender ${from.toString()}`,
      );
    }

    // Besu runs unpriced simulations with a zero base fee; the rest of the environment is the block's.
    const zeroBaseFee = baseFee !== undefined && (!feesGiven || maxFee < baseFee);
    const env = blockEnv(header, zeroBaseFee);

    // The simulator lets contracts be senders (EIP-3607 is a pool and block rule): present the sender
    // as code-less for the validation read only.
    if (!equalsBytes(account.codeHash, KECCAK256_NULL)) state.presentCodeless(from, account.codeHash);

    let result: RunTxResult;
    // Entries may name their authority instead of a signature: applied by armAuthorizations.
    const disarmAuthorizations = armAuthorizations(vm, tx, call.authorizationList ?? []);
    ctx.rearm?.();
    const tracer = opts.tracer;
    const detach = tracer ? attachTracer(vm, tracer) : undefined;
    try {
      await tracer?.onBlockStart?.(env, vm);
      result = await runTx(vm, {
        tx,
        block: env,
        skipBalance: true,
        skipNonce: true,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
        reportAccessList: opts.reportAccessList === true,
      });
    } catch (err) {
      if (err instanceof TraceAbort) throw err;
      throw new InvalidSimulationError('OTHER', (err as Error).message);
    } finally {
      disarmAuthorizations();
      detach?.();
    }
    const exec = result.execResult;
    const gasUsed = result.totalGasSpent;
    const gasUsedBeforeRefund = gasUsed + (result.gasRefund ?? 0n);
    const accessList = result.accessList?.map(
      (item: { address: string; storageKeys: string[] }): AccessListEntry => [
        Uint8Array.from(Buffer.from(item.address.slice(2), 'hex')),
        item.storageKeys.map((k: string) =>
          setLengthLeft(Uint8Array.from(Buffer.from(k.slice(2), 'hex')), 32),
        ),
      ],
    );
    const err = exec.exceptionError;
    if (!err) {
      return {
        status: 'success',
        output: exec.returnValue,
        gasUsed,
        gasUsedBeforeRefund,
        gasLimit,
        accessList,
      };
    }
    if (err.error === 'revert') {
      return {
        status: 'revert',
        output: exec.returnValue,
        gasUsed,
        gasUsedBeforeRefund,
        gasLimit,
        accessList,
      };
    }
    return {
      status: 'halt',
      output: new Uint8Array(),
      gasUsed,
      gasUsedBeforeRefund,
      gasLimit,
      haltReason: haltReason(err.error, exec.runState),
      accessList,
    };
  }
}

/** Besu's wording of an exceptional halt. */
function haltReason(
  error: string,
  runState: { programCounter: number; code: Uint8Array } | undefined,
): string {
  // The library appends where a bad jump happened ("invalid JUMP at <code hash>/<address>:<pc>").
  if (error.startsWith('invalid JUMP')) return 'Invalid jump destination';
  switch (error) {
    case 'out of gas':
      return 'Out of gas';
    case 'invalid opcode': {
      const op = runState?.code[runState.programCounter];
      return op === undefined ? 'Invalid opcode' : `Invalid opcode: 0x${op.toString(16).padStart(2, '0')}`;
    }
    case 'stack underflow':
      return 'Stack underflow';
    case 'stack overflow':
      return 'Stack overflow';
    default:
      return error;
  }
}

/** A block for the EVM: the header itself, with the base fee shadowed to zero when asked. */
function blockEnv(header: BlockHeader, zeroBaseFee: boolean): Block {
  let h = header;
  if (zeroBaseFee) {
    h = Object.create(header) as BlockHeader;
    Object.defineProperty(h, 'baseFeePerGas', { value: 0n });
  }
  return { header: h, common: header.common } as unknown as Block;
}
