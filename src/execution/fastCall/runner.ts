/**
 * A simulated transaction on the call interpreter: what the EVM library's `runTx` does for the
 * simulator's calls (sender funded up to the up-front cost as with `skipBalance`, fee deducted, nonce
 * bumped, EIP-2929 warm set, refunds capped by the fork's quotient, the EIP-7623 floor), followed by
 * the message call. Only called for message calls (a `to`) of legacy, access-list and fee-market
 * shapes; the simulator checks nonce, intrinsic gas and balance before.
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { type EVM, getOpcodesForHF, type PrecompileFunc } from '@ethereumjs/evm';
import { bytesToBigInt } from '@ethereumjs/util';
import { bytesToHexKey } from '../../state/trieStore.js';
import type { CallState } from '../callState.js';
import { addressKeyOf } from './addressKeys.js';
import { Fallback } from './fallback.js';
import {
  type CallEnv,
  executeTop,
  type LifecycleRules,
  Outcome,
  type PrecompileOutcome,
} from './interpreter.js';
import { CallWorld, slotKeyOf } from './world.js';

/** Fork rules the interpreter needs, worked out once per Common. */
export interface ForkRules {
  valid: Uint8Array;
  fee: Int32Array;
  sstoreClearRefund: number;
  maxRefundQuotient: bigint;
  floor: boolean;
  delegation: boolean;
  prevRandao: boolean;
  lifecycle: LifecycleRules;
}

/**
 * Forks the interpreter implements: Berlin (EIP-2929 gas) onwards, without the experimental
 * proposals the library also carries (EOF, Verkle/binary trees, the Amsterdam EIPs).
 */
export function forkRules(common: Common): ForkRules | undefined {
  if (!common.isActivatedEIP(2929)) return undefined;
  for (const eip of [
    3540, 6800, 7864, 2780, 8037, 7928, 7778, 7708, 7709, 7843, 7954, 7976, 7981, 7997, 8024, 8038, 8246,
    8282,
  ]) {
    if (common.isActivatedEIP(eip)) return undefined;
  }
  const valid = new Uint8Array(256);
  const fee = new Int32Array(256);
  for (const [code, op] of getOpcodesForHF(common).opcodes) {
    if (op.name === 'INVALID') continue;
    valid[code] = 1;
    fee[code] = op.fee;
  }
  return {
    valid,
    fee,
    sstoreClearRefund: Number(common.param('sstoreClearRefundEIP2200Gas')),
    maxRefundQuotient: common.param('maxRefundQuotient'),
    floor: common.isActivatedEIP(7623),
    delegation: common.isActivatedEIP(7702),
    prevRandao: common.isActivatedEIP(4399),
    lifecycle: {
      maxCodeSize: Number(common.param('maxCodeSize')),
      maxInitCodeSize: common.isActivatedEIP(3860) ? Number(common.param('maxInitCodeSize')) : 0,
      initCodeWordGas: common.isActivatedEIP(3860) ? Number(common.param('initCodeWordGas')) : 0,
      createDataGas: Number(common.param('createDataGas')),
      rejectEf: common.isActivatedEIP(3541),
      eip6780: common.isActivatedEIP(6780),
      selfdestructRefund: Number(common.param('selfdestructRefundGas')),
    },
  };
}

export interface FastTx {
  from: Uint8Array;
  to: Uint8Array;
  value: bigint;
  data: Uint8Array;
  gasLimit: bigint;
  intrinsic: bigint;
  /** Calldata floor (EIP-7623), 0 before Prague. */
  floor: bigint;
  accessList: Array<[Uint8Array, Uint8Array[]]>;
  /** Fee-market shape (EIP-1559): how the sender is funded and what gas price the code sees. */
  feeMarket: boolean;
  gasPrice: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface FastResult {
  status: 'success' | 'revert' | 'halt';
  output: Uint8Array;
  gasUsed: bigint;
  gasUsedBeforeRefund: bigint;
  haltReason?: string;
  accessList?: Array<[Uint8Array, Uint8Array[]]>;
}

export interface FastContext {
  rules: ForkRules;
  evm: EVM;
  state: CallState;
  header: BlockHeader;
  /** The base fee the code sees (zero for unpriced simulations). */
  baseFee: bigint;
  coinbase: Uint8Array;
  blockHash(number: bigint): Uint8Array | undefined;
}

/** What the code sees of a block, converted once per block rather than call after call. */
interface BlockValues {
  coinbaseBytes: Uint8Array;
  coinbaseKey: string;
  coinbase: bigint;
  prevRandao: boolean;
  random: bigint;
  blobBaseFee: bigint;
  common: Common;
  chainId: bigint;
  warmCoinbase: boolean;
}

const blockValuesOf = new WeakMap<BlockHeader, BlockValues>();

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function blockValues(ctx: FastContext): BlockValues {
  const { header, rules, evm } = ctx;
  const hit = blockValuesOf.get(header);
  if (
    hit !== undefined &&
    hit.common === evm.common &&
    hit.prevRandao === rules.prevRandao &&
    sameBytes(hit.coinbaseBytes, ctx.coinbase)
  )
    return hit;
  const coinbaseKey = bytesToHexKey(ctx.coinbase);
  const values: BlockValues = {
    coinbaseBytes: ctx.coinbase,
    coinbaseKey,
    coinbase: BigInt(`0x${coinbaseKey}`),
    prevRandao: rules.prevRandao,
    random: rules.prevRandao ? bytesToBigInt(header.prevRandao) : header.difficulty,
    blobBaseFee: header.excessBlobGas !== undefined ? header.getBlobGasPrice() : 0n,
    common: evm.common,
    chainId: evm.common.chainId(),
    warmCoinbase: evm.common.isActivatedEIP(3651),
  };
  blockValuesOf.set(header, values);
  return values;
}

export function runFastCall(ctx: FastContext, tx: FastTx, reportAccessList = false): FastResult {
  const { rules, evm, header } = ctx;
  if (tx.gasLimit > 1n << 40n) throw new Fallback('gas limit beyond the interpreter range');
  if (rules.floor && tx.gasLimit < tx.floor) throw new Fallback('below the calldata floor');
  const block = blockValues(ctx);
  const precompiles = evm.precompiles;
  const world = new CallWorld(ctx.state, precompiles);
  const sender = addressKeyOf(tx.from);
  const from = sender.key;
  const to = addressKeyOf(tx.to).key;

  world.warmAddress(from);
  world.warmAddress(to);
  if (block.warmCoinbase) world.warmAddress(block.coinbaseKey);
  if (reportAccessList) world.accessList = new Map();
  for (const [address, keys] of tx.accessList) {
    const a = bytesToHexKey(address);
    world.warmAddress(a);
    let listed: Set<string> | undefined;
    if (world.accessList !== undefined) {
      listed = world.accessList.get(a) ?? new Set();
      world.accessList.set(a, listed);
    }
    for (const k of keys) {
      const slotKey = slotKeyOf(bytesToBigInt(k));
      world.warmSlot(a, slotKey);
      listed?.add(slotKey);
    }
  }

  // The sender, as runTx with skipBalance leaves it: topped up to what the transaction may cost,
  // then charged the whole gas limit (the unused part comes back after execution).
  const baseFee = ctx.baseFee;
  let balance = world.balance(from);
  let gasPrice: bigint;
  if (tx.feeMarket) {
    let tip = tx.maxFeePerGas - baseFee;
    if (tx.maxPriorityFeePerGas < tip) tip = tx.maxPriorityFeePerGas;
    gasPrice = tip + baseFee;
    const maxCost = tx.value + tx.gasLimit * tx.maxFeePerGas;
    if (balance < maxCost) balance = maxCost;
  } else {
    gasPrice = tx.gasPrice;
    const upfront = tx.gasLimit * gasPrice + tx.value;
    if (balance < upfront) balance = upfront;
  }
  balance -= tx.gasLimit * gasPrice;
  if (balance < 0n) balance = 0n;
  world.setBalance(from, balance);
  world.setNonce(from, world.nonce(from) + 1n);

  const env: CallEnv = {
    world,
    valid: rules.valid,
    fee: rules.fee,
    sstoreClearRefund: rules.sstoreClearRefund,
    origin: sender.value,
    gasPrice,
    coinbase: block.coinbase,
    timestamp: header.timestamp,
    number: header.number,
    prevRandao: block.random,
    blockGasLimit: header.gasLimit,
    chainId: block.chainId,
    baseFee,
    blobBaseFee: block.blobBaseFee,
    blobHashes: [],
    delegation: rules.delegation,
    blockHash: (n) => {
      const h = ctx.blockHash(n);
      return h === undefined ? 0n : bytesToBigInt(h);
    },
    isPrecompile: (key) => precompiles.has(key),
    runPrecompile: (key, data, gas) => runPrecompile(evm, key, data, gas),
  };

  const gas = Number(tx.gasLimit - tx.intrinsic);
  const mark = world.checkpoint();
  if (tx.value > world.balance(from)) throw new Fallback('value beyond the sender balance');
  if (tx.value !== 0n && to !== from) {
    world.setBalance(from, world.balance(from) - tx.value);
    world.setBalance(to, world.balance(to) + tx.value);
  }
  const result = executeTop(
    env,
    {
      code: precompiles.has(to) ? new Uint8Array(0) : world.code(to),
      address: to,
      caller: env.origin,
      value: tx.value,
      data: tx.data,
      gas,
      isStatic: false,
      depth: 0,
    },
    to,
  );
  if (result.outcome !== Outcome.Success) world.revert(mark);

  const executionGasUsed = BigInt(gas - result.gasLeft);
  let total = executionGasUsed + tx.intrinsic;
  let refund = result.outcome === Outcome.Success ? BigInt(world.refund) : 0n;
  if (refund !== 0n) {
    const cap = total / rules.maxRefundQuotient;
    total -= refund < cap ? refund : cap;
  }
  if (rules.floor && total < tx.floor) {
    total = tx.floor;
    refund = 0n;
  }
  const status =
    result.outcome === Outcome.Success ? 'success' : result.outcome === Outcome.Revert ? 'revert' : 'halt';
  return {
    status,
    output: result.output,
    gasUsed: total,
    // As the library path reports it: gas charged plus the refund counter as it stood.
    gasUsedBeforeRefund: total + refund,
    haltReason: result.error,
    accessList:
      world.accessList === undefined
        ? undefined
        : [...world.accessList].map(([a, slots]): [Uint8Array, Uint8Array[]] => [
            Uint8Array.from(Buffer.from(a, 'hex')),
            [...slots].map((k) => Uint8Array.from(Buffer.from(k, 'hex'))),
          ]),
  };
}

/** The library's own precompile entry (protected in its types), which supplies each precompile its inputs. */
interface PrecompileRunner {
  runPrecompile(fn: unknown, data: Uint8Array, gasLimit: bigint): ReturnType<PrecompileFunc>;
}

export function runPrecompile(evm: EVM, key: string, data: Uint8Array, gas: number): PrecompileOutcome {
  const fn = evm.precompiles.get(key);
  if (fn === undefined) throw new Fallback('unknown precompile');
  const r = (evm as unknown as PrecompileRunner).runPrecompile(fn, data, BigInt(gas));
  if (r instanceof Promise) {
    // Its answer would only come asynchronously: leave the call to the library.
    r.catch(() => {});
    throw new Fallback('asynchronous precompile');
  }
  if (r.exceptionError)
    return { ok: false, gasUsed: gas, output: new Uint8Array(0), error: r.exceptionError.error };
  return { ok: true, gasUsed: Number(r.executionGasUsed), output: r.returnValue };
}
