/**
 * Blocks and uncle headers as Besu writes them (`BlockResult`), members in Besu's order. A member
 * appears only from the fork that introduced it: `baseFeePerGas` from London, withdrawals from
 * Shanghai, blob gas and the beacon root from Cancun, `requestsHash` from Prague.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import type { Address, Withdrawal } from '@ethereumjs/util';
import { type ChainStore, rlpListLength } from '../../chain/chainStore.js';
import { rlpItemAt, rlpListItems } from '../../chain/rlpScan.js';
import { keccak256 } from '../../crypto/index.js';
import { bytes, quantity } from './hex.js';
import {
  bytesToQuantity,
  formatEncodedTransaction,
  formatTransaction,
  type TxJson,
  type TxLocationHex,
} from './transaction.js';

export type BlockJson = Record<string, unknown>;

export interface FormatBlockOptions {
  /**
   * Whether blocks carry `totalDifficulty`. Besu drops it once a chain can reach the merge; Alder writes
   * it only for chains without a terminal total difficulty, and only on blocks with a difficulty.
   */
  totalDifficulty: boolean;
}

/** RLP length of the whole block, as stored. */
function blockSize(chain: ChainStore, hash: Uint8Array, block: Block): number {
  return chain.getBlockSize(hash) ?? block.serialize().length;
}

function withdrawalJson(w: Withdrawal): Record<string, string> {
  return {
    index: quantity(w.index),
    validatorIndex: quantity(w.validatorIndex),
    address: bytes(w.address.bytes),
    amount: quantity(w.amount),
  };
}

/** The header members up to (not including) `uncles`/`transactions`, then the post-London tail. */
function headerHead(h: BlockHeader, hashHex: string, td: bigint | undefined, size: number): BlockJson {
  const out: BlockJson = {
    number: quantity(h.number),
    hash: hashHex,
    mixHash: bytes(h.mixHash),
    parentHash: bytes(h.parentHash),
    nonce: bytes(h.nonce),
    sha3Uncles: bytes(h.uncleHash),
    logsBloom: bytes(h.logsBloom),
    transactionsRoot: bytes(h.transactionsTrie),
    stateRoot: bytes(h.stateRoot),
    receiptsRoot: bytes(h.receiptTrie),
    miner: bytes(h.coinbase.bytes),
    difficulty: quantity(h.difficulty),
  };
  if (td !== undefined) out.totalDifficulty = quantity(td);
  out.extraData = bytes(h.extraData);
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = quantity(h.baseFeePerGas);
  out.size = quantity(size);
  out.gasLimit = quantity(h.gasLimit);
  out.gasUsed = quantity(h.gasUsed);
  out.timestamp = quantity(h.timestamp);
  return out;
}

function headerTail(
  out: BlockJson,
  h: BlockHeader,
  withdrawals: readonly Withdrawal[] | undefined,
  withdrawalsJson?: Record<string, string>[],
): void {
  if (h.withdrawalsRoot !== undefined) {
    out.withdrawalsRoot = bytes(h.withdrawalsRoot);
    if (withdrawalsJson !== undefined) out.withdrawals = withdrawalsJson;
    else {
      const list = withdrawals ?? [];
      const ws = new Array(list.length);
      for (let i = 0; i < list.length; i++) ws[i] = withdrawalJson(list[i] as Withdrawal);
      out.withdrawals = ws;
    }
  }
  if (h.blobGasUsed !== undefined) out.blobGasUsed = quantity(h.blobGasUsed);
  if (h.excessBlobGas !== undefined) out.excessBlobGas = quantity(h.excessBlobGas);
  if (h.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = bytes(h.parentBeaconBlockRoot);
  if (h.requestsHash !== undefined) out.requestsHash = bytes(h.requestsHash);
}

function totalDifficultyOf(
  chain: ChainStore,
  header: BlockHeader,
  hash: Uint8Array,
  opts: FormatBlockOptions,
) {
  return opts.totalDifficulty && header.difficulty !== 0n ? chain.getTotalDifficulty(hash) : undefined;
}

/** Hex block values shared by every transaction of the block. */
export function txLocationBase(header: BlockHeader, hashHex: string): Omit<TxLocationHex, 'index'> {
  return {
    blockHash: hashHex,
    blockNumber: quantity(header.number),
    blockTimestamp: quantity(header.timestamp),
    baseFeePerGas: header.baseFeePerGas,
  };
}

/**
 * A block with transaction hashes, or with full transaction objects when `fullTxs`. Senders come from
 * the chain store (recovered once at import).
 */
export function formatBlock(
  block: Block,
  fullTxs: boolean,
  chain: ChainStore,
  opts: FormatBlockOptions,
): BlockJson {
  const header = block.header;
  const hash = header.hash();
  const hashHex = bytes(hash);
  const out = headerHead(
    header,
    hashHex,
    totalDifficultyOf(chain, header, hash, opts),
    blockSize(chain, hash, block),
  );
  const uncles = new Array(block.uncleHeaders.length);
  for (let i = 0; i < uncles.length; i++) uncles[i] = bytes((block.uncleHeaders[i] as BlockHeader).hash());
  out.uncles = uncles;
  const txs = block.transactions;
  const list: (string | TxJson)[] = new Array(txs.length);
  if (fullTxs && txs.length > 0) {
    const senders = chain.getSenders(hash);
    const base = txLocationBase(header, hashHex);
    for (let i = 0; i < txs.length; i++) {
      const tx = txs[i] as (typeof txs)[number];
      const sender = senders?.[i] ?? tx.getSenderAddress();
      list[i] = formatTransaction(tx, sender, { ...base, index: i });
    }
  } else {
    for (let i = 0; i < txs.length; i++) list[i] = bytes((txs[i] as (typeof txs)[number]).hash());
  }
  out.transactions = list;
  headerTail(out, header, block.withdrawals);
  return out;
}

/**
 * A stored block formatted from its stored header and body RLP, as `formatBlock` formats the decoded
 * block: transactions are read from their encodings (`formatEncodedTransaction`) and uncle hashes are
 * the hashes of the uncles' encodings, so no transaction or uncle object is built. Undefined when the
 * block is not stored, or holds something only the decoded path formats (a transaction type it does
 * not know, a transaction without a recorded sender).
 */
export function formatStoredBlock(
  chain: ChainStore,
  hash: Uint8Array,
  fullTxs: boolean,
  opts: FormatBlockOptions,
): BlockJson | undefined {
  const header = chain.getHeader(hash);
  const body = chain.getRawBody(hash);
  if (header === undefined || body === undefined) return undefined;
  const sections = rlpListItems(body, rlpItemAt(body, 0));
  const txSection = sections[0];
  const uncleSection = sections[1];
  if (txSection === undefined || uncleSection === undefined) return undefined;
  const hashHex = bytes(hash);
  const size = chain.getBlockSize(hash);
  if (size === undefined) return undefined;
  const out = headerHead(header, hashHex, totalDifficultyOf(chain, header, hash, opts), size);
  const uncleItems = rlpListItems(body, uncleSection);
  const uncles = new Array(uncleItems.length);
  for (let i = 0; i < uncleItems.length; i++) {
    const u = uncleItems[i] as (typeof uncleItems)[number];
    uncles[i] = bytes(keccak256(body.subarray(u.start, u.end)));
  }
  out.uncles = uncles;
  const txItems = rlpListItems(body, txSection);
  const list: (string | TxJson)[] = new Array(txItems.length);
  const senders = fullTxs && txItems.length > 0 ? chain.getSenders(hash) : undefined;
  if (fullTxs && txItems.length > 0 && (senders === undefined || senders.length < txItems.length))
    return undefined;
  const base = txLocationBase(header, hashHex);
  for (let i = 0; i < txItems.length; i++) {
    const t = txItems[i] as (typeof txItems)[number];
    const encoding = t.isList ? body.subarray(t.start, t.end) : body.subarray(t.payload, t.end);
    const txHash = keccak256(encoding);
    if (!fullTxs) {
      list[i] = bytes(txHash);
      continue;
    }
    const sender = senders?.[i] as Address;
    const tx = formatEncodedTransaction(encoding, txHash, sender.bytes, {
      ...base,
      index: i,
    });
    if (tx === undefined) return undefined;
    list[i] = tx;
  }
  out.transactions = list;
  let withdrawals: Record<string, string>[] | undefined;
  if (header.withdrawalsRoot !== undefined) {
    const section = sections[2];
    const raw =
      section === undefined ? [] : (RLP.decode(body.subarray(section.start, section.end)) as Uint8Array[][]);
    withdrawals = raw.map(([index, validatorIndex, address, amount]) => ({
      index: bytesToQuantity(index as Uint8Array),
      validatorIndex: bytesToQuantity(validatorIndex as Uint8Array),
      address: bytes(address as Uint8Array),
      amount: bytesToQuantity(amount as Uint8Array),
    }));
  }
  headerTail(out, header, undefined, withdrawals);
  return out;
}

/**
 * An uncle, shown as a block with no transactions and no uncles of its own; its size is that of such a
 * block (header plus two empty lists, and an empty withdrawals list from Shanghai).
 */
export function formatUncle(header: BlockHeader, chain: ChainStore, opts: FormatBlockOptions): BlockJson {
  const hash = header.hash();
  const hashHex = bytes(hash);
  const headerLength = header.serialize().length;
  const size = rlpListLength(headerLength + 2 + (header.withdrawalsRoot !== undefined ? 1 : 0));
  const out = headerHead(header, hashHex, totalDifficultyOf(chain, header, hash, opts), size);
  out.uncles = [];
  out.transactions = [];
  headerTail(out, header, header.withdrawalsRoot !== undefined ? [] : undefined);
  return out;
}

/** A block that is not in the store (eth_simulateV1): size from its own RLP, senders given. */
export function formatUnstoredBlock(block: Block, fullTxs: boolean, senders: readonly Address[]): BlockJson {
  const header = block.header;
  const hashHex = bytes(header.hash());
  const out = headerHead(header, hashHex, undefined, block.serialize().length);
  out.uncles = block.uncleHeaders.map((u) => bytes(u.hash()));
  const txs = block.transactions;
  const base = txLocationBase(header, hashHex);
  out.transactions = txs.map((tx, i) =>
    fullTxs
      ? formatTransaction(tx, senders[i] ?? tx.getSenderAddress(), { ...base, index: i })
      : bytes(tx.hash()),
  );
  headerTail(out, header, block.withdrawals);
  return out;
}
