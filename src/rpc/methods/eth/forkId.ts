/**
 * EIP-2124 fork identifiers: CRC32 over the genesis hash and then every fork activation point (block
 * numbers, then timestamps) up to the fork in question, each as an 8-byte big-endian integer. Forks
 * active at genesis and forks that share an activation point count once.
 */
import { crc32 } from 'node:zlib';
import {
  type ForkName,
  forkSchedule,
  type GenesisSpec,
  type ScheduledFork,
} from '../../../config/genesis.js';

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
