/**
 * EIP-2124 fork identifiers: CRC32 over the genesis hash and then every fork activation point (block
 * numbers, then timestamps) up to the fork in question, each as an 8-byte big-endian integer. Forks
 * active at genesis and forks that share an activation point count once.
 */
import { crc32 } from 'node:zlib';
import { type ForkName, forkSchedule, type GenesisSpec, type ScheduledFork } from '../config/genesis.js';

export interface ForkPoints {
  blocks: bigint[];
  timestamps: bigint[];
}

/** The distinct activation points after genesis, ascending. */
export function forkPoints(spec: GenesisSpec): ForkPoints {
  const blocks = new Set<bigint>();
  const timestamps = new Set<bigint>();
  for (const f of forkSchedule(spec)) {
    if (f.timestamp !== undefined) {
      if (f.timestamp > spec.timestamp) timestamps.add(f.timestamp);
    } else if (f.block !== null && f.block > 0n) {
      blocks.add(f.block);
    }
  }
  const asc = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
  return { blocks: [...blocks].sort(asc), timestamps: [...timestamps].sort(asc) };
}

function update(crc: number, point: bigint): number {
  const buf = Buffer.alloc(8);
  buf.writeBigUInt64BE(point);
  return crc32(buf, crc);
}

/** Fork hash (`0x` + 8 hex digits) of the rules in force at block `number` / time `timestamp`. */
export function forkHash(
  genesisHash: Uint8Array,
  points: ForkPoints,
  number: bigint,
  timestamp: bigint,
): string {
  let crc = crc32(genesisHash);
  for (const b of points.blocks) if (b <= number) crc = update(crc, b);
  for (const t of points.timestamps) if (t <= timestamp) crc = update(crc, t);
  return `0x${(crc >>> 0).toString(16).padStart(8, '0')}`;
}

/** Fork hash of the rules a scheduled fork brings in. */
export function forkHashOf(genesisHash: Uint8Array, points: ForkPoints, fork: ScheduledFork): string {
  if (fork.timestamp !== undefined) {
    const lastBlock = points.blocks.length > 0 ? (points.blocks[points.blocks.length - 1] as bigint) : 0n;
    return forkHash(genesisHash, points, lastBlock, fork.timestamp);
  }
  return forkHash(genesisHash, points, fork.block ?? 0n, -1n);
}

export type { ForkName };

/** A fork id as the `eth` status message carries it: 4 hash bytes and the next activation point. */
export interface ForkId {
  hash: Uint8Array;
  next: bigint;
}

export type ForkIdVerdict = 'ok' | 'remote-stale' | 'local-incompatible-or-stale';

function hashBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));
}

/**
 * The fork id service of one chain: what the node announces at a given head, and whether a peer's
 * announcement is compatible (EIP-2124's four rules). The `eth` status exchange and eth_config use it.
 */
export class ForkIdService {
  /** Every activation point ascending (blocks, then timestamps), and the fork hash before each. */
  private readonly checkpoints: { point: bigint; byTime: boolean; hashBefore: string }[] = [];
  private readonly finalHash: string;

  static of(genesisHash: Uint8Array, spec: GenesisSpec): ForkIdService {
    return new ForkIdService(genesisHash, forkPoints(spec));
  }

  constructor(
    readonly genesisHash: Uint8Array,
    readonly points: ForkPoints,
  ) {
    let crc = crc32(genesisHash);
    const hex = (c: number) => `0x${(c >>> 0).toString(16).padStart(8, '0')}`;
    for (const b of this.points.blocks) {
      this.checkpoints.push({ point: b, byTime: false, hashBefore: hex(crc) });
      crc = update(crc, b);
    }
    for (const t of this.points.timestamps) {
      this.checkpoints.push({ point: t, byTime: true, hashBefore: hex(crc) });
      crc = update(crc, t);
    }
    this.finalHash = hex(crc);
  }

  /** The fork id announced with head `number` at time `timestamp`. */
  forkIdAt(number: bigint, timestamp: bigint): ForkId {
    for (const c of this.checkpoints) {
      const passed = c.byTime ? timestamp >= c.point : number >= c.point;
      if (!passed) return { hash: hashBytes(c.hashBefore), next: c.point };
    }
    return { hash: hashBytes(this.finalHash), next: 0n };
  }

  /**
   * EIP-2124 validation of a remote fork id against the local head: same hash → compatible unless the
   * remote announces a next fork the local head has already passed; a remote hash equal to one of the
   * local past states with its `next` being the fork that followed → the remote is merely behind; a
   * remote hash that is a local future state → the local node is behind; anything else rejects.
   */
  validate(remote: ForkId, number: bigint, timestamp: bigint): ForkIdVerdict {
    const remoteHex = `0x${Buffer.from(remote.hash).toString('hex')}`;
    const passed = (c: { point: bigint; byTime: boolean }) =>
      c.byTime ? timestamp >= c.point : number >= c.point;
    // The local fork hash and the index of the first unpassed checkpoint.
    let current = this.checkpoints.findIndex((c) => !passed(c));
    if (current < 0) current = this.checkpoints.length;
    const localHex =
      current < this.checkpoints.length ? this.checkpoints[current]?.hashBefore : this.finalHash;
    if (remoteHex === localHex) {
      if (remote.next === 0n) return 'ok';
      // Activation points above the first mainnet block's timestamp are times, not numbers.
      const remoteNextByTime = remote.next >= 1_438_269_973n;
      const nextPassed = remoteNextByTime ? timestamp >= remote.next : number >= remote.next;
      return nextPassed ? 'local-incompatible-or-stale' : 'ok';
    }
    // Remote is a subset of the local past: it must announce the fork that followed.
    for (let i = 0; i < current; i++) {
      const c = this.checkpoints[i] as { point: bigint; hashBefore: string };
      if (c.hashBefore === remoteHex) return remote.next === c.point ? 'ok' : 'remote-stale';
    }
    // Remote is a superset: its hash is one of the local future states.
    for (let i = current + 1; i <= this.checkpoints.length; i++) {
      const h = i < this.checkpoints.length ? this.checkpoints[i]?.hashBefore : this.finalHash;
      if (h === remoteHex) return 'ok';
    }
    return 'local-incompatible-or-stale';
  }
}
