/**
 * Clique test chains: a genesis naming the signers, an in-process chain with the Clique import rules,
 * and hand-sealed empty blocks (an empty Clique block leaves the state untouched, so its roots are
 * known without execution).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Block, type BlockHeader, createBlock } from '@ethereumjs/block';
import { createFeeMarket1559Tx, type FeeMarket1559Tx } from '@ethereumjs/tx';
import { Address, hexToBytes } from '@ethereumjs/util';
import { afterEach } from 'vitest';
import { LONDON_AT_GENESIS } from '../../bench/genchain.mjs';
import type { ChainStore } from '../../src/chain/chainStore.js';
import { type GenesisSpec, parseGenesis } from '../../src/config/genesis.js';
import { loadConfig } from '../../src/config/load.js';
import { encodeExtraData, withSeal } from '../../src/consensus/clique/extraData.js';
import type { Clique } from '../../src/consensus/clique/index.js';
import { addressOfPrivateKey, sealHash, signSeal } from '../../src/consensus/clique/seal.js';
import { keccak256 } from '../../src/crypto/index.js';
import type { BlockImporter } from '../../src/execution/importer.js';
import { createBackend } from '../../src/node.js';
import type { Services } from '../../src/rpc/services.js';

export interface TestKey {
  key: Uint8Array;
  address: string;
}

/** A deterministic key per name. */
export function testKey(name: string): TestKey {
  const key = keccak256(new TextEncoder().encode(`alder clique test ${name}`));
  return { key, address: addressOfPrivateKey(key) };
}

export const FUNDED = testKey('funded');
export const COINBASE_RECORDER = '0x00000000000000000000000000000000000c01b5';

export function cliqueGenesis(
  signers: readonly string[],
  clique: { blockperiodseconds?: number; epochlength?: number; createemptyblocks?: boolean } = {},
): object {
  const extra = encodeExtraData(new Uint8Array(), [...signers].sort());
  return {
    config: {
      chainId: 4242,
      ...LONDON_AT_GENESIS,
      clique: { blockperiodseconds: 1, epochlength: 30000, ...clique },
    },
    nonce: '0x0',
    timestamp: '0x0',
    gasLimit: '0x1c9c380',
    difficulty: '0x1',
    extraData: `0x${Buffer.from(extra).toString('hex')}`,
    alloc: {
      [FUNDED.address]: { balance: '0x3635c9adc5dea00000' },
      // COINBASE PUSH1 0 SSTORE: records who the block's COINBASE is.
      [COINBASE_RECORDER]: { balance: '0x0', code: '0x4160005500' },
    },
  };
}

export interface CliqueTestChain {
  spec: GenesisSpec;
  chain: ChainStore;
  importer: BlockImporter;
  clique: Clique;
  genesis: Block;
  /** The node's services over this chain, built by the composition root. */
  services: Services;
  close(): Promise<void>;
}

/** A Clique chain in a temporary data directory, built by `createBackend` as the node builds it. */
export async function openCliqueChain(genesis: object): Promise<CliqueTestChain> {
  const spec = parseGenesis(genesis);
  const dir = mkdtempSync(join(tmpdir(), 'alder-clique-'));
  const genesisFile = join(dir, 'genesis.json');
  writeFileSync(genesisFile, JSON.stringify(genesis));
  const config = loadConfig([`--genesis-file=${genesisFile}`, `--data-path=${join(dir, 'data')}`], {});
  const backend = await createBackend(config);
  const { services } = backend;
  const genesisBlock = services.chain.getBlockByNumber(0n);
  if (!genesisBlock || !services.clique) throw new Error('not a Clique chain');
  return {
    spec,
    chain: services.chain,
    importer: services.importer,
    clique: services.clique,
    genesis: genesisBlock,
    services,
    async close() {
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface EmptyBlockOptions {
  difficulty?: bigint;
  timestamp?: bigint;
  vote?: { candidate: string; add: boolean };
  /** Checkpoint signer list. */
  signers?: readonly string[];
  mixHash?: Uint8Array;
}

/** An empty block on `parent` sealed by `signer`. */
export function sealEmptyBlock(parent: BlockHeader, signer: TestKey, opts: EmptyBlockOptions = {}): Block {
  const common = parent.common;
  const extraData = encodeExtraData(new Uint8Array(), opts.signers ?? []);
  const unsealed = createBlock(
    {
      header: {
        parentHash: parent.hash(),
        coinbase: opts.vote ? new Address(hexToBytes(opts.vote.candidate as `0x${string}`)) : undefined,
        stateRoot: parent.stateRoot,
        difficulty: opts.difficulty ?? 2n,
        number: parent.number + 1n,
        gasLimit: parent.gasLimit,
        timestamp: opts.timestamp ?? parent.timestamp + 1n,
        extraData,
        mixHash: opts.mixHash,
        nonce: opts.vote?.add ? new Uint8Array(8).fill(0xff) : new Uint8Array(8),
        baseFeePerGas: parent.calcNextBaseFee(),
      },
    },
    { common, setHardfork: true, skipConsensusFormatValidation: true },
  );
  const seal = signSeal(sealHash(unsealed.header), signer.key);
  const header = { ...unsealed.header.toJSON(), extraData: withSeal(extraData, seal) };
  return createBlock({ header }, { common, setHardfork: true, skipConsensusFormatValidation: true });
}

/**
 * FUNDED's transfer of 1 wei with nonce `nonce` on a chain of `cliqueGenesis` (each nonce to its own
 * recipient, 0x…01 for nonce 0).
 */
export function fundedTransfer(c: CliqueTestChain, nonce: number): FeeMarket1559Tx {
  return createFeeMarket1559Tx(
    {
      chainId: 4242n,
      nonce: BigInt(nonce),
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      gasLimit: 21_000n,
      to: `0x${(nonce + 1).toString(16).padStart(40, '0')}`,
      value: 1n,
    },
    { common: c.chain.common },
  ).sign(FUNDED.key);
}

/**
 * An opener of one-signer Clique chains (signed by `signer`) for a test file: the chains opened in a
 * test are closed after it.
 */
export function cliqueChainsOf(signer: TestKey): () => Promise<CliqueTestChain> {
  const opened: CliqueTestChain[] = [];
  afterEach(async () => {
    for (const c of opened.splice(0)) await c.close();
  });
  return async () => {
    const c = await openCliqueChain(cliqueGenesis([signer.address]));
    opened.push(c);
    return c;
  };
}
