/**
 * The `eth` wire protocol's messages (versions 68 and 69): codes, limits and the small decoders that
 * turn RLP into checked values. A decoder throws `MalformedMessageError` on anything out of shape; the
 * peer that sent it is disconnected.
 */
import { RLP } from '@ethereumjs/rlp';

export const EthCode = {
  Status: 0x00,
  NewBlockHashes: 0x01,
  Transactions: 0x02,
  GetBlockHeaders: 0x03,
  BlockHeaders: 0x04,
  GetBlockBodies: 0x05,
  BlockBodies: 0x06,
  NewBlock: 0x07,
  NewPooledTransactionHashes: 0x08,
  GetPooledTransactions: 0x09,
  PooledTransactions: 0x0a,
  GetReceipts: 0x0f,
  Receipts: 0x10,
  BlockRangeUpdate: 0x11,
} as const;

export const ETH_MESSAGE_COUNT: Record<number, number> = { 68: 17, 69: 18 };

/** Besu's per-request limits (answers carry at most this many items). */
export const MAX_HEADERS = 512;
export const MAX_BODIES = 128;
export const MAX_RECEIPTS = 256;
export const MAX_POOLED_TXS = 256;
/** A served answer stops growing past this many bytes (one item may take it over). */
export const SOFT_RESPONSE_BYTES = 2 * 1024 * 1024;

export class MalformedMessageError extends Error {
  constructor(detail: string) {
    super(`malformed message: ${detail}`);
    this.name = 'MalformedMessageError';
  }
}

export type Rlp = Uint8Array | Rlp[];

export function decode(payload: Uint8Array): Rlp {
  try {
    return RLP.decode(payload) as Rlp;
  } catch (err) {
    throw new MalformedMessageError((err as Error).message);
  }
}

export function list(v: Rlp | undefined, what: string): Rlp[] {
  if (!Array.isArray(v)) throw new MalformedMessageError(`${what} is not a list`);
  return v;
}

export function bytes(v: Rlp | undefined, what: string, length?: number): Uint8Array {
  if (!(v instanceof Uint8Array)) throw new MalformedMessageError(`${what} is not a byte string`);
  if (length !== undefined && v.length !== length)
    throw new MalformedMessageError(`${what} has ${v.length} bytes, not ${length}`);
  return v;
}

export function uint(v: Rlp | undefined, what: string): bigint {
  const b = bytes(v, what);
  if (b.length > 32) throw new MalformedMessageError(`${what} is too long`);
  if (b.length > 0 && b[0] === 0) throw new MalformedMessageError(`${what} has leading zeros`);
  return b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`);
}

export function num(v: Rlp | undefined, what: string): number {
  const n = uint(v, what);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new MalformedMessageError(`${what} is too large`);
  return Number(n);
}

export function encodeUint(n: bigint | number): Uint8Array {
  const b = BigInt(n);
  if (b === 0n) return new Uint8Array();
  let hex = b.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

export function encode(v: unknown): Uint8Array {
  return RLP.encode(v as Parameters<typeof RLP.encode>[0]);
}

export interface Status {
  version: number;
  networkId: bigint;
  /** eth/68 only. */
  td?: bigint;
  /** eth/68: the best block; eth/69: the latest block. */
  bestHash: Uint8Array;
  genesisHash: Uint8Array;
  forkId: { hash: Uint8Array; next: bigint };
  /** eth/69 only. */
  earliestBlock?: bigint;
  latestBlock?: bigint;
}

export function encodeStatus(s: Status): Uint8Array {
  const forkId = [s.forkId.hash, encodeUint(s.forkId.next)];
  if (s.version >= 69) {
    return encode([
      encodeUint(s.version),
      encodeUint(s.networkId),
      s.genesisHash,
      forkId,
      encodeUint(s.earliestBlock ?? 0n),
      encodeUint(s.latestBlock ?? 0n),
      s.bestHash,
    ]);
  }
  return encode([
    encodeUint(s.version),
    encodeUint(s.networkId),
    encodeUint(s.td ?? 0n),
    s.bestHash,
    s.genesisHash,
    forkId,
  ]);
}

export function decodeStatus(payload: Uint8Array): Status {
  const v = list(decode(payload), 'status');
  const version = num(v[0], 'status version');
  const networkId = uint(v[1], 'network id');
  const fork = (f: Rlp | undefined) => {
    const l = list(f, 'fork id');
    return { hash: bytes(l[0], 'fork hash', 4), next: uint(l[1], 'fork next') };
  };
  if (version >= 69) {
    if (v.length < 7) throw new MalformedMessageError('status has too few fields');
    return {
      version,
      networkId,
      genesisHash: bytes(v[2], 'genesis hash', 32),
      forkId: fork(v[3]),
      earliestBlock: uint(v[4], 'earliest block'),
      latestBlock: uint(v[5], 'latest block'),
      bestHash: bytes(v[6], 'latest hash', 32),
    };
  }
  if (v.length < 6) throw new MalformedMessageError('status has too few fields');
  return {
    version,
    networkId,
    td: uint(v[2], 'total difficulty'),
    bestHash: bytes(v[3], 'best hash', 32),
    genesisHash: bytes(v[4], 'genesis hash', 32),
    forkId: fork(v[5]),
  };
}

/** A request message's id and body: `[request-id, body]`. */
export function requestOf(payload: Uint8Array, what: string): { id: bigint; body: Rlp } {
  const v = list(decode(payload), what);
  if (v.length !== 2) throw new MalformedMessageError(`${what} is not [request-id, body]`);
  return { id: uint(v[0], 'request id'), body: v[1] as Rlp };
}

export interface HeadersQuery {
  origin: Uint8Array | bigint;
  amount: number;
  skip: number;
  reverse: boolean;
}

export function decodeHeadersQuery(body: Rlp): HeadersQuery {
  const v = list(body, 'headers query');
  if (v.length !== 4) throw new MalformedMessageError('headers query has not 4 fields');
  const o = bytes(v[0], 'origin');
  return {
    origin: o.length === 32 ? o : uint(o, 'origin number'),
    amount: num(v[1], 'amount'),
    skip: num(v[2], 'skip'),
    reverse: uint(v[3], 'reverse') !== 0n,
  };
}

export function encodeHeadersQuery(q: HeadersQuery): Rlp {
  return [
    q.origin instanceof Uint8Array ? q.origin : encodeUint(q.origin),
    encodeUint(q.amount),
    encodeUint(q.skip),
    encodeUint(q.reverse ? 1 : 0),
  ];
}

export function hashList(body: Rlp, what: string, max: number): Uint8Array[] {
  const v = list(body, what);
  return v.slice(0, max).map((h, i) => bytes(h, `${what}[${i}]`, 32));
}

/** eth/68 NewPooledTransactionHashes: `[types, [sizes], [hashes]]`, three equal lengths. */
export function decodeAnnouncement(payload: Uint8Array): {
  types: Uint8Array;
  sizes: number[];
  hashes: Uint8Array[];
} {
  const v = list(decode(payload), 'announcement');
  if (v.length !== 3) throw new MalformedMessageError('announcement has not 3 fields');
  const types = bytes(v[0], 'announcement types');
  const sizes = list(v[1], 'announcement sizes').map((s) => num(s, 'tx size'));
  const hashes = list(v[2], 'announcement hashes').map((h) => bytes(h, 'tx hash', 32));
  if (types.length !== sizes.length || sizes.length !== hashes.length)
    throw new MalformedMessageError('announcement fields differ in length');
  return { types, sizes, hashes };
}

/** A transaction in network form (legacy as a list, typed as `type || payload`) to its canonical bytes. */
export function txBytes(v: Rlp): Uint8Array {
  return v instanceof Uint8Array ? v : encode(v);
}

/** Canonical transaction bytes to network form. */
export function txNetworkForm(raw: Uint8Array): Rlp {
  return (raw[0] as number) >= 0xc0 ? (decode(raw) as Rlp) : raw;
}
