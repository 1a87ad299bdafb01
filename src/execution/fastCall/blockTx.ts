/**
 * A block's transaction, run the way the EVM library's `runTx` runs it, without its generality: the
 * transaction-level rules of the forks the call interpreter serves (London on, not the Amsterdam
 * proposals) for legacy, EIP-2930 and EIP-1559 transactions, the steps in `runTx`'s order (warm set,
 * up-front charge and nonce, the message in its own frame, refund and its EIP-3529 cap, the EIP-7623
 * floor, the coinbase's tip, SELFDESTRUCT finalisation, the EIP-161 clean-up) and the same result
 * fields (gas, bloom, receipt). The whole transaction runs on one interpreter world over the block's
 * state (no EVM journal: the world's own undo log frames the message), and its effects are written
 * into the block's state once, at the end. No events are emitted: it runs only while nothing listens
 * to the VM's `beforeTx`/`afterTx`.
 *
 * The rule: the VM's EVM has the interpreter installed and enabled (blockCall.ts), no tracer listens,
 * the transaction's and the block's fork are the VM's, and every check the library makes before
 * execution passes (block gas limit, intrinsic gas and floor, EIP-7825 cap, base fee, EIP-3607
 * sender, balance, nonce). Anything else — a blob or EIP-7702 transaction, a failed check (the
 * library then gives the exact error), a traced run, a message the interpreter leaves — goes to the
 * library's `runTx` before anything was written.
 */

import type { EVM, Log } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import {
  Account,
  type Address,
  createAddressFromString,
  equalsBytes,
  KECCAK256_NULL,
} from '@ethereumjs/util';
import { Bloom, type RunTxOpts, type RunTxResult, runTx, type VM } from '@ethereumjs/vm';
import { minimumGas } from '../../chain/intrinsicGas.js';
import { addToLogBloom } from '../../chain/logBloom.js';
import { addressKey, bytesToHexKey, hexKeyToBytes } from '../../state/trieStore.js';
import { slabBytes } from '../../util/byteSlab.js';
import { objectList } from '../../util/objectList.js';
import {
  commitTransaction,
  type FastBlockState,
  type FastTxRunner,
  fallbackReason,
  fastTxRunner,
  type Listened,
  MAX_GAS,
  type Ran,
  runMessage,
  transactionWorld,
} from './blockCall.js';

interface TxJournal {
  touched: Set<string>;
  cleanup(): Promise<void>;
}

/** The Amsterdam proposals' transaction rules (two-dimensional gas, access lists, binary trees …). */
const UNSERVED_EIPS = [7864, 7928, 8037, 7778, 7708, 8246, 2780, 7976, 7981];

/** The sender's account when the state has none (read, never written). */
const EMPTY_ACCOUNT = new Account();

/** A receipt's bloom when the transaction logged nothing (read, never written). */
const NO_LOGS_BLOOM = new Bloom();

/** Runs `opts.tx` of `opts.block` as the library's `runTx` does (see above). */
export async function runBlockTx(
  vm: VM,
  opts: { tx: TypedTransaction; block: NonNullable<RunTxOpts['block']>; blockGasUsed: bigint },
): Promise<RunTxResult> {
  const runner = fastTxRunner(vm.evm as EVM);
  if (runner === undefined) return runTx(vm, opts);
  // Accounts an earlier step left touched get their EIP-161 clean-up first, as runTx begins with it.
  const journal = vm.evm.journal as unknown as TxJournal;
  if (journal.touched.size > 0) await journal.cleanup();
  const prepared = prepare(vm, runner, opts.tx, opts.block);
  const out =
    prepared === undefined
      ? undefined
      : execute(vm, runner, opts.tx, opts.block, opts.blockGasUsed, prepared);
  if (out !== undefined) {
    runner.stats.ownTxs++;
    return out;
  }
  runner.stats.libraryTxs++;
  return runTx(vm, opts);
}

interface Prepared {
  caller: Address;
  from: Account;
  intrinsicGas: bigint;
  floorGas: bigint;
  gasPrice: bigint;
  inclusionFeePerGas: bigint;
}

/** The checks before execution, read-only; undefined sends the transaction to the library. */
function prepare(vm: VM, runner: FastTxRunner, tx: TypedTransaction, block: Block): Prepared | undefined {
  const type = tx.type;
  if (type !== 0 && type !== 1 && type !== 2) return undefined;
  const events = vm.events as unknown as Listened;
  if (events.listenerCount('beforeTx') > 0 || events.listenerCount('afterTx') > 0) return undefined;
  const common = vm.common;
  // Clique pays the signer, not the header's coinbase.
  if (!common.isActivatedEIP(1559) || common.consensusType() === 'poa') return undefined;
  for (const eip of UNSERVED_EIPS) if (common.isActivatedEIP(eip)) return undefined;
  const hardfork = common.hardfork();
  if (tx.common.hardfork() !== hardfork || block.common.hardfork() !== hardfork) return undefined;
  const header = block.header;
  if (header.gasLimit < tx.gasLimit) return undefined;
  if (common.isActivatedEIP(7825) && tx.gasLimit > common.param('maxTransactionGasLimit')) return undefined;
  const { intrinsic: intrinsicGas, floor: floorGas } = minimumGas(tx);
  if (tx.gasLimit < intrinsicGas || tx.gasLimit < floorGas) return undefined;
  if (tx.gasLimit - intrinsicGas > MAX_GAS) return undefined;
  const baseFee = header.baseFeePerGas ?? 0n;
  const maxFee = type === 2 ? (tx as unknown as { maxFeePerGas: bigint }).maxFeePerGas : tx.gasPrice;
  if (maxFee < baseFee) return undefined;
  const caller = tx.getSenderAddress();
  // The state's own account object: only read here and in `execute`.
  const from = (runner.opts.state as FastBlockState).accountSync(addressKey(caller)) ?? EMPTY_ACCOUNT;
  if (!equalsBytes(from.codeHash, KECCAK256_NULL)) return undefined;
  if (from.balance < tx.getUpfrontCost(baseFee)) return undefined;
  if (type === 2 && from.balance < tx.value + tx.gasLimit * maxFee) return undefined;
  if (from.nonce !== tx.nonce) return undefined;
  let inclusionFeePerGas: bigint;
  let gasPrice: bigint;
  if (type === 2) {
    inclusionFeePerGas = tx.getEffectivePriorityFee(baseFee);
    gasPrice = inclusionFeePerGas + baseFee;
  } else {
    gasPrice = tx.gasPrice;
    inclusionFeePerGas = gasPrice - baseFee;
  }
  return { caller, from, intrinsicGas, floorGas, gasPrice, inclusionFeePerGas };
}

type Block = NonNullable<RunTxOpts['block']>;

/**
 * The transaction's effects, in the order of the library's `runTx`, worked out on one world over the
 * block's state and written into it only at the end; undefined (nothing written) when the
 * interpreter leaves the message, which then runs on the library from the start.
 */
function execute(
  vm: VM,
  runner: FastTxRunner,
  tx: TypedTransaction,
  block: Block,
  blockGasUsed: bigint,
  p: Prepared,
): RunTxResult | undefined {
  const state = runner.opts.state as FastBlockState;
  const common = vm.common;
  const { caller, from, intrinsicGas, floorGas, gasPrice, inclusionFeePerGas } = p;
  const coinbase = block.header.coinbase;

  const world = transactionWorld(runner);
  // The warm set: the precompiles (the world's own), the access list, sender, recipient and
  // (EIP-3651) the coinbase.
  if (tx.type !== 0) {
    for (const [addressBytes, slots] of (tx as unknown as { accessList: [Uint8Array, Uint8Array[]][] })
      .accessList) {
      const address = bytesToHexKey(addressBytes);
      world.warmAddress(address);
      for (const slot of slots) world.warmSlot(address, bytesToHexKey(slot));
    }
  }
  const callerKey = addressKey(caller);
  const coinbaseKey = addressKey(coinbase);
  world.warmAddress(callerKey);
  if (tx.to !== undefined) world.warmAddress(addressKey(tx.to));
  if (common.isActivatedEIP(3651)) world.warmAddress(coinbaseKey);

  // The up-front charge and the nonce (outside the message's frame: they stay when it fails).
  const txCost = tx.gasLimit * gasPrice;
  world.setBalance(callerKey, from.balance - txCost);
  world.setNonce(callerKey, from.nonce + 1n);
  world.touch(callerKey);

  let ran: Ran;
  try {
    ran = runMessage(runner, world, {
      block,
      gasPrice,
      caller,
      gasLimit: tx.gasLimit - intrinsicGas,
      to: tx.to,
      value: tx.value,
      data: tx.data,
      skipNonceIncrement: true,
    });
  } catch (err) {
    // The library's runTx runs it (and its EVM counts the fallback when it meets the same reason).
    if (fallbackReason(err) === undefined) throw err;
    return undefined;
  }
  runner.stats.fast++;

  const exec = ran.result.execResult;
  let totalGasSpent = exec.executionGasUsed + intrinsicGas;
  let gasRefund = exec.gasRefund ?? 0n;
  if (gasRefund !== 0n) {
    const maxRefund = totalGasSpent / common.param('maxRefundQuotient');
    if (gasRefund > maxRefund) gasRefund = maxRefund;
    totalGasSpent -= gasRefund;
  }
  let reportedRefund = exec.gasRefund ?? 0n;
  if (totalGasSpent < floorGas) {
    reportedRefund = 0n;
    totalGasSpent = floorGas;
  }

  // What the up-front charge took beyond the gas spent goes back; the coinbase earns the tip (and is
  // touched without one: EIP-161 removes it if it stays empty).
  world.setBalance(callerKey, world.balance(callerKey) + txCost - totalGasSpent * gasPrice);
  const minerValue = totalGasSpent * inclusionFeePerGas;
  world.setBalance(coinbaseKey, world.balance(coinbaseKey) + minerValue);
  world.touch(coinbaseKey);

  // Written into the block's state from here on: nothing fails past this point.
  const touched = commitTransaction(world, state);
  for (const key of world.touched ?? []) touched.add(key);

  const destructed = exec.selfdestruct;
  if (destructed !== undefined && destructed.size > 0) {
    const onlyCreated = common.isActivatedEIP(6780);
    for (const key of [...destructed.keys()].sort((a, b) => a.localeCompare(b))) {
      const address = createAddressFromString(key);
      if (onlyCreated && !exec.createdAddresses?.has(address.toString())) continue;
      state.deleteAccountAt(addressKey(address), address.bytes);
      touched.add(addressKey(address));
    }
  }
  // EIP-161: touched accounts left empty are removed.
  for (const key of touched) {
    const account = state.accountSync(key);
    if (account === undefined || account.isEmpty()) state.deleteAccountAt(key, hexKeyToBytes(key));
  }

  const logs = exec.logs ?? objectList<Log>();
  let bloom = NO_LOGS_BLOOM;
  if (logs.length > 0) {
    // A receipt's bloom lives until its receipt is encoded: carved from a shared buffer.
    bloom = new Bloom(slabBytes(256), common);
    const bits = bloom.bitvector;
    for (const log of logs) {
      addToLogBloom(bits, log[0]);
      for (const topic of log[1]) addToLogBloom(bits, topic);
    }
  }
  const out = ran.result as RunTxResult;
  out.totalGasSpent = totalGasSpent;
  out.blockGasSpent = totalGasSpent;
  out.gasRefund = reportedRefund;
  out.amountSpent = totalGasSpent * gasPrice;
  out.minerValue = minerValue;
  out.bloom = bloom;
  out.receipt = {
    status: exec.exceptionError !== undefined ? 0 : 1,
    cumulativeBlockGasUsed: blockGasUsed + totalGasSpent,
    bitvector: bloom.bitvector,
    logs,
  };
  return out;
}
