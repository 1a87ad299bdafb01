/**
 * A block's transaction, run the way the EVM library's `runTx` runs it, without its generality: the
 * transaction-level rules of the forks the call interpreter serves (London on, not the Amsterdam
 * proposals) for legacy, EIP-2930 and EIP-1559 transactions, with the same journal steps in the same
 * order (warm set, up-front charge and nonce, the message in its own checkpoint, refund and its
 * EIP-3529 cap, the EIP-7623 floor, the coinbase's tip, SELFDESTRUCT finalisation, the EIP-161
 * clean-up) and the same result fields (gas, bloom, receipt). No events are emitted: it runs only
 * while nothing listens to the VM's `beforeTx`/`afterTx`.
 *
 * The rule: the VM's EVM has the interpreter installed and enabled (blockCall.ts), no tracer listens,
 * the transaction's and the block's fork are the VM's, and every check the library makes before
 * execution passes (block gas limit, intrinsic gas and floor, EIP-7825 cap, base fee, EIP-3607
 * sender, balance, nonce). Anything else — a blob or EIP-7702 transaction, a failed check (the
 * library then gives the exact error), a traced run — goes to the library's `runTx` before anything
 * was written.
 */

import type { EVM, EVMResult } from '@ethereumjs/evm';
import { getCalldataFloorGas, type TypedTransaction } from '@ethereumjs/tx';
import {
  Account,
  type Address,
  createAddressFromString,
  equalsBytes,
  KECCAK256_NULL,
} from '@ethereumjs/util';
import { Bloom, type RunTxOpts, type RunTxResult, runTx, type VM } from '@ethereumjs/vm';
import { addressKey, bytesToHexKey } from '../../state/trieStore.js';
import { type FastExecutionStats, fastExecutionOf } from './blockCall.js';

interface TxJournal {
  cleanup(): Promise<void>;
  checkpoint(): Promise<void>;
  commit(): Promise<void>;
  revert(): Promise<void>;
  cleanJournal(): void;
  addAlwaysWarmAddress(addressStr: string, addToAccessList?: boolean): void;
  addAlwaysWarmSlot(addressStr: string, slotStr: string, addToAccessList?: boolean): void;
  putAccount(address: Address, account: Account | undefined): Promise<void>;
  deleteAccount(address: Address): Promise<void>;
}

interface Listened {
  listenerCount(event: string): number;
}

/** The Amsterdam proposals' transaction rules (two-dimensional gas, access lists, binary trees …). */
const UNSERVED_EIPS = [7864, 7928, 8037, 7778, 7708, 8246, 2780, 7976, 7981];

/** A receipt's bloom when the transaction logged nothing (read, never written). */
const NO_LOGS_BLOOM = new Bloom();

/** Runs `opts.tx` of `opts.block` as the library's `runTx` does (see above). */
export async function runBlockTx(
  vm: VM,
  opts: { tx: TypedTransaction; block: NonNullable<RunTxOpts['block']>; blockGasUsed: bigint },
): Promise<RunTxResult> {
  const stats = fastExecutionOf(vm.evm as EVM);
  const prepared = stats === undefined ? undefined : await prepare(vm, opts.tx, opts.block);
  if (prepared === undefined) {
    if (stats !== undefined) stats.libraryTxs++;
    return runTx(vm, opts);
  }
  (stats as FastExecutionStats).ownTxs++;
  return execute(vm, opts.tx, opts.block, opts.blockGasUsed, prepared);
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
async function prepare(vm: VM, tx: TypedTransaction, block: Block): Promise<Prepared | undefined> {
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
  const intrinsicGas = tx.getIntrinsicGas();
  const floorGas = getCalldataFloorGas(tx);
  if (tx.gasLimit < intrinsicGas || tx.gasLimit < floorGas) return undefined;
  const baseFee = header.baseFeePerGas ?? 0n;
  const maxFee = type === 2 ? (tx as unknown as { maxFeePerGas: bigint }).maxFeePerGas : tx.gasPrice;
  if (maxFee < baseFee) return undefined;
  const caller = tx.getSenderAddress();
  const from = (await vm.stateManager.getAccount(caller)) ?? new Account();
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

/** The transaction's effects, in the journal steps and order of the library's `runTx`. */
async function execute(
  vm: VM,
  tx: TypedTransaction,
  block: Block,
  blockGasUsed: bigint,
  p: Prepared,
): Promise<RunTxResult> {
  const evm = vm.evm as EVM;
  const journal = evm.journal as unknown as TxJournal;
  const state = vm.stateManager as VM['stateManager'] & { originalStorageCache: { clear(): void } };
  const common = vm.common;
  const { caller, from, intrinsicGas, floorGas, gasPrice, inclusionFeePerGas } = p;
  const coinbase = block.header.coinbase;
  await journal.cleanup();
  await journal.checkpoint();
  try {
    // The warm set: the access list, the precompiles, sender, recipient and (EIP-3651) coinbase.
    if (tx.type !== 0) {
      for (const [addressBytes, slots] of (tx as unknown as { accessList: [Uint8Array, Uint8Array[]][] })
        .accessList) {
        const address = bytesToHexKey(addressBytes);
        journal.addAlwaysWarmAddress(address, true);
        for (const slot of slots) journal.addAlwaysWarmSlot(address, bytesToHexKey(slot), true);
      }
    }
    for (const address of evm.precompiles.keys()) journal.addAlwaysWarmAddress(address);
    journal.addAlwaysWarmAddress(addressKey(caller));
    if (tx.to !== undefined) journal.addAlwaysWarmAddress(addressKey(tx.to));
    if (common.isActivatedEIP(3651)) journal.addAlwaysWarmAddress(addressKey(coinbase));

    // The up-front charge and the nonce.
    const txCost = tx.gasLimit * gasPrice;
    from.balance -= txCost;
    from.nonce += 1n;
    await journal.putAccount(caller, from);

    await journal.checkpoint();
    let results: EVMResult;
    try {
      results = await evm.runCall({
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
      await journal.revert();
      throw err;
    }
    await journal.commit();

    const exec = results.execResult;
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

    // What the up-front charge took beyond the gas spent goes back.
    const sender = (await state.getAccount(caller)) ?? new Account();
    sender.balance += txCost - totalGasSpent * gasPrice;
    await journal.putAccount(caller, sender);

    // The coinbase earns the tip (and is touched without one: EIP-161 removes it if it stays empty).
    const minerValue = totalGasSpent * inclusionFeePerGas;
    const miner = (await state.getAccount(coinbase)) ?? new Account();
    miner.balance += minerValue;
    await journal.putAccount(coinbase, miner);

    const destructed = exec.selfdestruct;
    if (destructed !== undefined && destructed.size > 0) {
      const onlyCreated = common.isActivatedEIP(6780);
      for (const key of [...destructed.keys()].sort((a, b) => a.localeCompare(b))) {
        const address = createAddressFromString(key);
        if (onlyCreated && !exec.createdAddresses?.has(address.toString())) continue;
        await journal.deleteAccount(address);
      }
    }

    const logs = exec.logs ?? [];
    let bloom = NO_LOGS_BLOOM;
    if (logs.length > 0) {
      bloom = new Bloom(undefined, common);
      for (const log of logs) {
        bloom.add(log[0]);
        for (const topic of log[1]) bloom.add(topic);
      }
    }
    await journal.cleanup();
    state.originalStorageCache.clear();

    const out = results as RunTxResult;
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
    await journal.commit();
    return out;
  } catch (err) {
    await journal.revert();
    throw err;
  } finally {
    journal.cleanJournal();
    state.originalStorageCache.clear();
  }
}
