/**
 * Chain operations: debug_setHead, debug_replayBlock, debug_getBadBlocks, debug_resyncWorldState,
 * debug_standardTraceBlockToFile and debug_standardTraceBadBlockToFile.
 *
 * debug_setHead, debug_replayBlock and debug_resyncWorldState move the head; they are refused while
 * the node is producing blocks, importing them or syncing (`Cannot change the chain head while the
 * node is producing or importing blocks`), so they never race a block being added. The world state of
 * every stored block is kept, so moving the head moves the head state with it
 * (`shouldMoveWorldstate` has nothing more to do).
 */
import { join } from 'node:path';
import { logger } from '../../../log.js';

const log = logger('rpc');

import type { Block } from '@ethereumjs/block';
import type { BlockParam } from '../../blockParam.js';
import { resolveHeader } from '../../blockParam.js';
import {
  BLOCK_NOT_FOUND,
  CHAIN_HEAD_BUSY,
  INTERNAL_ERROR,
  INVALID_BLOCK_HASH_PARAMS,
  INVALID_BLOCK_PARAMS,
  INVALID_PARAMS,
  INVALID_TRANSACTION_TRACE_PARAMS,
  PARENT_BLOCK_NOT_FOUND,
  RpcError,
  UNKNOWN_BLOCK,
} from '../../errors.js';
import { formatUnstoredBlock } from '../../format/block.js';
import { bytes } from '../../format/hex.js';
import { blockParam, bool, decoder, hashBytes } from '../../params.js';
import type { Services } from '../../services.js';
import { defineMethod, optional, required } from '../define.js';
import type { RpcMethod } from '../types.js';

const SUCCESS = 'Success';

function refuseWhileBusy(services: Services): void {
  if (services.importer.busy || services.miner?.isMining() === true || services.network?.isSyncing === true)
    throw new RpcError(CHAIN_HEAD_BUSY);
}

function blockOf(services: Services, p: BlockParam): Block | undefined {
  const header = resolveHeader(services.chain, p);
  return header ? services.chain.getBlock(header.hash()) : undefined;
}

export const debugSetHead = defineMethod({
  name: 'debug_setHead',
  group: 'DEBUG',
  params: [required(blockParam, INVALID_BLOCK_PARAMS), optional(bool, INVALID_PARAMS)],
  async handler([p, _moveWorldState], { services }) {
    const block = blockOf(services, p);
    if (!block) throw new RpcError(UNKNOWN_BLOCK);
    refuseWhileBusy(services);
    await services.importer.rewindTo(block);
    return SUCCESS;
  },
});

export const debugReplayBlock = defineMethod({
  name: 'debug_replayBlock',
  group: 'DEBUG',
  params: [required(blockParam, INVALID_BLOCK_PARAMS)],
  async handler([p], { services }) {
    const block = blockOf(services, p);
    if (!block || block.header.number === 0n) throw new RpcError(UNKNOWN_BLOCK);
    refuseWhileBusy(services);
    try {
      await services.importer.reexecute(block);
    } catch (err) {
      log.warn({ err, block: block.header.number }, 'debug_replayBlock: the block failed');
      throw new RpcError(INTERNAL_ERROR);
    }
    return SUCCESS;
  },
});

export const debugGetBadBlocks = defineMethod({
  name: 'debug_getBadBlocks',
  group: 'DEBUG',
  params: [],
  handler(_args, { services }) {
    return services.importer.badBlocks().map(({ block }) => {
      let senders: ReturnType<Block['transactions'][number]['getSenderAddress']>[];
      try {
        senders = block.transactions.map((tx) => tx.getSenderAddress());
      } catch {
        senders = [];
      }
      return {
        block: formatUnstoredBlock(block, senders.length === block.transactions.length, senders),
        hash: bytes(block.hash()),
        rlp: bytes(block.serialize()),
      };
    });
  },
});

/**
 * Rebuilds the head's world state where it is missing: the canonical blocks above the last one whose
 * state is present are executed again, in order. Clears the bad blocks, as Besu does; answers whether
 * anything had to be rebuilt.
 */
export const debugResyncWorldState = defineMethod({
  name: 'debug_resyncWorldState',
  group: 'DEBUG',
  params: [],
  async handler(_args, { services }) {
    refuseWhileBusy(services);
    services.importer.clearBadBlocks();
    const chain = services.chain;
    const missing: Block[] = [];
    let n = chain.head().number;
    for (; n > 0n; n--) {
      const header = chain.getHeaderByNumber(n);
      if (!header) break;
      if (await services.world.at(header.stateRoot).hasRoot(header.stateRoot)) break;
      const block = chain.getBlock(header.hash());
      if (block) missing.unshift(block);
    }
    for (const block of missing) await services.importer.reexecute(block);
    return missing.length > 0;
  },
});

interface FileOptions {
  txHash?: Uint8Array;
  memory: boolean;
}

const fileTraceOptions = decoder(INVALID_TRANSACTION_TRACE_PARAMS, (value): FileOptions | undefined => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  const out: FileOptions = { memory: true };
  if (o.disableMemory !== undefined && o.disableMemory !== null) {
    if (typeof o.disableMemory !== 'boolean') return undefined;
    out.memory = !o.disableMemory;
  }
  if (o.txHash !== undefined && o.txHash !== null) {
    try {
      out.txHash = hashBytes(o.txHash, INVALID_TRANSACTION_TRACE_PARAMS);
    } catch {
      return undefined;
    }
  }
  return out;
});

function tracesDir(services: Services): string {
  return join(services.config.dataPath, 'traces');
}

async function toFiles(
  services: Services,
  block: Block,
  options: FileOptions | undefined,
): Promise<string[]> {
  if (!services.chain.getHeader(block.header.parentHash)) throw new RpcError(PARENT_BLOCK_NOT_FOUND);
  return services.traces.traceBlockToFiles(block, options ?? { memory: true }, tracesDir(services));
}

export const debugStandardTraceBlockToFile = defineMethod({
  name: 'debug_standardTraceBlockToFile',
  group: 'DEBUG',
  params: [required(hashBytes, INVALID_BLOCK_HASH_PARAMS), optional(fileTraceOptions)],
  handler([hash, options], { services }) {
    const block = services.chain.getBlock(hash);
    if (!block || block.header.number === 0n) throw new RpcError(BLOCK_NOT_FOUND);
    return toFiles(services, block, options);
  },
});

export const debugStandardTraceBadBlockToFile = defineMethod({
  name: 'debug_standardTraceBadBlockToFile',
  group: 'DEBUG',
  params: [required(hashBytes, INVALID_BLOCK_HASH_PARAMS), optional(fileTraceOptions)],
  handler([hash, options], { services }) {
    const bad = services.importer.badBlock(hash);
    if (!bad) throw new RpcError(BLOCK_NOT_FOUND);
    return toFiles(services, bad.block, options);
  },
});

export const debugChainMethods: RpcMethod[] = [
  debugSetHead,
  debugReplayBlock,
  debugGetBadBlocks,
  debugResyncWorldState,
  debugStandardTraceBlockToFile,
  debugStandardTraceBadBlockToFile,
];
