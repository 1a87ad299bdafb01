/**
 * The Clique service the node wires in: signer snapshots over the chain, the import rules, this node's
 * proposals and — when the node key is known — the sealing engine.
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { Common, CustomCrypto } from '@ethereumjs/common';
import { type CliqueSpec, createCommon, type GenesisSpec } from '../../config/genesis.js';
import { CliqueEngine } from './engine.js';
import { VoteProposals } from './proposals.js';
import { CliqueSnapshots, type HeaderSource } from './snapshot.js';
import { CliqueHeaderRules } from './validation.js';

export { CliqueEngine } from './engine.js';
export { CliqueHeaderRules } from './validation.js';

/**
 * The Common Clique blocks execute with (`ImporterOptions.executionCommon`): the same forks under a
 * consensus that pays `header.coinbase`, where the importer and the engine put the signer. Block
 * rewards follow the block's own Common, so none are paid.
 */
export function cliqueExecutionCommon(genesis: GenesisSpec, customCrypto: CustomCrypto): Common {
  return createCommon(
    { ...genesis, config: { ...genesis.config, consensus: 'ethash', clique: undefined } },
    { customCrypto },
  );
}

export class Clique {
  readonly snapshots: CliqueSnapshots;
  readonly rules: CliqueHeaderRules;
  readonly proposals = new VoteProposals();

  constructor(
    headers: HeaderSource,
    readonly spec: CliqueSpec,
  ) {
    this.snapshots = new CliqueSnapshots(headers, spec.epochLength);
    this.rules = new CliqueHeaderRules(this.snapshots, spec.blockPeriodSeconds);
  }

  /** Signers after `header` (those allowed to seal its child), ascending. */
  signersAfter(header: BlockHeader): readonly string[] {
    return this.snapshots.tallyAfter(header).signers;
  }

  /** Who sealed `header`; the zero address for the genesis block. */
  proposerOf(header: BlockHeader): string {
    return this.snapshots.signerOf(header);
  }

  /** The sealing engine for `privateKey` (the node key). */
  engine(privateKey: Uint8Array, vanity: Uint8Array): CliqueEngine {
    return new CliqueEngine({
      snapshots: this.snapshots,
      proposals: this.proposals,
      privateKey,
      periodSeconds: this.spec.blockPeriodSeconds,
      createEmptyBlocks: this.spec.createEmptyBlocks,
      vanity,
    });
  }
}
