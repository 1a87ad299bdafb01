/**
 * The metrics of a running node, per category: the standard `ethereum_*` set, the blockchain head,
 * block processing, the transaction pool, peers, the synchronizer, the network and JSON-RPC. Values
 * that exist anyway (head, pool size) are read at scrape time; events are counted as they happen.
 */
import type { MetricsService } from './service.js';

/*
 * The sources are described by their shape here: metrics/ sits below the chain and the pool and
 * imports neither (DESIGN.md §1).
 */

interface HeadHeader {
  timestamp: bigint;
  gasUsed: bigint;
  gasLimit: bigint;
}

interface CanonicalBlock {
  header: { gasUsed: bigint };
  transactions: readonly unknown[];
  uncleHeaders: readonly unknown[];
}

interface HeadEvent {
  added: readonly CanonicalBlock[];
  removed: readonly CanonicalBlock[];
}

/** What the metrics read of the chain (ChainStore). */
export interface ChainSource {
  head(): { number: bigint; hash: Uint8Array };
  getHeader(hash: Uint8Array): HeadHeader | undefined;
  getBlock(hash: Uint8Array): CanonicalBlock | undefined;
  getTotalDifficulty(hash: Uint8Array): bigint | undefined;
  getTxHashes(hash: Uint8Array): readonly unknown[] | undefined;
  on(event: 'newHead', listener: (e: HeadEvent) => void): unknown;
  off(event: 'newHead', listener: (e: HeadEvent) => void): unknown;
}

interface PoolEntry {
  local: boolean;
}

/** What the metrics read of the transaction pool (TxPool). */
export interface PoolSource {
  readonly size: number;
  on(event: 'added' | 'dropped', listener: (t: PoolEntry) => void): unknown;
  off(event: 'added' | 'dropped', listener: (t: PoolEntry) => void): unknown;
}

/** The block importer's entry point, timed by the block_processing metrics. */
export interface ImporterSource {
  importBlock(block: never): Promise<'imported' | 'known'>;
  idle(): Promise<void>;
}

export interface NodeMetricsSources {
  chain: ChainSource;
  importer?: ImporterSource;
  txPool?: PoolSource;
  peerCount: () => number;
  /** The most peers the node accepts. */
  peerLimit: () => number;
  /** Highest block known from peers; the head when the node does not synchronize. */
  bestKnownBlock?: () => bigint;
}

/** Counters the networking layer increments (registered whether or not P2P runs, so they read 0). */
export interface NetworkMetrics {
  inbound(protocol: string, message: string): void;
  outbound(protocol: string, message: string): void;
}

export interface NodeMetrics {
  network: NetworkMetrics;
  /** Stops listening to chain and pool events. */
  close(): void;
}

export function registerNodeMetrics(m: MetricsService, src: NodeMetricsSources): NodeMetrics {
  const { chain } = src;
  const head = () => chain.head();
  const headHeader = () => chain.getHeader(head().hash);
  const best = () => {
    const known = src.bestKnownBlock?.() ?? 0n;
    const h = head().number;
    return known > h ? known : h;
  };

  // --- ethereum: the names client dashboards share
  m.gauge('ethereum', 'blockchain_height', 'The current height of the canonical chain', () => head().number);
  m.gauge('ethereum', 'best_known_block_number', 'The estimated highest block available', best);
  m.gauge('ethereum', 'peer_count', 'The current number of peers connected', src.peerCount);
  m.gauge('ethereum', 'peer_limit', 'The maximum number of peers this node allows to connect', src.peerLimit);

  // --- blockchain
  m.gauge('blockchain', 'height', 'Height of the chain head', () => head().number);
  m.gauge('blockchain', 'difficulty_total', 'Total difficulty of the chainhead', () =>
    Number(chain.getTotalDifficulty(head().hash) ?? 0n),
  );
  m.gauge('blockchain', 'chain_head_timestamp', 'Timestamp from the current chain head', () =>
    Number(headHeader()?.timestamp ?? 0n),
  );
  m.gauge(
    'blockchain',
    'chain_head_transaction_count',
    'Number of transactions in the current chain head block',
    () => chain.getTxHashes(head().hash)?.length ?? 0,
  );
  m.gauge('blockchain', 'chain_head_gas_used', 'Gas used by the current chain head block', () =>
    Number(headHeader()?.gasUsed ?? 0n),
  );
  m.gauge('blockchain', 'chain_head_gas_limit', 'Block gas limit of the current chain head block', () =>
    Number(headHeader()?.gasLimit ?? 0n),
  );
  m.gauge('blockchain', 'chain_head_ommer_count', 'Number of ommers in the current chain head block', () => {
    const block = chain.getBlock(head().hash);
    return block?.uncleHeaders.length ?? 0;
  });
  const reorgs = m.counter('blockchain', 'reorgs_total', 'Chain reorganisations (head moved off its branch)');
  const reorgDepth = m.counter(
    'blockchain',
    'reorg_removed_blocks_total',
    'Blocks taken off the canonical chain',
  );

  // --- block processing
  const blocks = m.counter('block_processing', 'blocks_total', 'Blocks that became canonical');
  const txs = m.counter(
    'block_processing',
    'transactions_total',
    'Transactions in blocks that became canonical',
  );
  const gas = m.counter('block_processing', 'gas_total', 'Gas used by blocks that became canonical');
  const importTime = m.histogram(
    'block_processing',
    'import_duration_seconds',
    'Time to validate, execute and store one block',
    [],
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  const invalid = m.counter('block_processing', 'invalid_blocks_total', 'Blocks refused on import');
  if (importTime && src.importer) timeImports(src.importer, importTime, invalid);

  const onHead = (e: HeadEvent): void => {
    if (e.removed.length > 0) {
      reorgs?.inc();
      reorgDepth?.inc(e.removed.length);
    }
    for (const b of e.added) {
      blocks?.inc();
      txs?.inc(b.transactions.length);
      gas?.inc(Number(b.header.gasUsed));
    }
  };
  if (blocks || reorgs) chain.on('newHead', onHead);

  // --- synchronizer
  m.gauge('synchronizer', 'in_sync', '1 when the head is at the best known block, else 0', () =>
    best() <= head().number ? 1 : 0,
  );
  m.gauge('synchronizer', 'best_known_block', 'Highest block known from peers or the head', best);

  // --- transaction pool
  const pool = src.txPool;
  m.gauge('transaction_pool', 'transactions', 'Transactions in the pool', () => pool?.size ?? 0);
  const added = m.counter('transaction_pool', 'transactions_added_total', 'Transactions added to the pool', [
    'source',
  ]);
  const removed = m.counter(
    'transaction_pool',
    'transactions_removed_total',
    'Transactions dropped from the pool (replaced, evicted or expired)',
    ['source'],
  );
  const source = (t: PoolEntry) => (t.local ? 'local' : 'remote');
  const onAdded = (t: PoolEntry) => added?.inc({ source: source(t) });
  const onDropped = (t: PoolEntry) => removed?.inc({ source: source(t) });
  if (pool && added) pool.on('added', onAdded);
  if (pool && removed) pool.on('dropped', onDropped);

  // --- peers and network
  m.gauge('peers', 'peer_count', 'Peers connected', src.peerCount);
  m.gauge('peers', 'peer_limit', 'Maximum number of peers', src.peerLimit);
  const inbound = m.counter('network', 'p2p_messages_inbound_total', 'P2P messages received', [
    'protocol',
    'name',
  ]);
  const outbound = m.counter('network', 'p2p_messages_outbound_total', 'P2P messages sent', [
    'protocol',
    'name',
  ]);

  return {
    network: {
      inbound: (protocol, name) => inbound?.inc({ protocol, name }),
      outbound: (protocol, name) => outbound?.inc({ protocol, name }),
    },
    close() {
      chain.off('newHead', onHead);
      pool?.off('added', onAdded);
      pool?.off('dropped', onDropped);
    },
  };
}

/** Times the importer's block imports (queue wait excluded: the clock starts when the import runs). */
function timeImports(
  importer: ImporterSource,
  histogram: NonNullable<ReturnType<MetricsService['histogram']>>,
  invalid: ReturnType<MetricsService['counter']>,
): void {
  const original = importer.importBlock.bind(importer);
  importer.importBlock = (block) => {
    let started = 0;
    // The import runs after the ones queued before it; `idle()` resolves when those are done.
    void importer.idle().then(() => {
      started = performance.now();
    });
    const run = original(block);
    run.then(
      (result) => {
        if (result === 'imported' && started > 0) histogram.observe((performance.now() - started) / 1000);
      },
      () => invalid?.inc(),
    );
    return run;
  };
}
