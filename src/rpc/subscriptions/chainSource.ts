/**
 * The node's events as the subscription manager wants them (the rpc layer listens to the chain and the
 * pool below it; nothing below formats JSON): each block that becomes canonical, with
 * its logs and the logs of blocks a reorg took away, and each transaction the pool accepts or drops,
 * formatted once for every subscriber (and only when someone asked for that form).
 */
import type { Block } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import type { ChainStore, NewHeadEvent } from '../../chain/chainStore.js';
import { blockLogs, compileLogQuery } from '../../filters/logs.js';
import { logger } from '../../log.js';
import type { SyncStatus } from '../../p2p/sync.js';
import type { PooledTx, TxPool } from '../../txpool/pool.js';
import { formatLogs } from '../format/log.js';
import { formatPendingTransactionDetail } from '../format/pendingTransaction.js';
import type { JsonObject, SubscriptionSource } from './source.js';

const log = logger('subscriptions');

/** The synchronizer's edges: its status when the node falls behind, `false` when it is in sync again. */
export interface SyncSource {
  on(event: 'syncing', listener: (status: SyncStatus | false) => void): unknown;
  off(event: 'syncing', listener: (status: SyncStatus | false) => void): unknown;
}

/** eth_syncing's object (Besu's member order). */
export function syncingJson(s: SyncStatus): JsonObject {
  const q = (n: bigint) => `0x${n.toString(16)}`;
  return {
    startingBlock: q(s.startingBlock),
    currentBlock: q(s.currentBlock),
    highestBlock: q(s.highestBlock),
  };
}
const ALL_LOGS = compileLogQuery({ addresses: [], topics: [] });

/**
 * `blockJson` serialises a block as eth_getBlockBy* answers it (transaction hashes or, with `full`,
 * transaction objects); the node hands in its cached block answers.
 */
export function chainSubscriptionSource(
  chain: ChainStore,
  blockJson: (block: Block, full: boolean) => string,
  pool?: TxPool,
  sync?: SyncSource,
): SubscriptionSource {
  return {
    onNewHead(cb) {
      const listener = (event: NewHeadEvent) => {
        let removedLogs: readonly JsonObject[] | undefined;
        const formatRemoved = () =>
          (removedLogs ??= event.removed.flatMap((b) =>
            formatLogs(blockLogs(chain, b.header, ALL_LOGS, { removed: true, block: b })),
          ));
        event.added.forEach((block, i) => {
          // The moment a block becomes visible to subscribers (the bench measures fan-out from it).
          if (log.isLevelEnabled('debug'))
            log.debug({ number: Number(block.header.number), hash: bytesToHex(block.hash()) }, 'New head');
          cb({
            headerJson: () => blockJson(block, false),
            withTransactionsJson: () => blockJson(block, true),
            logs: () => formatLogs(blockLogs(chain, block.header, ALL_LOGS, { block })),
            // A reorg's removed logs go out once, with the first block of the new branch.
            removedLogs: () => (i === 0 ? formatRemoved() : []),
          });
        });
      };
      chain.on('newHead', listener);
      return () => chain.off('newHead', listener);
    },
    onPendingTransaction(cb) {
      if (!pool) return () => undefined;
      const listener = (entry: PooledTx) =>
        cb(entry.hashHex, () => formatPendingTransactionDetail(entry.tx, entry.sender, entry.hashHex));
      pool.on('added', listener);
      return () => pool.off('added', listener);
    },
    onDroppedTransaction(cb) {
      if (!pool) return () => undefined;
      const listener = (entry: PooledTx) => cb(entry.hashHex);
      pool.on('dropped', listener);
      return () => pool.off('dropped', listener);
    },
    onSyncing(cb) {
      if (!sync) return () => undefined;
      const listener = (status: SyncStatus | false) => cb(status === false ? false : syncingJson(status));
      sync.on('syncing', listener);
      return () => sync.off('syncing', listener);
    },
  };
}
