/**
 * Genesis files in the geth/Besu JSON format: parsing into a typed `GenesisSpec`, the fork schedule,
 * a `Common` for @ethereumjs that activates every fork by block number or timestamp, and the genesis
 * header fields (everything but the state root, which chain/ computes from the allocation).
 *
 * Keys of `config` (and of its nested objects) are read case-insensitively, as Besu does, so
 * `chainID`, `chainId` and `chainid` are the same key. Quantities may be JSON numbers (of any size),
 * hex strings or decimal strings.
 */

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  type ChainConfig,
  Common,
  type CustomCrypto,
  type HardforkConfig,
  type HardforksDict,
  type HardforkTransitionConfig,
} from '@ethereumjs/common';
import { GenesisError } from './errors.js';

// ---------------------------------------------------------------------------------------------------
// Types

/** Forks in activation order (the order @ethereumjs/common expects). */
export const FORK_ORDER = [
  'homestead',
  'dao',
  'tangerineWhistle',
  'spuriousDragon',
  'byzantium',
  'constantinople',
  'petersburg',
  'istanbul',
  'muirGlacier',
  'berlin',
  'london',
  'arrowGlacier',
  'grayGlacier',
  'paris',
  'mergeNetsplitBlock',
  'shanghai',
  'cancun',
  'prague',
  'osaka',
  'bpo1',
  'bpo2',
  'bpo3',
  'bpo4',
  'bpo5',
  'amsterdam',
] as const;
export type ForkName = (typeof FORK_ORDER)[number];

/** Forks that carry a blob schedule (EIP-4844, EIP-7691, EIP-7892). */
export const BLOB_FORKS = [
  'cancun',
  'prague',
  'osaka',
  'bpo1',
  'bpo2',
  'bpo3',
  'bpo4',
  'bpo5',
  'amsterdam',
] as const;
export type BlobForkName = (typeof BLOB_FORKS)[number];

/** Activation as written in the genesis file: by block number, or (Shanghai onward) by timestamp. */
export interface ForkActivation {
  block?: bigint;
  timestamp?: bigint;
}

export interface BlobSchedule {
  /** Blobs per block. */
  target: bigint;
  max: bigint;
  baseFeeUpdateFraction: bigint;
}

export interface CliqueSpec {
  blockPeriodSeconds: number;
  epochLength: bigint;
  createEmptyBlocks: boolean;
}

export interface BftSpec {
  blockPeriodSeconds: number;
  /** QBFT: seconds between blocks while no transaction waits (`emptyblockperiodseconds`); 0 = off. */
  emptyBlockPeriodSeconds: number;
  epochLength: bigint;
  requestTimeoutSeconds: number;
  blockReward: bigint;
  miningBeneficiary: string | undefined;
  /** QBFT only: the validator contract, when the set is read from a contract from genesis on. */
  validatorContractAddress: string | undefined;
  /** QBFT only: the block QBFT starts at (epochs count from it). */
  startBlock: bigint | undefined;
  /** Message limits of the BFT sub-protocol. */
  gossipedHistoryLimit: number;
  messageQueueLimit: number;
  duplicateMessageLimit: number;
  futureMessagesLimit: number;
  futureMessagesMaxDistance: number;
  /** `config.transitions.<ibft2|qbft>`: changes from a block on, ascending by block. */
  transitions: BftTransition[];
  /** Every key of the object, lower-cased, for options not modelled here. */
  raw: Record<string, unknown>;
}

/** One entry of `config.transitions.ibft2`/`qbft`: the options that change from `block` on. */
export interface BftTransition {
  block: bigint;
  blockPeriodSeconds?: number;
  emptyBlockPeriodSeconds?: number;
  blockReward?: bigint;
  /** An address, or null when the transition clears it (the proposer is paid again). */
  miningBeneficiary?: string | null;
  /** Replaces the validator set from this block on (block-header validator selection). */
  validators?: string[];
  /** QBFT only. */
  validatorSelectionMode?: 'blockheader' | 'contract';
  /** QBFT only. */
  validatorContractAddress?: string;
}

export type ConsensusName = 'ethash' | 'clique' | 'ibft2' | 'qbft';

export interface ChainSpec {
  chainId: bigint;
  /** Forks the file schedules, keyed by fork; forks it does not name are absent. */
  forks: Partial<Record<ForkName, ForkActivation>>;
  terminalTotalDifficulty: bigint | undefined;
  /** Blob schedule entries as written (`blobSchedule`), keyed by fork. */
  blobSchedule: Partial<Record<BlobForkName, BlobSchedule>>;
  contractSizeLimit: number | undefined;
  evmStackSize: number | undefined;
  depositContractAddress: string | undefined;
  withdrawalRequestContractAddress: string | undefined;
  consolidationRequestContractAddress: string | undefined;
  /** Consensus before the merge (or throughout, for PoA chains). */
  consensus: ConsensusName;
  ethash: { fixedDifficulty: bigint | undefined } | undefined;
  clique: CliqueSpec | undefined;
  ibft2: BftSpec | undefined;
  qbft: BftSpec | undefined;
  /** The `config` object exactly as written (original key case), e.g. for admin_nodeInfo. */
  raw: Record<string, unknown>;
}

export interface GenesisAccount {
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  /** 32-byte slot → 32-byte value; zero values are left out. */
  storage: Array<[Uint8Array, Uint8Array]>;
}

export interface GenesisSpec {
  config: ChainSpec;
  number: bigint;
  parentHash: Uint8Array;
  nonce: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  gasLimit: bigint;
  difficulty: bigint;
  mixHash: Uint8Array;
  /** Lowercase 0x-prefixed address. */
  coinbase: string;
  baseFeePerGas: bigint | undefined;
  excessBlobGas: bigint | undefined;
  blobGasUsed: bigint | undefined;
  parentBeaconBlockRoot: Uint8Array | undefined;
  /** Lowercase 0x-prefixed address → account, in file order. */
  alloc: Map<string, GenesisAccount>;
}

// ---------------------------------------------------------------------------------------------------
// Loading

/** Reads and parses a genesis file; every error names the file. */
export function loadGenesisFile(path: string): GenesisSpec {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new GenesisError(`Genesis file ${path} not found`);
    if (code === 'EISDIR') throw new GenesisError(`Genesis file ${path} is a directory`);
    throw new GenesisError(`Unable to read genesis file ${path}: ${(err as Error).message}`);
  }
  return parseGenesis(text, `Genesis file ${path}`);
}

/**
 * Parses genesis JSON (text, or an already parsed object). `source` prefixes error messages
 * ("Genesis file x.json").
 */
export function parseGenesis(input: string | object, source = 'Genesis'): GenesisSpec {
  const p = new Reader(source);
  let json: unknown;
  if (typeof input === 'string') {
    if (input.trim() === '') p.fail('is empty');
    try {
      json = JSON.parse(quoteLargeIntegers(input));
    } catch (err) {
      p.fail(`is not valid JSON (${(err as Error).message})`);
    }
  } else {
    json = input;
  }
  const top = p.object(json, '');
  const lc = lowerKeys(top);
  const configRaw = lc.config === undefined ? {} : p.object(lc.config, 'config');
  const config = parseChainSpec(p, configRaw);

  if (lc.gaslimit === undefined) p.fail("is missing the required field 'gasLimit'");
  if (lc.difficulty === undefined) p.fail("is missing the required field 'difficulty'");

  return {
    config,
    number: lc.number === undefined ? 0n : p.quantity(lc.number, 'number'),
    parentHash:
      lc.parenthash === undefined ? new Uint8Array(32) : p.fixedBytes(lc.parenthash, 'parentHash', 32),
    nonce: lc.nonce === undefined ? 0n : p.quantity(lc.nonce, 'nonce', 2n ** 64n - 1n),
    timestamp: lc.timestamp === undefined ? 0n : p.quantity(lc.timestamp, 'timestamp', 2n ** 64n - 1n),
    extraData:
      lc.extradata === undefined || lc.extradata === null
        ? new Uint8Array()
        : p.bytes(lc.extradata, 'extraData'),
    gasLimit: p.quantity(lc.gaslimit, 'gasLimit', 2n ** 64n - 1n),
    difficulty: p.quantity(lc.difficulty, 'difficulty'),
    mixHash: lc.mixhash === undefined ? new Uint8Array(32) : p.fixedBytes(lc.mixhash, 'mixHash', 32),
    coinbase:
      lc.coinbase === undefined || lc.coinbase === null ? ZERO_ADDRESS : p.address(lc.coinbase, 'coinbase'),
    baseFeePerGas: optional(lc.basefeepergas, (v) => p.quantity(v, 'baseFeePerGas')),
    excessBlobGas: optional(lc.excessblobgas, (v) => p.quantity(v, 'excessBlobGas')),
    blobGasUsed: optional(lc.blobgasused, (v) => p.quantity(v, 'blobGasUsed')),
    parentBeaconBlockRoot: optional(lc.parentbeaconblockroot, (v) =>
      p.fixedBytes(v, 'parentBeaconBlockRoot', 32),
    ),
    alloc: parseAlloc(p, lc.alloc),
  };
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

const BLOCK_KEYS: ReadonlyArray<[string, ForkName]> = [
  ['homesteadblock', 'homestead'],
  ['daoforkblock', 'dao'],
  ['eip150block', 'tangerineWhistle'],
  ['eip158block', 'spuriousDragon'],
  ['eip155block', 'spuriousDragon'],
  ['byzantiumblock', 'byzantium'],
  ['constantinopleblock', 'constantinople'],
  ['petersburgblock', 'petersburg'],
  ['constantinoplefixblock', 'petersburg'],
  ['istanbulblock', 'istanbul'],
  ['muirglacierblock', 'muirGlacier'],
  ['berlinblock', 'berlin'],
  ['londonblock', 'london'],
  ['arrowglacierblock', 'arrowGlacier'],
  ['grayglacierblock', 'grayGlacier'],
  ['mergeforkblock', 'paris'],
  ['mergenetsplitblock', 'mergeNetsplitBlock'],
];
const TIME_KEYS: ReadonlyArray<[string, ForkName]> = [
  ['shanghaitime', 'shanghai'],
  ['cancuntime', 'cancun'],
  ['praguetime', 'prague'],
  ['osakatime', 'osaka'],
  ['bpo1time', 'bpo1'],
  ['bpo2time', 'bpo2'],
  ['bpo3time', 'bpo3'],
  ['bpo4time', 'bpo4'],
  ['bpo5time', 'bpo5'],
  ['amsterdamtime', 'amsterdam'],
];

function parseChainSpec(p: Reader, raw: Record<string, unknown>): ChainSpec {
  const c = lowerKeys(raw);
  const forks: Partial<Record<ForkName, ForkActivation>> = {};
  for (const [key, fork] of BLOCK_KEYS) {
    if (c[key] === undefined || c[key] === null || forks[fork] !== undefined) continue;
    if (fork === 'dao' && c.daoforksupport === false) continue;
    forks[fork] = { block: p.quantity(c[key], `config.${key}`) };
  }
  for (const [key, fork] of TIME_KEYS) {
    if (c[key] === undefined || c[key] === null) continue;
    forks[fork] = { timestamp: p.quantity(c[key], `config.${key}`) };
  }
  checkForkOrder(p, forks);

  const blobSchedule: Partial<Record<BlobForkName, BlobSchedule>> = {};
  if (c.blobschedule !== undefined && c.blobschedule !== null) {
    const entries = lowerKeys(p.object(c.blobschedule, 'config.blobSchedule'));
    for (const [fork, value] of Object.entries(entries)) {
      const name = BLOB_FORKS.find((f) => f.toLowerCase() === fork);
      if (name === undefined) p.fail(`names an unknown fork '${fork}' in config.blobSchedule`);
      const e = lowerKeys(p.object(value, `config.blobSchedule.${fork}`));
      const at = (k: string, label: string): bigint => {
        if (e[k] === undefined) p.fail(`is missing config.blobSchedule.${fork}.${label}`);
        return p.quantity(e[k], `config.blobSchedule.${fork}.${label}`);
      };
      blobSchedule[name] = {
        target: at('target', 'target'),
        max: at('max', 'max'),
        baseFeeUpdateFraction: at('basefeeupdatefraction', 'baseFeeUpdateFraction'),
      };
    }
  }

  const consensusKeys = (['qbft', 'ibft2', 'clique'] as const).filter(
    (k) => c[k] !== undefined && c[k] !== null,
  );
  if (consensusKeys.length > 1)
    p.fail(`configures more than one consensus mechanism (${consensusKeys.join(', ')})`);
  const consensus: ConsensusName = consensusKeys[0] ?? 'ethash';

  const ethashRaw =
    c.ethash === undefined || c.ethash === null ? undefined : lowerKeys(p.object(c.ethash, 'config.ethash'));
  const cliqueRaw =
    c.clique === undefined || c.clique === null ? undefined : lowerKeys(p.object(c.clique, 'config.clique'));

  return {
    chainId:
      c.chainid === undefined
        ? p.fail("is missing the required field 'config.chainId'")
        : p.quantity(c.chainid, 'config.chainId'),
    forks,
    terminalTotalDifficulty: optional(c.terminaltotaldifficulty, (v) =>
      p.quantity(v, 'config.terminalTotalDifficulty'),
    ),
    blobSchedule,
    contractSizeLimit: optional(c.contractsizelimit, (v) => p.smallInt(v, 'config.contractSizeLimit')),
    evmStackSize: optional(c.evmstacksize, (v) => p.smallInt(v, 'config.evmStackSize')),
    depositContractAddress: optional(c.depositcontractaddress, (v) =>
      p.address(v, 'config.depositContractAddress'),
    ),
    withdrawalRequestContractAddress: optional(c.withdrawalrequestcontractaddress, (v) =>
      p.address(v, 'config.withdrawalRequestContractAddress'),
    ),
    consolidationRequestContractAddress: optional(c.consolidationrequestcontractaddress, (v) =>
      p.address(v, 'config.consolidationRequestContractAddress'),
    ),
    consensus,
    ethash:
      ethashRaw === undefined
        ? undefined
        : {
            fixedDifficulty: optional(ethashRaw.fixeddifficulty, (v) =>
              p.quantity(v, 'config.ethash.fixeddifficulty'),
            ),
          },
    clique:
      cliqueRaw === undefined
        ? undefined
        : {
            blockPeriodSeconds:
              optional(cliqueRaw.blockperiodseconds ?? cliqueRaw.period, (v) =>
                p.smallInt(v, 'config.clique.blockperiodseconds'),
              ) ?? 15,
            epochLength:
              optional(cliqueRaw.epochlength ?? cliqueRaw.epoch, (v) =>
                p.quantity(v, 'config.clique.epochlength'),
              ) ?? 30000n,
            createEmptyBlocks:
              optional(cliqueRaw.createemptyblocks, (v) => p.boolean(v, 'config.clique.createemptyblocks')) ??
              true,
          },
    ibft2:
      c.ibft2 === undefined || c.ibft2 === null ? undefined : parseBft(p, c.ibft2, 'ibft2', c.transitions),
    qbft: c.qbft === undefined || c.qbft === null ? undefined : parseBft(p, c.qbft, 'qbft', c.transitions),
    raw,
  };
}

function parseBft(p: Reader, value: unknown, key: 'ibft2' | 'qbft', transitions: unknown): BftSpec {
  const b = lowerKeys(p.object(value, `config.${key}`));
  const int = (k: string, dflt: number): number =>
    optional(b[k], (v) => p.smallInt(v, `config.${key}.${k}`)) ?? dflt;
  const period = int('blockperiodseconds', 1);
  if (period <= 0) p.fail(`config.${key}.blockperiodseconds must be greater than 0`);
  const epochLength = optional(b.epochlength, (v) => p.quantity(v, `config.${key}.epochlength`)) ?? 30000n;
  if (epochLength <= 0n) p.fail(`config.${key}.epochlength must be greater than 0`);
  // Besu's experimental sub-second block period: refused rather than silently run at whole seconds.
  if (
    b.xblockperiodmilliseconds !== undefined &&
    b.xblockperiodmilliseconds !== null &&
    b.xblockperiodmilliseconds !== 0
  )
    p.fail(
      `config.${key}.xblockperiodmilliseconds (a block period in milliseconds) is not supported; use blockperiodseconds`,
    );
  const requestTimeout = int('requesttimeoutseconds', 1);
  if (requestTimeout <= 0) p.fail(`config.${key}.requesttimeoutseconds must be greater than 0`);
  return {
    blockPeriodSeconds: period,
    emptyBlockPeriodSeconds: int(
      b.emptyblockperiodseconds !== undefined ? 'emptyblockperiodseconds' : 'xemptyblockperiodseconds',
      0,
    ),
    epochLength,
    requestTimeoutSeconds: requestTimeout,
    blockReward: optional(b.blockreward, (v) => p.quantity(v, `config.${key}.blockreward`)) ?? 0n,
    miningBeneficiary: optional(b.miningbeneficiary, (v) =>
      typeof v === 'string' && v.trim() === '' ? undefined : p.address(v, `config.${key}.miningbeneficiary`),
    ),
    validatorContractAddress:
      key === 'qbft'
        ? optional(b.validatorcontractaddress, (v) => p.address(v, `config.${key}.validatorcontractaddress`))
        : undefined,
    startBlock:
      key === 'qbft' ? optional(b.startblock, (v) => p.quantity(v, `config.${key}.startblock`)) : undefined,
    gossipedHistoryLimit: int('gossipedhistorylimit', 1000),
    messageQueueLimit: int('messagequeuelimit', 1000),
    duplicateMessageLimit: int('duplicatemessagelimit', 100),
    futureMessagesLimit: int('futuremessageslimit', 1000),
    futureMessagesMaxDistance: int('futuremessagesmaxdistance', 10),
    transitions: parseBftTransitions(p, transitions, key),
    raw: b,
  };
}

function parseBftTransitions(p: Reader, value: unknown, key: 'ibft2' | 'qbft'): BftTransition[] {
  if (value === undefined || value === null) return [];
  const all = lowerKeys(p.object(value, 'config.transitions'));
  const list = all[key];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) p.fail(`config.transitions.${key} must be an array`);
  const out: BftTransition[] = list.map((entry, i) => {
    const where = `config.transitions.${key}[${i}]`;
    const t = lowerKeys(p.object(entry, where));
    if (t.block === undefined || t.block === null) p.fail(`${where} has no block`);
    const tr: BftTransition = { block: p.quantity(t.block, `${where}.block`) };
    if (t.xblockperiodmilliseconds !== undefined && t.xblockperiodmilliseconds !== null)
      p.fail(`${where}.xblockperiodmilliseconds (a block period in milliseconds) is not supported`);
    const period = optional(t.blockperiodseconds, (v) => p.smallInt(v, `${where}.blockperiodseconds`));
    if (period !== undefined) {
      if (period <= 0) p.fail(`${where}.blockperiodseconds must be greater than 0`);
      tr.blockPeriodSeconds = period;
    }
    const empty = t.emptyblockperiodseconds ?? t.xemptyblockperiodseconds;
    if (empty !== undefined && empty !== null)
      tr.emptyBlockPeriodSeconds = p.smallInt(empty, `${where}.emptyblockperiodseconds`);
    if (t.blockreward !== undefined && t.blockreward !== null)
      tr.blockReward = p.quantity(t.blockreward, `${where}.blockreward`);
    if (t.miningbeneficiary !== undefined && t.miningbeneficiary !== null) {
      const v = t.miningbeneficiary;
      tr.miningBeneficiary =
        typeof v === 'string' && v.trim() === '' ? null : p.address(v, `${where}.miningbeneficiary`);
    }
    if (t.validators !== undefined && t.validators !== null) {
      if (!Array.isArray(t.validators)) p.fail(`${where}.validators must be an array of addresses`);
      tr.validators = t.validators.map((v, j) => p.address(v, `${where}.validators[${j}]`));
    }
    if (key === 'qbft') {
      const mode = t.validatorselectionmode;
      if (mode !== undefined && mode !== null) {
        const m = typeof mode === 'string' ? mode.toLowerCase() : '';
        if (m !== 'blockheader' && m !== 'contract')
          p.fail(`${where}.validatorselectionmode must be "blockheader" or "contract"`);
        tr.validatorSelectionMode = m;
      }
      if (t.validatorcontractaddress !== undefined && t.validatorcontractaddress !== null)
        tr.validatorContractAddress = p.address(
          t.validatorcontractaddress,
          `${where}.validatorcontractaddress`,
        );
    }
    return tr;
  });
  out.sort((a, b) => (a.block < b.block ? -1 : a.block > b.block ? 1 : 0));
  for (let i = 0; i < out.length; i++) {
    const t = out[i] as BftTransition;
    if (t.block === 0n) p.fail(`config.transitions.${key} cannot change the genesis block (block 0)`);
    if (i > 0 && t.block === (out[i - 1] as BftTransition).block)
      p.fail(`config.transitions.${key} has two transitions at block ${t.block}`);
    if (t.validatorSelectionMode === 'blockheader' && (t.validators?.length ?? 0) === 0)
      p.fail(
        `config.transitions.${key} at block ${t.block}: a transition to blockheader mode needs a validators list with at least one validator`,
      );
    if (t.validatorSelectionMode === 'contract' && t.validatorContractAddress === undefined)
      p.fail(`config.transitions.${key} at block ${t.block}: contract mode needs a validatorcontractaddress`);
  }
  return out;
}

/** Forks named in the file must not be scheduled before an earlier fork that is also named. */
function checkForkOrder(p: Reader, forks: Partial<Record<ForkName, ForkActivation>>): void {
  let lastBlock: [ForkName, bigint] | undefined;
  let lastTime: [ForkName, bigint] | undefined;
  for (const name of FORK_ORDER) {
    const f = forks[name];
    if (f === undefined || name === 'dao') continue;
    if (f.block !== undefined) {
      if (lastTime !== undefined) p.fail(`schedules ${name} by block after ${lastTime[0]} by timestamp`);
      if (lastBlock !== undefined && f.block < lastBlock[1]) {
        p.fail(`schedules ${name} at block ${f.block}, before ${lastBlock[0]} at block ${lastBlock[1]}`);
      }
      lastBlock = [name, f.block];
    } else if (f.timestamp !== undefined) {
      if (lastTime !== undefined && f.timestamp < lastTime[1]) {
        p.fail(
          `schedules ${name} at timestamp ${f.timestamp}, before ${lastTime[0]} at timestamp ${lastTime[1]}`,
        );
      }
      lastTime = [name, f.timestamp];
    }
  }
}

function parseAlloc(p: Reader, value: unknown): Map<string, GenesisAccount> {
  const alloc = new Map<string, GenesisAccount>();
  if (value === undefined || value === null) return alloc;
  for (const [key, raw] of Object.entries(p.object(value, 'alloc'))) {
    const address = p.address(key, `alloc key '${key}'`);
    const where = `alloc.${key}`;
    const a = lowerKeys(p.object(raw, where));
    const storage: Array<[Uint8Array, Uint8Array]> = [];
    if (a.storage !== undefined && a.storage !== null) {
      for (const [slot, v] of Object.entries(p.object(a.storage, `${where}.storage`))) {
        const valueBytes = p.word(v, `${where}.storage.${slot}`);
        if (valueBytes.every((b) => b === 0)) continue;
        storage.push([p.word(slot, `${where}.storage key '${slot}'`), valueBytes]);
      }
    }
    if (alloc.has(address)) p.fail(`lists account ${address} twice in alloc`);
    alloc.set(address, {
      balance: a.balance === undefined || a.balance === null ? 0n : p.quantity(a.balance, `${where}.balance`),
      nonce:
        a.nonce === undefined || a.nonce === null
          ? 0n
          : p.quantity(a.nonce, `${where}.nonce`, 2n ** 64n - 1n),
      code: a.code === undefined || a.code === null ? new Uint8Array() : p.bytes(a.code, `${where}.code`),
      storage,
    });
  }
  return alloc;
}

// ---------------------------------------------------------------------------------------------------
// Fork schedule

export interface ScheduledFork {
  name: ForkName;
  /** Activation block (block-activated forks); null for the merge when only the TTD decides it. */
  block: bigint | null;
  timestamp?: bigint;
}

/**
 * The full fork list the chain runs through, in order. A fork the file does not name but that comes
 * before one it names is active with it (Besu builds each fork's rules on the previous fork's, so
 * `londonBlock: 0` alone means every fork up to London from genesis); when that named fork is
 * time-activated, the unnamed block forks before it are at genesis if every named block fork is, else
 * they activate at its timestamp. The DAO fork is active only when named. The merge (paris) is at `mergeForkBlock`, at block 0 when the terminal total difficulty
 * is 0, else at `mergeNetsplitBlock` when given, else unscheduled (decided at run time by the TTD).
 */
export function forkSchedule(spec: GenesisSpec): ScheduledFork[] {
  const cfg = spec.config;
  const named = cfg.forks;
  const result: ScheduledFork[] = [];
  const hasTimeForks = FORK_ORDER.some((f) => named[f]?.timestamp !== undefined);
  const ttd = cfg.terminalTotalDifficulty;
  const mergeConfigured = ttd !== undefined || named.paris !== undefined || hasTimeForks;

  // Walk backwards so each unnamed fork takes the activation of the next named one.
  let next: ForkActivation | undefined;
  const reversed: ScheduledFork[] = [];
  for (let i = FORK_ORDER.length - 1; i >= 0; i--) {
    const name = FORK_ORDER[i] as ForkName;
    if (name === 'paris') {
      if (!mergeConfigured) continue;
      if (isBftConsensus(cfg.consensus)) {
        // BFT chains never merge: paris only brings PREVRANDAO (the mixHash constant) with the first
        // fork after it, as Besu's BFT milestones do.
        if (next === undefined) continue;
        reversed.push(
          next.block !== undefined
            ? { name, block: next.block }
            : { name, block: null, timestamp: next.timestamp },
        );
        continue;
      }
      let block: bigint | null = null;
      if (named.paris?.block !== undefined) block = named.paris.block;
      else if (ttd === 0n) block = 0n;
      else if (named.mergeNetsplitBlock?.block !== undefined) block = named.mergeNetsplitBlock.block;
      else if (ttd === undefined && allNamedBlocksZero(named)) block = 0n;
      reversed.push({ name, block });
      if (block !== null) next = { block };
      continue;
    }
    const own = named[name];
    if (own !== undefined) {
      reversed.push(
        own.block !== undefined
          ? { name, block: own.block }
          : { name, block: null, timestamp: own.timestamp },
      );
      next = own;
      continue;
    }
    if (name === 'dao' || name === 'mergeNetsplitBlock' || next === undefined) continue;
    if (next.block !== undefined) reversed.push({ name, block: next.block });
    else if (isBlockFork(name) && allNamedBlocksZero(named)) reversed.push({ name, block: 0n });
    else reversed.push({ name, block: null, timestamp: next.timestamp });
  }
  for (let i = reversed.length - 1; i >= 0; i--) result.push(reversed[i] as ScheduledFork);
  return result;
}

/** IBFT 2.0 and QBFT: proof of authority by validator rounds, never merged into proof of stake. */
export function isBftConsensus(consensus: ConsensusName): consensus is 'ibft2' | 'qbft' {
  return consensus === 'ibft2' || consensus === 'qbft';
}

function isBlockFork(name: ForkName): boolean {
  return FORK_ORDER.indexOf(name) < FORK_ORDER.indexOf('shanghai');
}

function allNamedBlocksZero(named: Partial<Record<ForkName, ForkActivation>>): boolean {
  return Object.values(named).every((f) => f.block === undefined || f.block === 0n);
}

/** Whether `fork` is active for a block with this number and timestamp. */
export function isForkActive(spec: GenesisSpec, fork: ForkName, number: bigint, timestamp: bigint): boolean {
  const f = forkSchedule(spec).find((s) => s.name === fork);
  if (f === undefined) return false;
  if (f.timestamp !== undefined) return timestamp >= f.timestamp;
  return f.block !== null && number >= f.block;
}

const DEFAULT_BLOB_SCHEDULES: Partial<Record<BlobForkName, BlobSchedule>> = {
  cancun: { target: 3n, max: 6n, baseFeeUpdateFraction: 3338477n },
  prague: { target: 6n, max: 9n, baseFeeUpdateFraction: 5007716n },
};

/**
 * Blob schedule in force from each blob fork on: the file's entry, else the protocol default
 * (Cancun 3/6, Prague 6/9), else the previous fork's schedule.
 */
export function blobSchedules(spec: GenesisSpec): Partial<Record<BlobForkName, BlobSchedule>> {
  const out: Partial<Record<BlobForkName, BlobSchedule>> = {};
  let previous: BlobSchedule | undefined;
  for (const fork of BLOB_FORKS) {
    const s = spec.config.blobSchedule[fork] ?? DEFAULT_BLOB_SCHEDULES[fork] ?? previous;
    if (s !== undefined) out[fork] = s;
    previous = s;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Common

export const BLOB_GAS_PER_BLOB = 131072n;

export interface CreateCommonOptions {
  customCrypto?: CustomCrypto;
  /**
   * The consensus the Common declares, when it must differ from the chain's: the Common proof-of-
   * authority blocks execute with declares proof of work, so that the EVM pays `header.coinbase`.
   * The fork schedule stays the chain's.
   */
  consensusOverride?: 'ethash';
}

/**
 * A Common for this chain, set to the genesis block's fork. Callers pick the fork of each block with
 * `setHardforkBy({ blockNumber, timestamp })` (or `setHardfork: true` in the block constructors).
 * Blob schedules go into each blob fork's own parameters, so `getBlobGasSchedule()`, `param()` and
 * the BPO forks agree; `contractSizeLimit` overrides the code size limit from Spurious Dragon on.
 */
export function createCommon(spec: GenesisSpec, opts: CreateCommonOptions = {}): Common {
  const cfg = spec.config;
  const schedule = forkSchedule(spec);
  const blobs = blobSchedules(spec);
  const hardforks: HardforkTransitionConfig[] = [{ name: 'chainstart', block: 0 }];
  const customHardforks: HardforksDict = {};
  const spuriousIndex = FORK_ORDER.indexOf('spuriousDragon');

  for (const f of schedule) {
    const transition: HardforkTransitionConfig = {
      name: f.name,
      block: f.block === null ? null : Number(f.block),
    };
    if (f.timestamp !== undefined) transition.timestamp = toJsonNumber(f.timestamp);
    hardforks.push(transition);

    const params: Record<string, number | string | null> = {};
    const blob = blobs[f.name as BlobForkName];
    if (blob !== undefined) {
      params.target = toJsonNumber(blob.target);
      params.max = toJsonNumber(blob.max);
      params.targetBlobGasPerBlock = toJsonNumber(blob.target * BLOB_GAS_PER_BLOB);
      params.maxBlobGasPerBlock = toJsonNumber(blob.max * BLOB_GAS_PER_BLOB);
      params.blobGasPriceUpdateFraction = toJsonNumber(blob.baseFeeUpdateFraction);
      params.blobGasPerBlob = toJsonNumber(BLOB_GAS_PER_BLOB);
    }
    if (cfg.contractSizeLimit !== undefined && FORK_ORDER.indexOf(f.name) >= spuriousIndex) {
      params.maxCodeSize = cfg.contractSizeLimit;
    }
    const base = libraryHardforkConfig(f.name);
    if (f.name === 'paris' && isBftConsensus(cfg.consensus) && base !== undefined) {
      // Keep the chain's consensus (and its block hashing) through every later fork.
      const { consensus: _pos, ...rest } = base;
      customHardforks.paris = {
        ...rest,
        eips: (rest.eips ?? []).filter((e) => e !== 3675),
        params: { ...(rest.params ?? {}), ...params },
      };
      continue;
    }
    if (base === undefined) {
      // Forks the library only names (bpo3-bpo5): a fork with no EIPs of its own, just its parameters.
      customHardforks[f.name] = { eips: [], params };
    } else if (Object.keys(params).length > 0) {
      customHardforks[f.name] = { ...base, params: { ...(base.params ?? {}), ...params } };
    }
  }

  const chain: ChainConfig = {
    name: `alder-${cfg.chainId}`,
    chainId: toJsonNumber(cfg.chainId),
    genesis: {
      timestamp: hex(spec.timestamp),
      gasLimit: hex(spec.gasLimit),
      difficulty: hex(spec.difficulty),
      nonce: `0x${spec.nonce.toString(16).padStart(16, '0')}`,
      extraData: bytesHex(spec.extraData),
      ...(spec.baseFeePerGas !== undefined ? { baseFeePerGas: hex(spec.baseFeePerGas) } : {}),
      ...(spec.excessBlobGas !== undefined ? { excessBlobGas: hex(spec.excessBlobGas) } : {}),
    },
    hardforks,
    customHardforks: Object.keys(customHardforks).length > 0 ? customHardforks : undefined,
    bootstrapNodes: [],
    consensus: commonConsensus(opts.consensusOverride ? { ...cfg, consensus: opts.consensusOverride } : cfg),
    ...(cfg.depositContractAddress !== undefined
      ? { depositContractAddress: cfg.depositContractAddress as `0x${string}` }
      : {}),
  };
  const common = new Common({ chain, customCrypto: opts.customCrypto });
  try {
    common.setHardforkBy({ blockNumber: spec.number, timestamp: spec.timestamp });
  } catch (err) {
    throw new GenesisError(
      `Genesis fork schedule is inconsistent at the genesis block: ${(err as Error).message}`,
    );
  }
  return common;
}

/** Reads the library's own fork definitions (not exported by the package) through a probe Common. */
class HardforkDefinitions extends Common {
  definitions(): Map<string, HardforkConfig> {
    return new Map(this.HARDFORK_CHANGES);
  }
}
let libraryDefinitions: Map<string, HardforkConfig> | undefined;

function libraryHardforkConfig(name: ForkName): HardforkConfig | undefined {
  libraryDefinitions ??= new HardforkDefinitions({
    chain: {
      name: 'definitions',
      chainId: 1,
      genesis: { gasLimit: 0, difficulty: 0, nonce: '0x0000000000000000', extraData: '0x' },
      hardforks: [{ name: 'chainstart', block: 0 }, ...FORK_ORDER.map((n) => ({ name: n, block: null }))],
      bootstrapNodes: [],
      consensus: { type: 'pow', algorithm: 'ethash', ethash: {} },
    },
  }).definitions();
  const def = libraryDefinitions.get(name);
  return def === undefined ? undefined : (JSON.parse(JSON.stringify(def)) as HardforkConfig);
}

function commonConsensus(cfg: ChainSpec): ChainConfig['consensus'] {
  switch (cfg.consensus) {
    case 'clique':
      return {
        type: 'poa',
        algorithm: 'clique',
        clique: {
          period: cfg.clique?.blockPeriodSeconds ?? 15,
          epoch: Number(cfg.clique?.epochLength ?? 30000n),
        },
      };
    case 'ibft2':
    case 'qbft':
      return { type: 'poa', algorithm: cfg.consensus };
    default:
      return { type: 'pow', algorithm: 'ethash', ethash: {} };
  }
}

/** A JSON number when exact, else a decimal string (Common accepts both and reads them with BigInt). */
function toJsonNumber(v: bigint): number {
  // Common's types say number, but it passes these values through BigInt(); a string keeps big ones exact.
  return (v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString()) as number;
}

// ---------------------------------------------------------------------------------------------------
// Genesis header

/** Hash of the RLP of an empty list (no uncles). */
const EMPTY_UNCLE_HASH = hexBytes('1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347');
/** Root of an empty trie (no transactions, receipts or withdrawals). */
const EMPTY_TRIE_ROOT = hexBytes('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
/** EIP-1559 initial base fee, used when London is active at genesis and the file gives none. */
export const INITIAL_BASE_FEE = 1000000000n;

/** Header fields of the genesis block, all but `stateRoot`; shaped like @ethereumjs/block's HeaderData. */
export interface GenesisHeaderFields {
  parentHash: Uint8Array;
  uncleHash: Uint8Array;
  coinbase: Uint8Array;
  transactionsTrie: Uint8Array;
  receiptTrie: Uint8Array;
  logsBloom: Uint8Array;
  difficulty: bigint;
  number: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  mixHash: Uint8Array;
  nonce: Uint8Array;
  baseFeePerGas?: bigint;
  withdrawalsRoot?: Uint8Array;
  blobGasUsed?: bigint;
  excessBlobGas?: bigint;
  parentBeaconBlockRoot?: Uint8Array;
  requestsHash?: Uint8Array;
}

export function genesisHeaderFields(spec: GenesisSpec): GenesisHeaderFields {
  const active = (fork: ForkName): boolean => isForkActive(spec, fork, spec.number, spec.timestamp);
  const nonce = new Uint8Array(8);
  new DataView(nonce.buffer).setBigUint64(0, spec.nonce);
  const fields: GenesisHeaderFields = {
    parentHash: spec.parentHash,
    uncleHash: EMPTY_UNCLE_HASH,
    coinbase: hexBytes(spec.coinbase.slice(2)),
    transactionsTrie: EMPTY_TRIE_ROOT,
    receiptTrie: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: spec.difficulty,
    number: spec.number,
    gasLimit: spec.gasLimit,
    gasUsed: 0n,
    timestamp: spec.timestamp,
    extraData: spec.extraData,
    mixHash: spec.mixHash,
    nonce,
  };
  if (active('london')) fields.baseFeePerGas = spec.baseFeePerGas ?? INITIAL_BASE_FEE;
  if (active('shanghai')) fields.withdrawalsRoot = EMPTY_TRIE_ROOT;
  if (active('cancun')) {
    fields.blobGasUsed = spec.blobGasUsed ?? 0n;
    fields.excessBlobGas = spec.excessBlobGas ?? 0n;
    fields.parentBeaconBlockRoot = spec.parentBeaconBlockRoot ?? new Uint8Array(32);
  }
  if (active('prague')) fields.requestsHash = new Uint8Array(createHash('sha256').digest());
  return fields;
}

// ---------------------------------------------------------------------------------------------------
// Value readers

class Reader {
  constructor(private readonly source: string) {}

  fail(problem: string): never {
    throw new GenesisError(`${this.source} ${problem}`);
  }

  private bad(field: string, value: unknown, expected: string): never {
    const shown = typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
    this.fail(`has an invalid ${field}: ${shown} is not ${expected}`);
  }

  object(value: unknown, field: string): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      if (field === '') this.fail('does not hold a JSON object');
      this.bad(field, value, 'an object');
    }
    return value as Record<string, unknown>;
  }

  quantity(value: unknown, field: string, max?: bigint): bigint {
    let n: bigint | undefined;
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) n = BigInt(value);
    else if (typeof value === 'string') {
      const s = value.trim();
      if (/^0[xX][0-9a-fA-F]+$/.test(s)) n = BigInt(s);
      else if (/^[0-9]+$/.test(s)) n = BigInt(s);
      else if (/^0[xX]$/.test(s)) n = 0n;
    }
    if (n === undefined) this.bad(field, value, 'a non-negative integer (hex or decimal)');
    if (max !== undefined && n > max) this.bad(field, value, `at most ${max}`);
    return n;
  }

  smallInt(value: unknown, field: string): number {
    const n = this.quantity(value, field);
    if (n > BigInt(Number.MAX_SAFE_INTEGER)) this.bad(field, value, 'a number below 2^53');
    return Number(n);
  }

  boolean(value: unknown, field: string): boolean {
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    this.bad(field, value, 'true or false');
  }

  bytes(value: unknown, field: string): Uint8Array {
    if (typeof value !== 'string') this.bad(field, value, 'a hex string');
    const body = value.startsWith('0x') || value.startsWith('0X') ? value.slice(2) : value;
    if (!/^[0-9a-fA-F]*$/.test(body)) this.bad(field, value, 'a hex string');
    return hexBytes(body.length % 2 === 1 ? `0${body}` : body);
  }

  fixedBytes(value: unknown, field: string, length: number): Uint8Array {
    const b = this.bytes(value, field);
    if (b.length !== length) this.bad(field, value, `${length} bytes of hex`);
    return b;
  }

  /** Up to 32 bytes, left-padded to 32 (storage slots and values). */
  word(value: unknown, field: string): Uint8Array {
    const b = this.bytes(value, field);
    if (b.length > 32) this.bad(field, value, 'at most 32 bytes of hex');
    const out = new Uint8Array(32);
    out.set(b, 32 - b.length);
    return out;
  }

  address(value: unknown, field: string): string {
    if (typeof value !== 'string' || !/^(0[xX])?[0-9a-fA-F]{40}$/.test(value))
      this.bad(field, value, 'a 20-byte hex address');
    return `0x${value.replace(/^0[xX]/, '').toLowerCase()}`;
  }
}

function optional<T>(value: unknown, read: (v: unknown) => T): T | undefined {
  return value === undefined || value === null ? undefined : read(value);
}

function lowerKeys(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k.toLowerCase()] = v;
  return out;
}

function hexBytes(hexNoPrefix: string): Uint8Array {
  return new Uint8Array(Buffer.from(hexNoPrefix, 'hex'));
}

function hex(n: bigint): `0x${string}` {
  return `0x${n.toString(16)}`;
}

function bytesHex(b: Uint8Array): `0x${string}` {
  return `0x${Buffer.from(b).toString('hex')}`;
}

/**
 * JSON.parse turns integers above 2^53 into inexact doubles (a mainnet `terminalTotalDifficulty` of
 * 58750000000000000000000 among them). Integer literals of 16 or more digits are quoted first so they
 * reach the quantity reader as exact decimal strings.
 */
export function quoteLargeIntegers(text: string): string {
  let out = '';
  let i = 0;
  let start = 0;
  while (i < text.length) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      i++;
      while (i < text.length) {
        const c = text.charCodeAt(i);
        if (c === 0x5c /* \ */) i += 2;
        else if (c === 0x22) break;
        else i++;
      }
      i++;
      continue;
    }
    if ((ch >= 0x30 && ch <= 0x39) || ch === 0x2d /* - */) {
      let j = i + (ch === 0x2d ? 1 : 0);
      while (j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x39) j++;
      const next = text[j];
      const isInteger = next !== '.' && next !== 'e' && next !== 'E';
      if (isInteger && j - i >= 16) {
        out += `${text.slice(start, i)}"${text.slice(i, j)}"`;
        start = j;
      }
      i = j;
      continue;
    }
    i++;
  }
  return out + text.slice(start);
}
