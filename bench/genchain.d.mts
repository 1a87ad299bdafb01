// Types for bench/genchain.mjs, so TypeScript tests can import it.
import type { Address } from '@ethereumjs/util';

export interface GenerateChainOptions {
  /** Blocks to generate (default 1000). */
  blocks?: number;
  /** Cap on transactions per block; by default each block is filled to its gas limit. */
  txsPerBlock?: number;
  /** Block gas limit (default DEFAULT_GAS_LIMIT). */
  gasLimit?: bigint | number;
  /** Prefunded accounts (default 512). */
  accounts?: number;
  /** A proof-of-work London chain (fixed difficulty POW_DIFFICULTY, no withdrawals) instead of post-merge Cancun. */
  pow?: boolean;
  /** false: post-merge Shanghai without Cancun (no blobs; a node on it never loads the KZG setup). */
  cancun?: boolean;
  /** Seed of the transaction mix: two seeds give two different chains from one genesis. */
  seed?: number;
  /** Directory that receives genesis.json and chain.rlp. */
  outDir: string;
  log?: (message: string) => void;
}

export interface GeneratedChain {
  genesisPath: string;
  chainPath: string;
  /** 0x-prefixed hash of the last block. */
  headHash: string;
  headNumber: number;
  genesisHash: string;
  gasUsed: bigint;
  txCount: number;
  txKinds: { eth: number; token: number; fill: number };
  /** Gas used by each kind of transaction. */
  gasByKind: { eth: bigint; token: bigint; fill: bigint };
  gasLimit: bigint;
  seconds: number;
}

export const CHAIN_ID: bigint;
export const DEFAULT_ACCOUNTS: number;
export const DEFAULT_GAS_LIMIT: bigint;
export const GENESIS_BASE_FEE: bigint;
export const GENESIS_TIMESTAMP: bigint;
export const BLOCK_TIME: bigint;
export const TOKEN_ADDRESS: string;
export const FEE_RECIPIENT: string;
export const POW_DIFFICULTY: bigint;
/** Genesis `config` members: every fork up to London active from block 0. */
export const LONDON_AT_GENESIS: Readonly<Record<string, number>>;
/** Genesis `config` members: merged at genesis, Shanghai and Cancun active from the first block. */
export const CANCUN_AT_GENESIS: Readonly<Record<string, unknown>>;
export const TRANSFER_TOPIC: string;
export const SELECTORS: { transfer: Uint8Array; balanceOf: Uint8Array; fill: Uint8Array };

export function keccak256(message: Uint8Array): Uint8Array;
/** A recoverable signature (recovery id, then r and s: 65 bytes) through the native add-on. */
export function ecsign(msgHash: Uint8Array, privateKey: Uint8Array): Uint8Array;
/** Private key of bench account `i`: keccak256("alder-bench-account-<i>"). */
export function accountKey(index: number): Uint8Array;
export function addressOf(privateKey: Uint8Array): Address;
export function tokenRuntime(): Uint8Array;
export function tokenInitCode(supply?: bigint): Uint8Array;
/** The genesis file (Besu/geth JSON) the generator uses. */
export function benchGenesis(opts?: {
  accounts?: number;
  gasLimit?: bigint;
  pow?: boolean;
  cancun?: boolean;
}): Record<string, unknown>;
export function generateChain(opts: GenerateChainOptions): Promise<GeneratedChain>;
