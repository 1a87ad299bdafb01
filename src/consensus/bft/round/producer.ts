/**
 * Block production of an IBFT 2.0 / QBFT node: the round controller over the real chain. It registers
 * the variant's devp2p capability on the (not yet started) network, builds proposals with the core's
 * block creator, checks received proposals by executing them without storing, and stores the agreed
 * block with its committed seals — reusing the execution of the proposal, so no block runs twice here.
 * Every node runs it; a node outside the validator set only follows the chain.
 */
import { type Block, createBlockFromBytesArray } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import { InvalidBlockError } from '../../../chain/errors.js';
import type { BuiltExecution } from '../../../execution/importer.js';
import { logger } from '../../../log.js';
import type { ConsensusEngine, NodeProducer, ProducerContext } from '../../engine.js';
import { BftBlockCreator } from '../blockCreator.js';
import type { BftConsensus } from '../consensus.js';
import { decodeExtraData } from '../extraData.js';
import { addressOfPrivateKey, commitSealDigest } from '../hashing.js';
import { BftCodec, type Rlp } from '../protocol/messages.js';
import { BftNetwork } from '../protocol/network.js';
import { BftController } from './controller.js';
import type { BftChainOps } from './ops.js';

const log = logger('bft');
/** Executions kept for blocks not yet agreed (proposals of the current and recent heights). */
const MAX_KEPT_EXECUTIONS = 64;

export interface BftProducer extends NodeProducer {
  readonly controller: BftController;
  readonly network: BftNetwork;
}

/** `engine` with block production by rounds (its `createProducer`). */
export function withRoundProducer(
  engine: BftConsensus,
): BftConsensus & Required<Pick<ConsensusEngine, 'createProducer'>> {
  return Object.assign(engine, { createProducer: (ctx: ProducerContext) => createBftProducer(engine, ctx) });
}

export function createBftProducer(engine: BftConsensus, ctx: ProducerContext): BftProducer {
  const { variant, bft } = engine;
  const { chain, importer } = ctx;
  const creator = new BftBlockCreator(engine, ctx);
  const localAddress = addressOfPrivateKey(ctx.nodeKey);
  const executions = new Map<string, BuiltExecution>();
  const keep = (block: Block, execution: BuiltExecution) => {
    executions.set(bytesToHex(block.hash()), execution);
    while (executions.size > MAX_KEPT_EXECUTIONS) executions.delete(executions.keys().next().value as string);
  };
  const spec = bft.schedule.spec;
  const codec = new BftCodec(variant, {
    decode: (values) =>
      createBlockFromBytesArray(values as Parameters<typeof createBlockFromBytesArray>[0], {
        common: chain.common,
        setHardfork: true,
        skipConsensusFormatValidation: true,
      }),
    encode: (block) => block.raw() as Rlp,
    digest: (block) => commitSealDigest(variant, block.header),
  });

  const ops: BftChainOps = {
    validatorsAfter: (parent) => bft.validatorsAfter(parent),
    proposerOf: (header) => header.coinbase.toString(),
    timing: (height) => {
      const at = bft.schedule.at(height);
      return {
        blockPeriodSeconds: at.blockPeriodSeconds,
        emptyBlockPeriodSeconds: variant === 'qbft' ? at.emptyBlockPeriodSeconds : 0,
        requestTimeoutSeconds: bft.schedule.requestTimeoutSeconds,
      };
    },
    async createBlock(parent, round, timestamp) {
      // Never before the parent's period is over: the header rules refuse an earlier timestamp.
      const earliest = creator.earliestTimestamp(parent);
      const built = await creator.createBlock(parent, round, timestamp < earliest ? earliest : timestamp);
      keep(built.block, built.execution);
      log.debug(
        { number: built.block.header.number.toString(), round, txs: built.txCount },
        'Built a proposal',
      );
      return built.block;
    },
    async validateBlock(block, parent) {
      if (bytesToHex(block.header.parentHash) !== bytesToHex(parent.hash()))
        return 'not a child of the chain head';
      try {
        // The core's header rules without seals (constants, period, validators, proposer), then the
        // execution, kept to store the block with once it is agreed.
        const reason = await engine.verifyProposalHeader(block.header);
        if (reason) return reason;
        if (decodeExtraData(variant, block.header.extraData).seals.length > 0)
          return 'a proposal carries committed seals';
        keep(block, await importer.executeWithoutStoring(block));
        return undefined;
      } catch (err) {
        if (err instanceof InvalidBlockError) return err.reason;
        return (err as Error).message;
      }
    },
    roundOf: (block) => decodeExtraData(variant, block.header.extraData).round,
    replaceRound: (block, round) => creator.withRound(block, round),
    digest: (block) => commitSealDigest(variant, block.header),
    seal: (block, round, seals) => creator.seal(creator.withRound(block, round), seals),
    async importBlock(sealed) {
      try {
        const execution = executions.get(bytesToHex(sealed.hash()));
        if (execution) await importer.commitBuilt(sealed, execution);
        else await importer.importBlock(sealed);
        return undefined;
      } catch (err) {
        if (err instanceof InvalidBlockError) return err.reason;
        return (err as Error).message;
      }
    },
  };

  let controller: BftController | undefined;
  const network = new BftNetwork(variant, {
    validators: () => controller?.validators ?? new Set(),
    gossipedHistoryLimit: spec.gossipedHistoryLimit,
  });
  controller = new BftController({
    codec,
    ops,
    nodeKey: ctx.nodeKey,
    localAddress,
    transport: network,
    limits: {
      messageQueueLimit: spec.messageQueueLimit,
      duplicateMessageLimit: spec.duplicateMessageLimit,
      futureMessagesLimit: spec.futureMessagesLimit,
      futureMessagesMaxDistance: spec.futureMessagesMaxDistance,
      gossipedHistoryLimit: spec.gossipedHistoryLimit,
    },
    head: () => chain.headHeader(),
    isSyncing: ctx.isSyncing,
  });
  const ctl = controller;
  network.onMessage = (code, data, from) => ctl.receive(code, data, from);
  // Without a network a single validator can still agree with itself (a one-node development chain).
  ctx.network?.host.register(network);
  const onHead = (e: { head: Block }) => ctl.newHead(e.head.header);
  return {
    controller: ctl,
    network,
    start() {
      log.info({ address: localAddress, variant }, 'BFT validator address of the node key');
      chain.on('newHead', onHead);
      ctl.start();
    },
    async stop() {
      chain.off('newHead', onHead);
      await ctl.stop();
    },
  };
}
