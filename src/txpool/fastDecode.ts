/**
 * Decoding of the common signed transactions (legacy, EIP-2930, EIP-1559, EIP-7702) straight from
 * their encoding into the library's own classes, without running the library's constructors: those
 * re-convert every field through generic helpers and look forks up several times per transaction,
 * most of the cost of taking a transaction in.
 *
 * The result is the object `createTxFromRLP(raw, { common, freeze: false })` builds: the same class,
 * the same own properties in the same order with the same values, the same Common (`copy()` of the
 * one given, which a shared Common answers with itself) and options. Only what is certainly valid
 * takes this path: canonical RLP with nothing after it, the exact field count of a signed
 * transaction, fields of the expected kind and width without leading zeros, every bound and fork
 * rule the constructors check. Anything else gives `undefined`, and the caller decodes with the
 * library, which then produces its own error.
 */
import type { Common } from '@ethereumjs/common';
import {
  AccessList2930Tx,
  type AccessListBytes,
  EOACode7702Tx,
  FeeMarket1559Tx,
  LegacyTx,
  paramsTx,
  type TypedTransaction,
} from '@ethereumjs/tx';
import { Address, MAX_INTEGER, SECP256K1_ORDER_DIV_2 } from '@ethereumjs/util';
import { type RlpItem, rlpCanonicalListItems, rlpItemAt } from '../chain/rlpScan.js';
import { bytesToHexKey } from '../state/trieStore.js';

const MAX_UINT64 = (1n << 64n) - 1n;

/** Thrown inside the decoder for anything it leaves to the library (never seen by callers). */
const NOT_HANDLED = new Error('left to the library decoder');

/** A field list already checked to hold `N` items. */
type Fields<N extends number, T extends RlpItem[] = []> = T['length'] extends N
  ? T
  : Fields<N, [...T, RlpItem]>;

/** The unsigned integer in a string item of at most `maxBytes` bytes, without leading zeros. */
function uint(raw: Uint8Array, item: RlpItem, maxBytes: number): bigint {
  const { payload, end } = item;
  const length = end - payload;
  if (item.isList || length > maxBytes || (length > 0 && raw[payload] === 0)) throw NOT_HANDLED;
  if (length <= 6) {
    let n = 0;
    for (let i = payload; i < end; i++) n = n * 256 + (raw[i] as number);
    return BigInt(n);
  }
  return BigInt(`0x${bytesToHexKey(raw.subarray(payload, end))}`);
}

/**
 * A string item's bytes as the library's RLP decoder hands them out: `slice` of the input (a copy of a
 * byte array, a view into a Buffer, as eth_sendRawTransaction's parameter is), and a fresh empty array
 * for an empty string.
 */
function bytes(raw: Uint8Array, item: RlpItem): Uint8Array {
  if (item.isList) throw NOT_HANDLED;
  return item.end === item.payload ? new Uint8Array(0) : raw.slice(item.payload, item.end);
}

/** A plain copy of a string item's bytes (what the constructors keep of `to` and `data`). */
function copy(raw: Uint8Array, item: RlpItem): Uint8Array {
  if (item.isList) throw NOT_HANDLED;
  return new Uint8Array(raw.subarray(item.payload, item.end));
}

/** A string item of exactly `length` (> 0) bytes, as `bytes` gives it. */
function fixed(raw: Uint8Array, item: RlpItem, length: number): Uint8Array {
  if (item.isList || item.end - item.payload !== length) throw NOT_HANDLED;
  return raw.slice(item.payload, item.end);
}

function listItems(raw: Uint8Array, item: RlpItem): RlpItem[] {
  const items = rlpCanonicalListItems(raw, item);
  if (items === undefined) throw NOT_HANDLED;
  return items;
}

/** `[[address (20 bytes), [slot (32 bytes) …]] …]`, the only shape taken here. */
function accessList(raw: Uint8Array, item: RlpItem): AccessListBytes {
  return listItems(raw, item).map((entry) => {
    const pair = listItems(raw, entry);
    if (pair.length !== 2) throw NOT_HANDLED;
    const slots = listItems(raw, pair[1] as RlpItem).map((slot) => fixed(raw, slot, 32));
    return [fixed(raw, pair[0] as RlpItem, 20), slots];
  });
}

/** A non-empty list of `[chainId, address, nonce, yParity, r, s]`, all strings within their bounds. */
function authorizationList(raw: Uint8Array, item: RlpItem): Uint8Array[][] {
  const entries = listItems(raw, item);
  if (entries.length === 0) throw NOT_HANDLED;
  return entries.map((entry) => {
    const f = listItems(raw, entry);
    if (f.length !== 6) throw NOT_HANDLED;
    const [chainId, address, nonce, yParity, r, s] = f as Fields<6>;
    uint(raw, chainId, 32);
    uint(raw, nonce, 8);
    uint(raw, yParity, 1);
    uint(raw, r, 32);
    uint(raw, s, 32);
    return [
      bytes(raw, chainId),
      fixed(raw, address, 20),
      bytes(raw, nonce),
      bytes(raw, yParity),
      bytes(raw, r),
      bytes(raw, s),
    ];
  });
}

/** The fields every transaction has, read and checked as the shared constructor checks them. */
interface Base {
  to: Address | undefined;
  nonce: bigint;
  gasLimit: bigint;
  value: bigint;
  data: Uint8Array;
  v: bigint;
  r: bigint;
  s: bigint;
}

function base(
  raw: Uint8Array,
  common: Common,
  items: { nonce: RlpItem; gasLimit: RlpItem; to: RlpItem; value: RlpItem; data: RlpItem; v: RlpItem },
  r: RlpItem,
  s: RlpItem,
  vMaxBytes: number,
): Base {
  const nonce = uint(raw, items.nonce, 8);
  const gasLimit = uint(raw, items.gasLimit, 8);
  const value = uint(raw, items.value, 32);
  const v = uint(raw, items.v, vMaxBytes);
  // An empty r or s reads as unsigned in the library: left to it.
  if (r.end === r.payload || s.end === s.payload) throw NOT_HANDLED;
  const rValue = uint(raw, r, 32);
  const sValue = uint(raw, s, 32);
  if (nonce === MAX_UINT64) throw NOT_HANDLED;
  if (items.to.isList) throw NOT_HANDLED;
  const toLength = items.to.end - items.to.payload;
  if (toLength !== 0 && toLength !== 20) throw NOT_HANDLED;
  const to = toLength === 20 ? new Address(copy(raw, items.to)) : undefined;
  const data = copy(raw, items.data);
  if (common.isActivatedEIP(7825) && !common.isActivatedEIP(8037)) {
    if (gasLimit > common.param('maxTransactionGasLimit')) throw NOT_HANDLED;
  }
  if (to === undefined && common.isActivatedEIP(3860)) {
    const maxInitCodeSize = common.param('maxInitCodeSize');
    if (maxInitCodeSize && BigInt(data.length) > maxInitCodeSize) throw NOT_HANDLED;
  }
  return { to, nonce, gasLimit, value, data, v, r: rValue, s: sValue };
}

type Mutable = Record<string, unknown>;

/** The properties every class sets first, in its order (type, cache, capabilities, then shared). */
function start(
  proto: object,
  type: number,
  capabilities: number[],
  common: Common,
  txOptions: object,
  b: Base,
): Mutable {
  const tx = Object.create(proto) as Mutable;
  tx.type = type;
  tx.cache = {};
  tx.activeCapabilities = capabilities;
  tx.common = common;
  tx.txOptions = txOptions;
  tx.to = b.to;
  tx.nonce = b.nonce;
  tx.gasLimit = b.gasLimit;
  tx.value = b.value;
  tx.data = b.data;
  tx.v = b.v;
  tx.r = b.r;
  tx.s = b.s;
  return tx;
}

function legacy(raw: Uint8Array, f: RlpItem[], common: Common, txOptions: object): Mutable {
  if (f.length !== 9) throw NOT_HANDLED;
  const [nonce, gasPrice, gasLimit, to, value, data, v, r, s] = f as Fields<9>;
  // An empty v reads as unsigned in the library. The library compares v and the chain id as Numbers:
  // taken here only within 6 bytes and 2^40, where those are exact.
  if (v.end === v.payload) throw NOT_HANDLED;
  const b = base(raw, common, { nonce, gasLimit, to, value, data, v }, r, s, 6);
  const price = uint(raw, gasPrice, 32);
  const keccakFunction = common.customCrypto.keccak256;
  if (keccakFunction === undefined) throw NOT_HANDLED;
  const vNumber = Number(b.v);
  const chainId = common.chainId();
  if (chainId > 1n << 40n) throw NOT_HANDLED;
  const eip155 = vNumber === Number(chainId) * 2 + 35 || vNumber === Number(chainId) * 2 + 36;
  const spuriousDragon = common.gteHardfork('spuriousDragon');
  if (vNumber !== 27 && vNumber !== 28) {
    if (vNumber < 37) throw NOT_HANDLED;
    if (spuriousDragon && !eip155) throw NOT_HANDLED;
  }
  if (price * b.gasLimit > MAX_INTEGER) throw NOT_HANDLED;
  const capabilities = spuriousDragon && eip155 ? [155] : [];
  const tx = start(LegacyTx.prototype, 0, capabilities, common, txOptions, b);
  tx.gasPrice = price;
  tx.keccakFunction = keccakFunction;
  return tx;
}

/** Typed transactions: `chainId` first, y-parity 0 or 1, the chain's id, the type's EIP active. */
function typed(raw: Uint8Array, type: number, f: RlpItem[], common: Common, txOptions: object): Mutable {
  const n = type === 1 ? 11 : type === 2 ? 12 : 13;
  if (f.length !== n) throw NOT_HANDLED;
  const chainId = common.chainId();
  if (uint(raw, f[0] as RlpItem, 32) !== chainId) throw NOT_HANDLED;
  if (!common.isActivatedEIP(type === 1 ? 2930 : type === 2 ? 1559 : 7702)) throw NOT_HANDLED;
  const at = (i: number) => f[i] as RlpItem;
  // Fee fields: [gasPrice] for type 1, [maxPriorityFeePerGas, maxFeePerGas] after.
  const fees = type === 1 ? 1 : 2;
  const b = base(
    raw,
    common,
    {
      nonce: at(1),
      gasLimit: at(2 + fees),
      to: at(3 + fees),
      value: at(4 + fees),
      data: at(5 + fees),
      v: at(n - 3),
    },
    at(n - 2),
    at(n - 1),
    1,
  );
  // The typed constructors refuse a high s from Homestead on (a legacy one is refused only when its
  // sender is recovered).
  if (b.v > 1n || (common.gteHardfork('homestead') && b.s > SECP256K1_ORDER_DIV_2)) throw NOT_HANDLED;
  const list = accessList(raw, at(6 + fees));
  if (type === 1) {
    const gasPrice = uint(raw, at(2), 32);
    if (gasPrice * b.gasLimit > MAX_INTEGER) throw NOT_HANDLED;
    const tx = start(AccessList2930Tx.prototype, 1, [2718, 2930], common, txOptions, b);
    tx.chainId = chainId;
    tx.accessList = list;
    tx.gasPrice = gasPrice;
    return tx;
  }
  const maxPriorityFeePerGas = uint(raw, at(2), 32);
  const maxFeePerGas = uint(raw, at(3), 32);
  if (b.gasLimit * maxFeePerGas > MAX_INTEGER || maxFeePerGas < maxPriorityFeePerGas) throw NOT_HANDLED;
  if (type === 2) {
    const tx = start(FeeMarket1559Tx.prototype, 2, [1559, 2718, 2930], common, txOptions, b);
    tx.chainId = chainId;
    tx.accessList = list;
    tx.maxFeePerGas = maxFeePerGas;
    tx.maxPriorityFeePerGas = maxPriorityFeePerGas;
    return tx;
  }
  const authorizations = authorizationList(raw, at(9));
  if (b.to === undefined) throw NOT_HANDLED;
  const tx = start(EOACode7702Tx.prototype, 4, [1559, 2718, 2930, 7702], common, txOptions, b);
  tx.chainId = chainId;
  tx.accessList = list;
  tx.authorizationList = authorizations;
  tx.maxFeePerGas = maxFeePerGas;
  tx.maxPriorityFeePerGas = maxPriorityFeePerGas;
  return tx;
}

/**
 * The unfrozen transaction `createTxFromRLP(raw, { common, freeze: false })` would return, when `raw`
 * is a signed legacy, EIP-2930, EIP-1559 or EIP-7702 transaction this decoder is certain about;
 * undefined for everything else (the library then decides, with its own error).
 */
export function fastDecodeTx(raw: Uint8Array, common: Common): TypedTransaction | undefined {
  const proto = Object.getPrototypeOf(raw);
  if (raw.length === 0 || (proto !== Uint8Array.prototype && proto !== Buffer.prototype)) return undefined;
  const first = raw[0] as number;
  const type = first >= 0xc0 ? 0 : first;
  if (type !== 0 && type !== 1 && type !== 2 && type !== 4) return undefined;
  // The EIP-2930 decoder reads a plain copy of its input (its fields are never views into a Buffer).
  const input = type === 1 && proto === Buffer.prototype ? new Uint8Array(raw) : raw;
  try {
    const list = rlpItemAt(input, type === 0 ? 0 : 1);
    if (list.end !== input.length) return undefined;
    const fields = rlpCanonicalListItems(input, list);
    if (fields === undefined) return undefined;
    // As the library's constructors: `copy()` of the Common given (itself when shared) with the
    // transaction parameters merged in.
    const own = common.copy();
    own.updateParams(paramsTx);
    const txOptions = { common, freeze: false };
    const tx =
      type === 0 ? legacy(input, fields, own, txOptions) : typed(input, type, fields, own, txOptions);
    return tx as unknown as TypedTransaction;
  } catch {
    return undefined;
  }
}
