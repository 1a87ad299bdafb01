/**
 * Resolvers of the schema in `schema.graphql`, over the same services as JSON-RPC: the chain store,
 * world state reads, the transaction pool, the call simulator, the gas price estimates and the log
 * matcher. Values stay domain values (`bigint`, `Uint8Array`); the scalars write them out. Every read
 * goes through the request's `RequestLoader`, which reads each piece once and keeps the bounds.
 */
import type { BlockHeader, Block as ChainBlock } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';
import { effectiveGasPrice } from '../chain/fees.js';
import { createdContractAddress, type StoredReceipt } from '../chain/receipts.js';
import { BLOB_GAS_PER_BLOB } from '../config/genesis.js';
import { type CallRequest, InvalidSimulationError } from '../execution/simulator.js';
import { LogQueryError, queryLogs } from '../filters/logQuery.js';
import { compileLogQuery, type LogEntry, type LogQuery } from '../filters/logs.js';
import { ethProtocolVersion } from '../rpc/methods/eth/chainInfo.js';
import { TxPoolError } from '../txpool/pool.js';
import {
  GraphQLArgumentError,
  GraphQLCodedError,
  INVALID_PARAMS,
  logQueryFailure,
  rejectionSpec,
} from './errors.js';
import type { AccountRef, BlockRef, RequestLoader, TxRef } from './loader.js';

type Args = Record<string, unknown>;
type Resolver<P> = (parent: P, args: Args, loader: RequestLoader) => unknown;

interface LogRef {
  entry: LogEntry;
}

/** The schema's CallData: the members of a call object GraphQL offers. */
type CallDataInput = Pick<
  CallRequest,
  'from' | 'to' | 'gas' | 'gasPrice' | 'maxFeePerGas' | 'maxPriorityFeePerGas' | 'value' | 'data'
>;

interface FilterInput {
  fromBlock?: bigint | null;
  toBlock?: bigint | null;
  addresses?: Uint8Array[] | null;
  topics?: Uint8Array[][] | null;
}

/** The pending state: the pool over the head block. */
const PENDING = Object.freeze({ pending: true });

// ------------------------------------------------------------------------------------------- helpers

/** The smaller of two bigints (Math.min takes numbers only). */
function lesser(a: bigint, b: bigint): bigint {
  if (a < b) return a;
  return b;
}

function blockRef(block: ChainBlock): BlockRef {
  return { header: block.header, block };
}

/** State header for an optional `block` argument, else `fallback`. */
function stateHeader(loader: RequestLoader, args: Args, fallback: () => BlockHeader | undefined) {
  const n = args.block as bigint | null | undefined;
  return n === undefined || n === null ? fallback() : loader.headerByNumber(n);
}

function logQuery(filter: { addresses?: Uint8Array[] | null; topics?: Uint8Array[][] | null }): LogQuery {
  return {
    addresses: filter.addresses ?? [],
    // An empty position matches any topic.
    topics: (filter.topics ?? []).map((alternatives) => (alternatives.length === 0 ? null : alternatives)),
  };
}

function callRequest(data: CallDataInput): CallRequest {
  return {
    from: data.from,
    to: data.to,
    gas: data.gas,
    gasPrice: data.gasPrice,
    maxFeePerGas: data.maxFeePerGas,
    maxPriorityFeePerGas: data.maxPriorityFeePerGas,
    value: data.value,
    data: data.data,
  };
}

interface CallResultValue {
  data: Uint8Array;
  gasUsed: bigint;
  status: bigint;
}

/** A call on the state after `header`: status 1 on success, 0 on a revert, a halt or an invalid call. */
async function runCall(
  loader: RequestLoader,
  header: BlockHeader,
  data: CallDataInput,
): Promise<CallResultValue> {
  try {
    const r = await loader.services.callSimulator.simulate(header, callRequest(data));
    loader.checkDeadline();
    return { data: r.output, gasUsed: r.gasUsedBeforeRefund, status: r.status === 'success' ? 1n : 0n };
  } catch (err) {
    if (err instanceof InvalidSimulationError) return { data: new Uint8Array(), gasUsed: 0n, status: 0n };
    throw err;
  }
}

function receiptOf(
  loader: RequestLoader,
  ref: TxRef,
): { receipt: StoredReceipt; previousGas: bigint } | undefined {
  if (!ref.block || ref.index === undefined) return undefined;
  const receipts = loader.receipts(ref.block);
  const receipt = receipts?.[ref.index];
  if (!receipts || !receipt) return undefined;
  const previousGas = ref.index > 0 ? (receipts[ref.index - 1] as StoredReceipt).cumulativeGasUsed : 0n;
  return { receipt, previousGas };
}

function logsOfTx(loader: RequestLoader, ref: TxRef): LogRef[] | null {
  if (!ref.block || ref.index === undefined) return null;
  const receipts = loader.receipts(ref.block);
  if (!receipts) return null;
  let logIndex = 0;
  for (let i = 0; i < ref.index; i++) logIndex += (receipts[i] as StoredReceipt).logs.length;
  const receipt = receipts[ref.index] as StoredReceipt;
  loader.charge(receipt.logs.length);
  const header = ref.block.header;
  return receipt.logs.map(([address, topics, data], i) => ({
    entry: {
      address,
      topics,
      data,
      blockNumber: header.number,
      blockHash: header.hash(),
      blockTimestamp: header.timestamp,
      transactionHash: ref.hash ?? ref.tx.hash(),
      transactionIndex: ref.index as number,
      logIndex: logIndex + i,
      removed: false,
    },
  }));
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));
}

function feeMarket(
  tx: TypedTransaction,
): tx is TypedTransaction & { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } {
  return tx.type >= 2;
}

function pool(loader: RequestLoader) {
  return loader.services.txPool;
}

// ------------------------------------------------------------------------------------------- roots

const Query: Record<string, Resolver<unknown>> = {
  block(_p, args, loader) {
    const number = args.number as bigint | null | undefined;
    const hash = args.hash as Uint8Array | null | undefined;
    const hasNumber = number !== undefined && number !== null;
    const hasHash = hash !== undefined && hash !== null;
    if (hasNumber && hasHash) throw new GraphQLCodedError(INVALID_PARAMS);
    if (hasNumber) {
      const header = loader.headerByNumber(number);
      if (!header) throw new GraphQLArgumentError(`Block number ${number} was not found`);
      return loader.blockRef(header);
    }
    if (hasHash) {
      const header = loader.headerByHash(hash);
      if (!header) throw new GraphQLArgumentError(`Block hash ${bytesText(hash)} was not found`);
      return loader.blockRef(header);
    }
    return loader.blockRef(loader.services.chain.headHeader());
  },
  blocks(_p, args, loader) {
    const head = loader.services.chain.head().number;
    const from = (args.from as bigint | null | undefined) ?? 0n;
    const to = (args.to as bigint | null | undefined) ?? head;
    if (from > to) throw new GraphQLCodedError(INVALID_PARAMS);
    const last = lesser(to, head);
    const out: BlockRef[] = [];
    if (last >= from) loader.charge(Number(last - from + 1n));
    for (let n = from; n <= last; n++) {
      const header = loader.headerByNumber(n);
      if (header) out.push(loader.blockRef(header));
    }
    return out;
  },
  pending: () => PENDING,
  transaction(_p, args, loader) {
    return loader.transactionByHash(args.hash as Uint8Array) ?? null;
  },
  logs(_p, args, loader) {
    const filter = args.filter as FilterInput;
    const chain = loader.services.chain;
    const head = chain.head().number;
    const from = filter.fromBlock ?? head;
    const to = filter.toBlock ?? head;
    if (from > to) throw new GraphQLCodedError(INVALID_PARAMS);
    // Blocks past the head hold no logs yet: the range is cut there (eth_getLogs refuses it instead).
    const scope = { from, to: lesser(to, head) };
    if (scope.from > scope.to) return [];
    let entries: LogEntry[];
    try {
      entries = queryLogs(
        chain,
        scope,
        compileLogQuery(logQuery(filter)),
        { maxRange: loader.services.config.rpcMaxLogsRange },
        loader.services.logBloomCache,
      );
    } catch (err) {
      if (err instanceof LogQueryError) throw logQueryFailure(err);
      throw err;
    }
    loader.charge(entries.length);
    return entries.map((entry): LogRef => ({ entry }));
  },
  gasPrice: (_p, _a, loader) => loader.services.fees.gasPrice(),
  maxPriorityFeePerGas: (_p, _a, loader) => loader.services.fees.maxPriorityFee(),
  // The same figures as eth_syncing; null when in sync.
  syncing: (_p, _a, loader) => loader.services.syncStatus() ?? null,
  chainID: (_p, _a, loader) => loader.services.common.chainId(),
  async protocolVersion(_p, _a, loader) {
    const version = await ethProtocolVersion.handler([], { services: loader.services, transport: 'http' });
    return Number(version);
  },
};

function bytesText(b: Uint8Array): string {
  return `0x${Buffer.from(b).toString('hex')}`;
}

const Mutation: Record<string, Resolver<unknown>> = {
  async sendRawTransaction(_p, args, loader) {
    const txPool = pool(loader);
    if (!txPool) throw new GraphQLCodedError(INVALID_PARAMS);
    try {
      const entry = await txPool.addRaw(args.data as Uint8Array, true);
      return entry.hash;
    } catch (err) {
      if (err instanceof TxPoolError) throw new GraphQLCodedError(rejectionSpec(err.reason));
      throw err;
    }
  },
};

// ------------------------------------------------------------------------------------------- Block

const BlockType: Record<string, Resolver<BlockRef>> = {
  number: (b) => b.header.number,
  hash: (b) => b.header.hash(),
  parent(b, _a, loader) {
    if (b.header.number === 0n) return null;
    const parent = loader.headerByHash(b.header.parentHash);
    return parent ? loader.blockRef(parent) : null;
  },
  nonce: (b) => b.header.nonce,
  transactionsRoot: (b) => b.header.transactionsTrie,
  transactionCount: (b) => (b.block ? b.block.transactions.length : null),
  stateRoot: (b) => b.header.stateRoot,
  receiptsRoot: (b) => b.header.receiptTrie,
  miner: (b, args, loader): AccountRef => ({
    address: b.header.coinbase,
    header: stateHeader(loader, args, () => b.header),
  }),
  extraData: (b) => b.header.extraData,
  gasLimit: (b) => b.header.gasLimit,
  gasUsed: (b) => b.header.gasUsed,
  baseFeePerGas: (b) => b.header.baseFeePerGas ?? null,
  nextBaseFeePerGas(b) {
    if (!b.header.common.isActivatedEIP(1559)) return null;
    return b.header.calcNextBaseFee();
  },
  timestamp: (b) => b.header.timestamp,
  logsBloom: (b) => b.header.logsBloom,
  mixHash: (b) => b.header.mixHash,
  difficulty: (b) => b.header.difficulty,
  totalDifficulty: (b, _a, loader) => (b.ommer ? 0n : loader.totalDifficulty(b.header)),
  ommerCount: (b) => (b.block ? b.block.uncleHeaders.length : null),
  ommers(b, _a, loader) {
    if (!b.block) return null;
    loader.charge(b.block.uncleHeaders.length);
    return b.block.uncleHeaders.map((header): BlockRef => ({ header, ommer: true }));
  },
  ommerAt(b, args) {
    const uncle = b.block?.uncleHeaders[Number(args.index as bigint)];
    return uncle ? { header: uncle, ommer: true } : null;
  },
  ommerHash: (b) => b.header.uncleHash,
  transactions(b, _a, loader) {
    if (!b.block) return null;
    loader.charge(b.block.transactions.length);
    return loader.transactions(b.block);
  },
  transactionAt(b, args, loader) {
    if (!b.block) return null;
    return loader.transactions(b.block)[Number(args.index as bigint)] ?? null;
  },
  logs(b, args, loader) {
    if (b.ommer) return [];
    const q = compileLogQuery(logQuery(args.filter as FilterInput));
    const entries = queryLogs(loader.services.chain, { blockHash: b.header.hash() }, q, { maxRange: 0 });
    loader.charge(entries.length);
    return entries.map((entry): LogRef => ({ entry }));
  },
  account: (b, args): AccountRef => ({
    address: new Address(args.address as Uint8Array),
    header: b.header,
  }),
  call: (b, args, loader) => runCall(loader, b.header, args.data as CallDataInput),
  async estimateGas(b, args, loader) {
    return (await runCall(loader, b.header, args.data as CallDataInput)).gasUsed;
  },
  rawHeader: (b) => b.header.serialize(),
  raw(b, _a, loader) {
    return b.block
      ? (loader.services.chain.getRawBlock(b.header.hash()) ?? b.block.serialize())
      : new Uint8Array();
  },
  withdrawalsRoot: (b) => b.header.withdrawalsRoot ?? null,
  withdrawals(b, _a, loader) {
    const list = b.block?.withdrawals;
    if (!list) return null;
    loader.charge(list.length);
    return list;
  },
  blobGasUsed: (b) => b.header.blobGasUsed ?? null,
  excessBlobGas: (b) => b.header.excessBlobGas ?? null,
};

// ------------------------------------------------------------------------------------------- Transaction

const Transaction: Record<string, Resolver<TxRef>> = {
  hash: (t) => t.hash ?? t.tx.hash(),
  nonce: (t) => t.tx.nonce,
  index: (t) => (t.index === undefined ? null : BigInt(t.index)),
  from: (t, args, loader): AccountRef => ({
    address: t.sender,
    header: stateHeader(loader, args, () => t.block?.header ?? loader.head().header),
  }),
  to(t, args, loader): AccountRef | null {
    if (!t.tx.to) return null;
    return {
      address: t.tx.to,
      header: stateHeader(loader, args, () => t.block?.header ?? loader.head().header),
    };
  },
  value: (t) => t.tx.value,
  gasPrice: (t) => (t.tx.type <= 1 ? (t.tx as { gasPrice: bigint }).gasPrice : 0n),
  maxFeePerGas: (t) => (feeMarket(t.tx) ? t.tx.maxFeePerGas : null),
  maxPriorityFeePerGas: (t) => (feeMarket(t.tx) ? t.tx.maxPriorityFeePerGas : null),
  maxFeePerBlobGas: (t) =>
    t.tx.type === 3 ? (t.tx as unknown as { maxFeePerBlobGas: bigint }).maxFeePerBlobGas : null,
  effectiveTip(t) {
    if (!t.block) return null;
    return t.tx.getEffectivePriorityFee(t.block.header.baseFeePerGas ?? 0n);
  },
  gas: (t) => t.tx.gasLimit,
  inputData: (t) => t.tx.data,
  block: (t) => (t.block ? blockRef(t.block) : null),
  status(t, _a, loader) {
    const r = receiptOf(loader, t);
    return r?.receipt.status === undefined ? null : BigInt(r.receipt.status);
  },
  gasUsed(t, _a, loader) {
    const r = receiptOf(loader, t);
    return r ? r.receipt.cumulativeGasUsed - r.previousGas : null;
  },
  cumulativeGasUsed: (t, _a, loader) => receiptOf(loader, t)?.receipt.cumulativeGasUsed ?? null,
  effectiveGasPrice: (t) => (t.block ? effectiveGasPrice(t.tx, t.block.header.baseFeePerGas) : null),
  blobGasUsed(t) {
    if (!t.block || t.tx.type !== 3) return null;
    const blobs = (t.tx as unknown as { blobVersionedHashes: readonly string[] }).blobVersionedHashes.length;
    return BigInt(blobs) * BLOB_GAS_PER_BLOB;
  },
  blobGasPrice: (t) => (t.block && t.tx.type === 3 ? t.block.header.getBlobGasPrice() : null),
  createdContract(t, args, loader): AccountRef | null {
    if (t.tx.to) return null;
    const given = args.block !== undefined && args.block !== null;
    if (!t.block && !given) return null;
    return {
      address: new Address(createdContractAddress(t.sender, t.tx.nonce)),
      header: stateHeader(loader, args, () => t.block?.header),
    };
  },
  logs: (t, _a, loader) => logsOfTx(loader, t),
  r: (t) => t.tx.r ?? 0n,
  s: (t) => t.tx.s ?? 0n,
  v(t) {
    if (t.tx.type >= 3) return null;
    return t.tx.v ?? null;
  },
  yParity: (t) => (t.tx.type === 0 ? null : (t.tx.v ?? null)),
  type: (t) => BigInt(t.tx.type),
  accessList(t) {
    const list = (t.tx as unknown as { accessList?: [Uint8Array, Uint8Array[]][] }).accessList;
    return (list ?? []).map(([address, storageKeys]) => ({ address, storageKeys }));
  },
  // As the block body holds it: a typed transaction's envelope is an RLP byte string there.
  raw: (t) => (t.tx.type === 0 ? t.tx.serialize() : RLP.encode(t.tx.serialize())),
  rawReceipt(t, _a, loader) {
    if (!t.block || t.index === undefined) return new Uint8Array();
    const raw = loader.rawReceipts(t.block)?.[t.index];
    if (!raw) return new Uint8Array();
    return t.tx.type === 0 ? raw : RLP.encode(raw);
  },
  blobVersionedHashes(t) {
    if (t.tx.type !== 3) return [];
    return (t.tx as unknown as { blobVersionedHashes: readonly string[] }).blobVersionedHashes.map(hexBytes);
  },
  // Revert reasons are not kept with receipts.
  revertReason: () => null,
};

// ------------------------------------------------------------------------------------------- the rest

const Account: Record<string, Resolver<AccountRef>> = {
  address: (a) => a.address.bytes,
  balance: async (a, _args, loader) => (await loader.account(a))?.balance ?? 0n,
  transactionCount: async (a, _args, loader) => (await loader.account(a))?.nonce ?? 0n,
  code: (a, _args, loader) => loader.code(a),
  storage: (a, args, loader) => loader.storage(a, args.slot as Uint8Array),
};

const Log: Record<string, Resolver<LogRef>> = {
  index: (l) => BigInt(l.entry.logIndex),
  account: (l, args, loader): AccountRef => ({
    address: new Address(l.entry.address),
    header: stateHeader(loader, args, () => loader.headerByNumber(l.entry.blockNumber)),
  }),
  topics: (l) => l.entry.topics,
  data: (l) => l.entry.data,
  transaction(l, _a, loader) {
    const block = loader.blockByHash(l.entry.blockHash);
    return block ? (loader.transactions(block)[l.entry.transactionIndex] ?? null) : null;
  },
};

const Pending: Record<string, Resolver<unknown>> = {
  transactionCount: (_p, _a, loader) => BigInt(pool(loader)?.size ?? 0),
  transactions(_p, _a, loader) {
    const all = pool(loader)?.all() ?? [];
    loader.charge(all.length);
    return all.map((p): TxRef => ({ tx: p.tx, sender: p.sender }));
  },
  account: (_p, args, loader): AccountRef => ({
    address: new Address(args.address as Uint8Array),
    header: loader.head().header,
  }),
  call: (_p, args, loader) => runCall(loader, loader.head().header, args.data as CallDataInput),
  async estimateGas(_p, args, loader) {
    return (await runCall(loader, loader.head().header, args.data as CallDataInput)).gasUsed;
  },
};

const Withdrawal: Record<
  string,
  Resolver<{ index: bigint; validatorIndex: bigint; address: Address; amount: bigint }>
> = {
  index: (w) => w.index,
  validator: (w) => w.validatorIndex,
  address: (w) => w.address.bytes,
  amount: (w) => w.amount,
};

/** Resolvers by type name, then field name. */
export const resolvers: Record<string, Record<string, Resolver<never>>> = {
  Query,
  Mutation,
  Block: BlockType,
  Transaction,
  Account,
  Log,
  Pending,
  Withdrawal,
};
