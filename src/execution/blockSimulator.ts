/**
 * eth_simulateV1: a chain of simulated blocks on top of a block's state, each with optional block
 * overrides (number, time, gas limit, fee recipient, prevRandao, base fee, blob base fee,
 * withdrawals), state overrides applied before its calls, and calls executed as unsigned
 * transactions. Blocks are assembled like real ones (system calls before and after, requests,
 * state root, transaction and receipt tries), so hashes and roots match other clients.
 *
 * Without `validation` calls skip the nonce and base-fee checks and blocks get a zero base fee; the
 * balance check for gas × fee cap + value always applies. A gas budget (--rpc-gas-cap) covers the
 * whole simulation. Nothing is written to the chain: the state lives in an overlay dropped with it.
 */
import { Block, type BlockHeader, createBlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { type EVM, getActivePrecompiles } from '@ethereumjs/evm';
import { paramsTx, type TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, equalsBytes, KECCAK256_NULL } from '@ethereumjs/util';
import { buildBlock, createVM, type RunTxResult, runTx, type VM } from '@ethereumjs/vm';
import type { ChainStore } from '../chain/chainStore.js';
import type { WorldState } from '../state/worldState.js';
import { armAuthorizations } from './authorizations.js';
import { buildCallTransaction, type CallTxFields } from './callTransaction.js';
import type { CallRequest, StateOverrides } from './callTypes.js';
import { openOverlayState } from './overlayStore.js';
import {
  applyStateOverrides,
  InvalidOverrideError,
  installPrecompiles,
  resolvePrecompiles,
} from './stateOverrides.js';
import { type TracedLog, TransferTracer } from './transferTracer.js';
import { TrieLogRecorder } from './trieLog.js';

export interface BlockOverrides {
  number?: bigint;
  time?: bigint;
  gasLimit?: bigint;
  feeRecipient?: Uint8Array;
  prevRandao?: Uint8Array;
  baseFeePerGas?: bigint;
  blobBaseFee?: bigint;
  beaconRoot?: Uint8Array;
  withdrawals?: Array<{ index: bigint; validatorIndex: bigint; address: Uint8Array; amount: bigint }>;
}

export interface SimBlockRequest {
  blockOverrides?: BlockOverrides;
  stateOverrides?: StateOverrides;
  calls: CallRequest[];
}

export interface SimulateRequest {
  blocks: SimBlockRequest[];
  traceTransfers: boolean;
  validation: boolean;
  /** Adds each block's Besu trie log (see trieLog.ts). */
  returnTrieLog?: boolean;
}

/** Which of the simulation's errors (the execution-apis codes -38010 … -38026 and friends). */
export type SimulateErrorKind =
  | 'NONCE_TOO_LOW'
  | 'NONCE_TOO_HIGH'
  | 'BASE_FEE_TOO_LOW'
  | 'INTRINSIC_GAS'
  | 'INSUFFICIENT_FUNDS'
  | 'BLOCK_GAS_LIMIT'
  | 'BLOCK_NUMBER_ORDER'
  | 'BLOCK_TIMESTAMP_ORDER'
  | 'CLIENT_LIMIT'
  | 'INVALID_PARAMS'
  | 'INTERNAL'
  | 'INVALID_OVERRIDE'
  | 'INIT_CODE_TOO_LARGE';

export class SimulateError extends Error {
  override name = 'SimulateError';
  constructor(
    readonly kind: SimulateErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface SimCallResult {
  status: 'success' | 'revert' | 'halt';
  returnData: Uint8Array;
  logs: TracedLog[];
  /** Log indices the call used up (its logs, or those a failed call dropped). */
  logIndicesUsed: number;
  /** What a reverted call returned. */
  revertData?: Uint8Array;
  gasUsed: bigint;
  maxUsedGas: bigint;
  /** The EVM's halt reason, for halts. */
  haltReason?: string;
}

export interface SimulatedBlock {
  block: Block;
  senders: Address[];
  calls: SimCallResult[];
  /** The block's trie log (RLP), when asked for. */
  trieLog?: Uint8Array;
}

const MAX_BLOCKS = 256n;
const TIMESTAMP_INCREMENT = 12n;
const UINT64_MAX = (1n << 64n) - 1n;
const ZERO_ADDRESS = new Uint8Array(20);
/** Simulated blocks encode their transactions with a zero signature. */
const UNSIGNED = { v: 0n, r: 0n, s: 0n };
/** Transactions built here may carry any gas; the EIP-7825 cap does not bind simulations. */
const TX_PARAMS = {
  ...paramsTx,
  7825: {
    ...(paramsTx as Record<number, Record<string, unknown>>)[7825],
    maxTransactionGasLimit: UINT64_MAX.toString(),
  },
};

/** BLOCKHASH inside a simulation: canonical ancestors of the base, then the simulated blocks. */
class SimulatedAncestors {
  readonly simulated = new Map<bigint, Uint8Array>();
  constructor(
    private readonly chain: ChainStore,
    private readonly base: BlockHeader,
  ) {}
  async getBlock(number: number): Promise<{ hash(): Uint8Array }> {
    const n = BigInt(number);
    const sim = this.simulated.get(n);
    if (sim) return { hash: () => sim };
    const hash = this.chain.ancestorHash(this.base, n) ?? new Uint8Array(32);
    return { hash: () => hash };
  }
  async putBlock(): Promise<void> {}
  shallowCopy(): this {
    return this;
  }
}

interface PlannedBlock {
  number: bigint;
  time: bigint;
  request: SimBlockRequest;
}

/**
 * The highest block number the request reaches: the last explicit number plus one for each block
 * after it that has none. Checked before anything else, as Besu does.
 */
function lastBlockNumber(blocks: SimBlockRequest[]): bigint {
  let last = -1n;
  for (const b of blocks) {
    const n = b.blockOverrides?.number;
    if (n !== undefined && n > last) last = n;
  }
  let after = 0n;
  for (const b of blocks) {
    const n = b.blockOverrides?.number;
    if (n === undefined || n > last) after++;
  }
  return last + after;
}

/** Block numbers and timestamps in order, gaps filled with empty blocks 12 s apart. */
function planBlocks(base: BlockHeader, blocks: SimBlockRequest[]): PlannedBlock[] {
  const last = lastBlockNumber(blocks);
  if (last > base.number + MAX_BLOCKS) {
    throw new SimulateError(
      'CLIENT_LIMIT',
      `Block number ${last} exceeds the limit of ${base.number + MAX_BLOCKS} (header: ${base.number} + MAX_BLOCK_CALL_SIZE: ${MAX_BLOCKS})`,
    );
  }
  const out: PlannedBlock[] = [];
  let prevNumber = base.number;
  let prevTime = base.timestamp;
  for (const request of blocks) {
    const o = request.blockOverrides ?? {};
    const number = o.number ?? prevNumber + 1n;
    for (let n = prevNumber + 1n; n < number; n++) {
      prevTime += TIMESTAMP_INCREMENT;
      out.push({ number: n, time: prevTime, request: { calls: [] } });
    }
    if (number <= prevNumber) {
      throw new SimulateError(
        'BLOCK_NUMBER_ORDER',
        `Block number is invalid. Trying to add a call at block number ${number}, while current block number is ${prevNumber}.`,
      );
    }
    const time = o.time ?? prevTime + TIMESTAMP_INCREMENT;
    if (time <= prevTime) {
      throw new SimulateError(
        'BLOCK_TIMESTAMP_ORDER',
        `Timestamp is invalid. Trying to add a call at timestamp ${time}, while current timestamp is ${prevTime}.`,
      );
    }
    out.push({ number, time, request });
    prevNumber = number;
    prevTime = time;
  }
  return out;
}

export class BlockSimulator {
  constructor(
    private readonly chain: ChainStore,
    private readonly world: WorldState,
    /** 0 = no cap. */
    private readonly gasCap: bigint,
    /**
     * Proof of authority: a Common of the same forks without the Clique rules, so that simulated
     * (unsealed) blocks pay their fee recipient as any block does.
     */
    private readonly executionCommon?: Common,
  ) {}

  async simulate(base: BlockHeader, req: SimulateRequest): Promise<SimulatedBlock[]> {
    if (req.blocks.length === 0) throw new SimulateError('INVALID_PARAMS', 'empty input');
    if (BigInt(req.blocks.length) > MAX_BLOCKS)
      throw new SimulateError('CLIENT_LIMIT', 'Too many block calls');
    const planned = planBlocks(base, req.blocks);

    const common = (this.executionCommon ?? base.common).copy();
    if (this.executionCommon) common.setHardforkBy({ blockNumber: base.number, timestamp: base.timestamp });
    const state = openOverlayState(this.world, base.stateRoot, common);
    const ancestors = new SimulatedAncestors(this.chain, base);
    // BASEFEE reads the block's own base fee even when a call runs unpriced against a zero one.
    const env = { baseFee: 0n };
    const vm: VM = await createVM({
      common,
      stateManager: state,
      blockchain: ancestors as never,
      evmOpts: {
        customOpcodes: [
          {
            opcode: 0x48,
            opcodeName: 'BASEFEE',
            baseFee: 2,
            logicFunction: (runState: { stack: { push(v: bigint): void } }) => {
              runState.stack.push(env.baseFee);
            },
          },
        ],
      },
    });
    const evm = vm.evm as EVM;
    const tracer = new TransferTracer(evm, req.traceTransfers);
    tracer.attach();

    let gasPool = this.gasCap === 0n ? UINT64_MAX : this.gasCap;
    const results: SimulatedBlock[] = [];
    let parent = base;
    try {
      for (const plan of planned) {
        common.setHardforkBy({ blockNumber: plan.number, timestamp: plan.time });
        const o = plan.request.blockOverrides ?? {};
        const prevHeader = results.length > 0 ? parent : base;
        let baseFee: bigint | undefined;
        if (common.isActivatedEIP(1559)) {
          baseFee =
            o.baseFeePerGas ??
            (req.validation
              ? parent.common.isActivatedEIP(1559)
                ? parent.calcNextBaseFee()
                : common.param('initialBaseFee')
              : 0n);
        }
        let excessBlobGas: bigint | undefined;
        if (common.isActivatedEIP(4844)) {
          excessBlobGas = parent.common.isActivatedEIP(4844) ? parent.calcNextExcessBlobGas(common) : 0n;
        }
        const postMerge = common.gteHardfork('paris');
        const gasLimit = o.gasLimit ?? prevHeader.gasLimit;
        const headerData = {
          parentHash: parent.hash(),
          number: plan.number,
          timestamp: plan.time,
          gasLimit,
          coinbase: o.feeRecipient ?? prevHeader.coinbase.bytes,
          difficulty: postMerge ? 0n : prevHeader.difficulty,
          mixHash: o.prevRandao ?? new Uint8Array(32),
          baseFeePerGas: baseFee,
          excessBlobGas,
          parentBeaconBlockRoot: common.isActivatedEIP(4788)
            ? (o.beaconRoot ?? new Uint8Array(32))
            : undefined,
        };
        const withdrawals = common.isActivatedEIP(4895)
          ? (o.withdrawals ?? []).map((w) => ({
              index: w.index,
              validatorIndex: w.validatorIndex,
              address: w.address,
              amount: w.amount,
            }))
          : undefined;
        // From before the block's state overrides until its state root is known.
        const recorder = req.returnTrieLog ? new TrieLogRecorder(state) : undefined;
        recorder?.attach();
        try {
          const builder = await buildBlock(vm, {
            parentBlock: { header: parent } as unknown as Block,
            headerData,
            withdrawals,
            blockOpts: { common, putBlockIntoBlockchain: false, setHardfork: false },
          });
          const provisional = createBlockHeader(headerData, { common, setHardfork: false });

          // Precompiles: the fork's, with this block's moves.
          let precompiles: ReturnType<typeof resolvePrecompiles>;
          try {
            precompiles = resolvePrecompiles(getActivePrecompiles(common), plan.request.stateOverrides);
          } catch (err) {
            if (err instanceof InvalidOverrideError) throw new SimulateError('INVALID_OVERRIDE', err.message);
            throw err;
          }
          await applyStateOverrides(state, plan.request.stateOverrides);
          const rearm = installPrecompiles(evm, precompiles);

          const b = builder as unknown as {
            transactions: TypedTransaction[];
            transactionResults: RunTxResult[];
            gasUsed: bigint;
            blobGasUsed: bigint;
          };
          const senders: Address[] = [];
          const calls: SimCallResult[] = [];
          let blockGasUsed = 0n;
          const txCommon = common.copy();
          for (const requestedCall of plan.request.calls) {
            const call = withDelegationFees(requestedCall, req.validation, baseFee);
            const from = new Address(call.from ?? ZERO_ADDRESS);
            const sender = (await state.getAccount(from)) ?? new Account();
            const nonce = call.nonce ?? sender.nonce;
            const requested = call.gas ?? gasLimit - blockGasUsed;
            if (blockGasUsed + requested > gasLimit) {
              throw new SimulateError(
                'BLOCK_GAS_LIMIT',
                `block gas limit reached: ${blockGasUsed} >= ${gasLimit}`,
              );
            }
            const gas = requested > gasPool ? gasPool : requested;
            const initCodeSize = call.to === undefined ? (call.data?.length ?? 0) : 0;
            if (common.isActivatedEIP(3860) && initCodeSize > Number(common.param('maxInitCodeSize'))) {
              throw new SimulateError(
                'INIT_CODE_TOO_LARGE',
                `Initcode size of ${initCodeSize} exceeds maximum size of ${common.param('maxInitCodeSize')}`,
              );
            }
            const tx = buildTransaction(call, from, nonce, gas, baseFee, txCommon);
            const feeCap =
              'maxFeePerGas' in tx ? (tx.maxFeePerGas as bigint) : (tx as { gasPrice: bigint }).gasPrice;
            const tipCap =
              'maxPriorityFeePerGas' in tx
                ? (tx.maxPriorityFeePerGas as bigint)
                : (tx as { gasPrice: bigint }).gasPrice;
            const blobGas = call.blobVersionedHashes
              ? BigInt(call.blobVersionedHashes.length) * common.param('blobGasPerBlob')
              : 0n;
            const blobFeeCap = call.maxFeePerBlobGas ?? 0n;
            const unpriced = !req.validation && feeCap === 0n && tipCap === 0n;

            if (req.validation) {
              if (sender.nonce < nonce) {
                throw new SimulateError(
                  'NONCE_TOO_HIGH',
                  `nonce too high: address ${from}, tx: ${nonce} state: ${sender.nonce}`,
                );
              }
              if (sender.nonce > nonce) {
                throw new SimulateError(
                  'NONCE_TOO_LOW',
                  `nonce too low: address ${from}, tx: ${nonce} state: ${sender.nonce}`,
                );
              }
              if (sender.nonce === UINT64_MAX) {
                throw new SimulateError(
                  'INTERNAL',
                  `nonce has max value: address ${from}, nonce: ${sender.nonce}`,
                );
              }
            }
            if (baseFee !== undefined && !unpriced) {
              if (feeCap < tipCap) {
                throw new SimulateError(
                  'INVALID_PARAMS',
                  `max priority fee per gas higher than max fee per gas: address ${from}`,
                );
              }
              if (feeCap < baseFee) {
                throw new SimulateError(
                  'BASE_FEE_TOO_LOW',
                  `max fee per gas less than block base fee: address ${from}, maxFeePerGas: ${feeCap}, baseFee: ${baseFee}`,
                );
              }
            }
            const blobBaseFee =
              o.blobBaseFee ?? (excessBlobGas !== undefined ? provisional.getBlobGasPrice() : 0n);
            if (blobGas > 0n && !(!req.validation && blobFeeCap === 0n) && blobFeeCap < blobBaseFee) {
              throw new SimulateError(
                'BASE_FEE_TOO_LOW',
                `max fee per blob gas less than block blob gas fee: address ${from}`,
              );
            }
            const upfront = gas * feeCap + (call.value ?? 0n) + blobGas * blobFeeCap;
            if (sender.balance < upfront) {
              throw new SimulateError(
                'INSUFFICIENT_FUNDS',
                `insufficient funds for gas * price + value: address ${from} have ${sender.balance} want ${upfront}`,
              );
            }
            if (gas > gasPool) throw new SimulateError('INTERNAL', 'gas limit reached');
            const intrinsic = tx.getIntrinsicGas();
            if (gas < intrinsic) {
              throw new SimulateError(
                'INTRINSIC_GAS',
                `intrinsic gas too low: have ${gas}, want ${intrinsic}`,
              );
            }

            env.baseFee = baseFee ?? 0n;
            const txHeader = Object.create(provisional) as BlockHeader;
            Object.defineProperty(txHeader, 'gasUsed', { value: blockGasUsed });
            if (unpriced) Object.defineProperty(txHeader, 'baseFeePerGas', { value: 0n });
            Object.defineProperty(txHeader, 'getBlobGasPrice', { value: () => blobBaseFee });
            const envBlock = { header: txHeader, common } as unknown as Block;

            const restoreSender = presentAsEOA(state, from, sender);
            const disarmAuthorizations = armAuthorizations(vm, tx, call.authorizationList ?? []);
            tracer.reset();
            rearm();
            let result: RunTxResult;
            try {
              result = await runTx(vm, {
                tx,
                block: envBlock,
                skipBalance: true,
                skipNonce: true,
                skipBlockGasLimitValidation: true,
                skipHardForkValidation: true,
                blockGasUsed,
              });
            } catch (err) {
              const message = (err as Error).message;
              if (message.includes('INTRINSIC_GAS_TOO_LOW'))
                throw new SimulateError('INTRINSIC_GAS', message);
              throw new SimulateError('INTERNAL', message);
            } finally {
              disarmAuthorizations();
              restoreSender();
            }
            // A nonce at the uint64 limit wraps, as in a client that stores it in 64 bits.
            const after = await state.getAccount(from);
            if (after && after.nonce > UINT64_MAX) {
              after.nonce &= UINT64_MAX;
              await state.putAccount(from, after);
            }
            const exec = result.execResult;
            const used = result.totalGasSpent;
            blockGasUsed += used;
            gasPool -= used;
            b.transactions.push(tx);
            b.transactionResults.push(result);
            b.gasUsed = blockGasUsed;
            b.blobGasUsed += result.blobGasUsed ?? 0n;
            senders.push(from);
            const err = exec.exceptionError;
            const status: SimCallResult['status'] = !err
              ? 'success'
              : err.error === 'revert'
                ? 'revert'
                : 'halt';
            const logs: TracedLog[] = status !== 'success' ? [] : tracer.logs();
            calls.push({
              status,
              returnData: status === 'success' ? exec.returnValue : new Uint8Array(),
              revertData: status === 'revert' ? exec.returnValue : undefined,
              logs,
              logIndicesUsed: tracer.indicesUsed(),
              gasUsed: used,
              maxUsedGas: used + (result.gasRefund ?? 0n),
              haltReason: err && status === 'halt' ? err.error : undefined,
            });
          }
          // The builder would re-create the transactions from their fields under the fork's rules
          // (EIP-7825 refuses their gas); seal with precomputed tries and attach them afterwards.
          const txRoot = await builder.transactionsTrie();
          const receiptRoot = await builder.receiptTrie();
          const sealer = builder as unknown as {
            transactionsTrie: () => Promise<Uint8Array>;
            receiptTrie: () => Promise<Uint8Array>;
          };
          sealer.transactionsTrie = async () => txRoot;
          sealer.receiptTrie = async () => receiptRoot;
          const txs = b.transactions;
          b.transactions = [];
          const { block: shell } = await builder.build();
          const block = new Block(shell.header, txs, [], shell.withdrawals, { common });
          ancestors.simulated.set(block.header.number, block.hash());
          const trieLog = await recorder?.encode(block.hash());
          results.push(trieLog ? { block, senders, calls, trieLog } : { block, senders, calls });
          parent = block.header;
        } finally {
          recorder?.detach();
        }
      }
    } finally {
      tracer.detach();
    }
    return results;
  }
}

/**
 * A validated type-4 call that names no fee pays the block's base fee (cap and tip alike), as Besu
 * records it; other calls without fees keep a zero cap, which validation refuses (-38012), as the
 * cross-client suite expects.
 */
function withDelegationFees(
  call: CallRequest,
  validation: boolean,
  baseFee: bigint | undefined,
): CallRequest {
  if (!validation || baseFee === undefined || call.authorizationList === undefined) return call;
  if (
    call.gasPrice !== undefined ||
    call.maxFeePerGas !== undefined ||
    call.maxPriorityFeePerGas !== undefined
  ) {
    return call;
  }
  return { ...call, maxFeePerGas: baseFee, maxPriorityFeePerGas: baseFee };
}

/**
 * A simulated block's transaction, typed as the other clients type it: a set-code or blob call as
 * such, a call with a gas price (or before London) legacy, anything else fee-market; fees as given.
 */
function buildTransaction(
  call: CallRequest,
  from: Address,
  nonce: bigint,
  gasLimit: bigint,
  baseFee: bigint | undefined,
  common: Common,
): TypedTransaction {
  const fields: CallTxFields = {
    kind:
      call.authorizationList !== undefined
        ? 'setCode'
        : call.blobVersionedHashes !== undefined
          ? 'blob'
          : call.gasPrice !== undefined || baseFee === undefined
            ? 'legacy'
            : 'feeMarket',
    nonce,
    gasLimit,
    gasPrice: call.gasPrice ?? 0n,
    maxFeePerGas: call.maxFeePerGas ?? 0n,
    maxPriorityFeePerGas: call.maxPriorityFeePerGas ?? 0n,
    maxFeePerBlobGas: call.maxFeePerBlobGas ?? 0n,
  };
  try {
    return buildCallTransaction(call, from, fields, { common, params: TX_PARAMS, signature: UNSIGNED });
  } catch (err) {
    throw new SimulateError('INVALID_PARAMS', (err as Error).message);
  }
}

/**
 * Simulated senders may hold code (the EOA check is a pool and block rule): the sender reads as
 * code-less for the transaction's validation read, and keeps its code when written back.
 */
function presentAsEOA(
  state: ReturnType<typeof openOverlayState>,
  from: Address,
  account: Account,
): () => void {
  if (equalsBytes(account.codeHash, KECCAK256_NULL)) return () => {};
  const codeHash = account.codeHash;
  // Other watchers (the trie log) may have put their own methods on the state; put those back.
  const own = state as unknown as Record<string, unknown>;
  const before = {
    getAccount: Object.hasOwn(own, 'getAccount'),
    putAccount: Object.hasOwn(own, 'putAccount'),
  };
  const previous = { getAccount: own.getAccount, putAccount: own.putAccount };
  const getAccount = state.getAccount.bind(state);
  const putAccount = state.putAccount.bind(state);
  let first = true;
  state.getAccount = async (a: Address) => {
    const acc = await getAccount(a);
    if (first && acc && a.equals(from)) {
      first = false;
      return new Account(acc.nonce, acc.balance, acc.storageRoot, KECCAK256_NULL);
    }
    return acc;
  };
  state.putAccount = async (addr: Address, value?: Account) => {
    if (value && addr.equals(from) && equalsBytes(value.codeHash, KECCAK256_NULL)) value.codeHash = codeHash;
    return putAccount(addr, value);
  };
  return () => {
    for (const name of ['getAccount', 'putAccount'] as const) {
      if (before[name]) own[name] = previous[name];
      else delete own[name];
    }
  };
}
