/**
 * BFT test chains: a genesis naming the validators in its extraData, a node backend over it built by
 * the composition root, and blocks built by this node's key and sealed with the validators' keys.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Block, BlockHeader } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import { LONDON_AT_GENESIS } from '../../bench/genchain.mjs';
import { loadConfig } from '../../src/config/load.js';
import { BftBlockCreator } from '../../src/consensus/bft/blockCreator.js';
import type { BftConsensus } from '../../src/consensus/bft/consensus.js';
import { type BftVariant, genesisExtraData } from '../../src/consensus/bft/extraData.js';
import { addressOfPrivateKey, commitSealDigest, signCommitSeal } from '../../src/consensus/bft/hashing.js';
import { keccak256 } from '../../src/crypto/index.js';
import { type Backend, createBackend } from '../../src/node.js';

export interface TestKey {
  key: Uint8Array;
  address: string;
}

/** A deterministic key per name. */
export function testKey(name: string): TestKey {
  const key = keccak256(new TextEncoder().encode(`alder bft test ${name}`));
  return { key, address: addressOfPrivateKey(key) };
}

export const FUNDED = testKey('funded');

/** Keys sorted by address (the validator order). */
export function validatorKeys(n: number, prefix = 'validator'): TestKey[] {
  return Array.from({ length: n }, (_, i) => testKey(`${prefix} ${i}`)).sort((a, b) =>
    a.address < b.address ? -1 : 1,
  );
}

export function bftGenesis(
  variant: BftVariant,
  validators: readonly string[],
  options: Record<string, unknown> = {},
  extra: { config?: Record<string, unknown>; alloc?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    config: {
      chainId: 4343,
      ...LONDON_AT_GENESIS,
      [variant]: { blockperiodseconds: 1, epochlength: 30000, requesttimeoutseconds: 4, ...options },
      ...extra.config,
    },
    nonce: '0x0',
    timestamp: '0x0',
    gasLimit: '0x1c9c380',
    difficulty: '0x1',
    mixHash: '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365',
    extraData: bytesToHex(genesisExtraData(variant, validators)),
    alloc: {
      [FUNDED.address]: { balance: '0x3635c9adc5dea00000' },
      ...extra.alloc,
    },
  };
}

export interface BftTestChain {
  backend: Backend;
  engine: BftConsensus;
  /** Builds with the node key `nodeKey`. */
  creator: BftBlockCreator;
  /** A block creator on this chain for another validator's key. */
  creatorFor(key: TestKey): BftBlockCreator;
  dir: string;
  close(): Promise<void>;
}

/**
 * A BFT chain whose node key is `nodeKey`, in a temporary data directory (removed on close) or in
 * `opts.dir` (kept, for a node process to start on afterwards).
 */
export async function openBftChain(
  genesis: object,
  nodeKey: TestKey,
  args: string[] = [],
  opts: { dir?: string } = {},
): Promise<BftTestChain> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'alder-bft-'));
  const genesisFile = join(dir, 'genesis.json');
  writeFileSync(genesisFile, JSON.stringify(genesis));
  const keyFile = join(dir, 'key');
  writeFileSync(keyFile, bytesToHex(nodeKey.key));
  const config = loadConfig(
    [
      `--genesis-file=${genesisFile}`,
      `--data-path=${opts.dir ? dir : join(dir, 'data')}`,
      `--node-private-key-file=${keyFile}`,
      ...args,
    ],
    {},
  );
  const backend = await createBackend(config);
  const engine = backend.chain.engine as BftConsensus;
  const creatorFor = (key: TestKey) =>
    new BftBlockCreator(engine, {
      config,
      chain: backend.services.chain,
      importer: backend.services.importer,
      pool: backend.services.txPool,
      nodeKey: key.key,
    });
  return {
    backend,
    engine,
    creator: creatorFor(nodeKey),
    creatorFor,
    dir,
    async close() {
      await backend.close();
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Committed seals of `block` by each of `keys`. */
export function sealsBy(engine: BftConsensus, block: Block, keys: readonly TestKey[]): Uint8Array[] {
  const digest = commitSealDigest(engine.variant, block.header);
  return keys.map((k) => signCommitSeal(digest, k.key));
}

/** Builds, seals (by `sealers`) and commits the next block on `parent`; returns it. */
export async function produceBlock(
  chain: BftTestChain,
  parent: BlockHeader,
  sealers: readonly TestKey[],
  opts: { round?: number; proposer?: TestKey } = {},
): Promise<Block> {
  const creator = opts.proposer ? chain.creatorFor(opts.proposer) : chain.creator;
  const built = await creator.createBlock(parent, opts.round ?? 0, creator.earliestTimestamp(parent));
  const sealed = creator.seal(built.block, sealsBy(chain.engine, built.block, sealers));
  await creator.commit(sealed, built);
  return sealed;
}
