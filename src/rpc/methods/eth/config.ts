/**
 * eth_config (EIP-7910): the fork in force now, the next scheduled one and the last scheduled one,
 * each with its activation time, blob schedule, chain id, fork id, precompiles and system contracts.
 * Forks are the timestamp-scheduled ones (Shanghai on); forks sharing a timestamp count as the latest
 * of them. Members are written in alphabetical order, as Besu does.
 */

import { type ForkPoints, forkHash, forkHashOf, forkPoints } from '../../../chain/forkId.js';
import {
  BLOB_FORKS,
  type BlobForkName,
  blobSchedules,
  FORK_ORDER,
  type ForkName,
  forkSchedule,
  type GenesisSpec,
  type ScheduledFork,
} from '../../../config/genesis.js';
import { quantity } from '../../format/hex.js';
import type { Services } from '../../services.js';
import { defineMethod } from '../define.js';

const at = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

/** Precompiles by the fork that introduced them (names as EIP-7910 lists them). */
const PRECOMPILES: Array<[ForkName | 'chainstart', Record<string, string>]> = [
  ['chainstart', { ECREC: at(1), SHA256: at(2), RIPEMD160: at(3), ID: at(4) }],
  ['byzantium', { MODEXP: at(5), BN254_ADD: at(6), BN254_MUL: at(7), BN254_PAIRING: at(8) }],
  ['istanbul', { BLAKE2F: at(9) }],
  ['cancun', { KZG_POINT_EVALUATION: at(0xa) }],
  [
    'prague',
    {
      BLS12_G1ADD: at(0xb),
      BLS12_G1MSM: at(0xc),
      BLS12_G2ADD: at(0xd),
      BLS12_G2MSM: at(0xe),
      BLS12_PAIRING_CHECK: at(0xf),
      BLS12_MAP_FP_TO_G1: at(0x10),
      BLS12_MAP_FP2_TO_G2: at(0x11),
    },
  ],
  ['osaka', { P256VERIFY: at(0x100) }],
];

const BEACON_ROOTS_ADDRESS = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02';
const HISTORY_STORAGE_ADDRESS = '0x0000f90827f1c53a10cb7a02335b175320002935';
const DEFAULT_WITHDRAWAL_REQUEST_ADDRESS = '0x00000961ef480eb55e80d19ad83579a64c007002';
const DEFAULT_CONSOLIDATION_REQUEST_ADDRESS = '0x0000bbddc7ce488642fb579f8b00f3a590007251';
const MAINNET_DEPOSIT_CONTRACT_ADDRESS = '0x00000000219ab540356cbb839cbe05303d7705fa';

function isAtLeast(fork: ForkName, since: ForkName | 'chainstart'): boolean {
  return since === 'chainstart' || FORK_ORDER.indexOf(fork) >= FORK_ORDER.indexOf(since);
}

function sortedObject(entries: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(entries).sort()) out[k] = entries[k];
  return out;
}

function precompiles(fork: ForkName): Record<string, unknown> {
  const all: Record<string, string> = {};
  for (const [since, set] of PRECOMPILES) if (isAtLeast(fork, since)) Object.assign(all, set);
  return sortedObject(all);
}

function systemContracts(spec: GenesisSpec, fork: ForkName): Record<string, unknown> {
  const cfg = spec.config;
  const out: Record<string, string> = {};
  if (isAtLeast(fork, 'cancun')) out.BEACON_ROOTS_ADDRESS = BEACON_ROOTS_ADDRESS;
  if (isAtLeast(fork, 'prague')) {
    out.CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS = (
      cfg.consolidationRequestContractAddress ?? DEFAULT_CONSOLIDATION_REQUEST_ADDRESS
    ).toLowerCase();
    out.DEPOSIT_CONTRACT_ADDRESS = (
      cfg.depositContractAddress ?? MAINNET_DEPOSIT_CONTRACT_ADDRESS
    ).toLowerCase();
    out.HISTORY_STORAGE_ADDRESS = HISTORY_STORAGE_ADDRESS;
    out.WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS = (
      cfg.withdrawalRequestContractAddress ?? DEFAULT_WITHDRAWAL_REQUEST_ADDRESS
    ).toLowerCase();
  }
  return sortedObject(out);
}

function forkConfig(spec: GenesisSpec, genesisHash: Uint8Array, points: ForkPoints, fork: ScheduledFork) {
  const schedule = (BLOB_FORKS as readonly string[]).includes(fork.name)
    ? blobSchedules(spec)[fork.name as BlobForkName]
    : undefined;
  return {
    activationTime: Number(fork.timestamp ?? 0n),
    blobSchedule: schedule
      ? {
          baseFeeUpdateFraction: Number(schedule.baseFeeUpdateFraction),
          max: Number(schedule.max),
          target: Number(schedule.target),
        }
      : null,
    chainId: quantity(spec.config.chainId),
    forkId: forkHashOf(genesisHash, points, fork),
    precompiles: precompiles(fork.name),
    systemContracts: systemContracts(spec, fork.name),
  };
}

/**
 * The config as of time `now` (Unix seconds). Every entry's `forkId` is the fork id the node
 * announces for its chain head (EIP-2124 over the forks the head has passed), as Besu's fork-id
 * manager reports it.
 */
export function ethConfig(
  spec: GenesisSpec,
  genesisHash: Uint8Array,
  now: bigint,
  head: { number: bigint; timestamp: bigint },
): Record<string, unknown> {
  const schedule = forkSchedule(spec);
  const points = forkPoints(spec);
  // One entry per activation time: the last fork scheduled at that time.
  const timed: ScheduledFork[] = [];
  for (const f of schedule) {
    if (f.timestamp === undefined) continue;
    const prev = timed[timed.length - 1];
    if (prev !== undefined && prev.timestamp === f.timestamp) timed[timed.length - 1] = f;
    else timed.push(f);
  }
  const past = timed.filter((f) => (f.timestamp as bigint) <= now);
  const future = timed.filter((f) => (f.timestamp as bigint) > now);
  let current = past[past.length - 1];
  if (current === undefined) {
    // Before any timestamp fork: the latest block-scheduled fork, active since genesis as far as time goes.
    const blockForks = schedule.filter((f) => f.timestamp === undefined && f.block !== null);
    current = blockForks[blockForks.length - 1] ?? { name: 'homestead', block: 0n };
  }
  const next = future[0];
  const last = future[future.length - 1];
  const headForkId = forkHash(genesisHash, points, head.number, head.timestamp);
  return {
    current: { ...forkConfig(spec, genesisHash, points, current), forkId: headForkId },
    next: next ? { ...forkConfig(spec, genesisHash, points, next), forkId: headForkId } : null,
    last: last ? { ...forkConfig(spec, genesisHash, points, last), forkId: headForkId } : null,
  };
}

export const ethConfigMethod = defineMethod({
  name: 'eth_config',
  group: 'ETH',
  params: [],
  handler(_args, { services }: { services: Services }) {
    const genesisHash = services.chain.genesisHash() ?? services.chain.canonicalHash(0n);
    if (!genesisHash) throw new Error('chain has no genesis block');
    const head = services.chain.headHeader();
    return ethConfig(services.config.genesis, genesisHash, BigInt(Math.floor(Date.now() / 1000)), {
      number: head.number,
      timestamp: head.timestamp,
    });
  },
});
