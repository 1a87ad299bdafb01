/**
 * The node's events as the subscription manager wants them: each block that becomes canonical, with
 * its logs and the logs of blocks a reorg took away, formatted once for every subscriber.
 */
import type { ChainStore, NewHeadEvent } from '../chain/chainStore.js';
import { blockLogs, compileLogQuery } from '../filters/logs.js';
import { type FormatBlockOptions, formatBlock } from '../rpc/format/block.js';
import { formatLogs } from '../rpc/format/log.js';
import type { SubscriptionSource } from '../rpc/subscriptions/source.js';

const ALL_LOGS = compileLogQuery({ addresses: [], topics: [] });

export function chainSubscriptionSource(
  chain: ChainStore,
  blockOptions: FormatBlockOptions,
): SubscriptionSource {
  return {
    onNewHead(cb) {
      const listener = (event: NewHeadEvent) => {
        const removedLogs = event.removed.flatMap((b) =>
          formatLogs(blockLogs(chain, b.header, ALL_LOGS, { removed: true, block: b })),
        );
        event.added.forEach((block, i) => {
          const header = formatBlock(block, false, chain, blockOptions);
          const logs = formatLogs(blockLogs(chain, block.header, ALL_LOGS, { block }));
          cb(header, logs, i === 0 ? removedLogs : [], () => formatBlock(block, true, chain, blockOptions));
        });
      };
      chain.on('newHead', listener);
      return () => chain.off('newHead', listener);
    },
    onPendingTransaction() {
      // The transaction pool publishes here once it exists.
      return () => undefined;
    },
    onSyncing() {
      return () => undefined;
    },
  };
}
