/**
 * What the subscription manager needs from the node: chain, pool and sync events, already formatted as
 * Besu's JSON. The node implements this over its services (chain `newHead`, tx pool, synchronizer);
 * tests implement it over an EventEmitter. Each `on…` returns a function that removes the listener.
 */
export type JsonObject = Record<string, unknown>;

/** One new canonical block, in the forms subscribers may ask for. */
export interface NewHeadParts {
  /** The block as the `newHeads` result (transaction hashes), as JSON text. */
  headerJson(): string;
  /** The same block with full transaction objects (`{includeTransactions: true}`), as JSON text. */
  withTransactionsJson(): string;
  /** The block's logs (`removed: false`), in log-index order. */
  logs(): readonly JsonObject[];
  /** Logs of the blocks this import took off the canonical chain (sent with `removed: true`), or empty. */
  removedLogs(): readonly JsonObject[];
}

export interface SubscriptionSource {
  /**
   * A block became canonical. Called once per block, in order, for every block of a reorg too. The
   * parts are built on first use, so a block nobody listens to costs no formatting.
   */
  onNewHead(cb: (head: NewHeadParts) => void): () => void;

  /**
   * A transaction entered the pool: its hash, and its pending-transaction detail object built on
   * demand (only subscribers with `{includeTransactions: true}` need it).
   */
  onPendingTransaction(cb: (hash: string, detail: () => JsonObject) => void): () => void;

  /** A transaction left the pool without being mined. Optional. */
  onDroppedTransaction?(cb: (hash: string) => void): () => void;

  /** The sync status changed: the eth_syncing object while syncing, `false` once in sync. */
  onSyncing(cb: (status: JsonObject | false) => void): () => void;
}
