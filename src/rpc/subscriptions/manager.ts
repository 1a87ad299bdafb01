/**
 * eth_subscribe / eth_unsubscribe bookkeeping for WebSocket connections, as Besu behaves:
 * - ids come from one node-wide counter, as hex quantities (`0x1`, `0x2`, …);
 * - a subscription belongs to its connection: another connection cannot cancel it (it gets
 *   "Subscription not found"), and all of a connection's subscriptions end when it closes;
 * - notifications are `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":id,"result":…}}`.
 *
 * Each event's result is serialized once and spliced into every subscriber's notification, so a new
 * head costs one JSON.stringify however many connections listen.
 */
import { type LogFilter, logMatches, parseLogFilter } from './logFilter.js';
import type { JsonObject, NewHeadParts, SubscriptionSource } from './source.js';

/** Where a subscription's notifications go: one WebSocket connection. */
export interface SubscriptionConnection {
  readonly id: string;
  send(message: string): void;
}

export const SUBSCRIPTION_TYPES = [
  'newHeads',
  'logs',
  'newPendingTransactions',
  'droppedPendingTransactions',
  'syncing',
] as const;
export type SubscriptionType = (typeof SUBSCRIPTION_TYPES)[number];

/** The request could not be understood (Besu answers -32600 Invalid Request). */
export class InvalidSubscriptionRequestError extends Error {
  override name = 'InvalidSubscriptionRequestError';
}

/** No such subscription on this connection (Besu answers -32000 Subscription not found). */
export class SubscriptionNotFoundError extends Error {
  override name = 'SubscriptionNotFoundError';
}

interface Subscription {
  readonly id: bigint;
  readonly hexId: string;
  readonly type: SubscriptionType;
  readonly connection: SubscriptionConnection;
  readonly includeTransactions: boolean;
  readonly filter?: LogFilter;
}

const NOTIFICATION_HEAD = '{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"';

function notification(hexId: string, resultJson: string): string {
  return `${NOTIFICATION_HEAD}${hexId}","result":${resultJson}}}`;
}

export class SubscriptionManager {
  private counter = 0n;
  private readonly byId = new Map<bigint, Subscription>();
  private readonly byType = new Map<SubscriptionType, Set<Subscription>>(
    SUBSCRIPTION_TYPES.map((t) => [t, new Set<Subscription>()]),
  );
  private readonly byConnection = new Map<SubscriptionConnection, Set<Subscription>>();
  private readonly detach: Array<() => void> = [];

  constructor(source: SubscriptionSource) {
    this.detach.push(source.onNewHead((head) => this.newHead(head)));
    this.detach.push(source.onPendingTransaction((hash, tx) => this.pendingTransaction(hash, tx)));
    if (source.onDroppedTransaction) {
      this.detach.push(
        source.onDroppedTransaction((hash) =>
          this.publish('droppedPendingTransactions', JSON.stringify(hash)),
        ),
      );
    }
    this.detach.push(source.onSyncing((status) => this.publish('syncing', JSON.stringify(status))));
  }

  /** Number of live subscriptions (all connections). */
  get size(): number {
    return this.byId.size;
  }

  /** `eth_subscribe` params → new subscription id. Throws InvalidSubscriptionRequestError. */
  subscribe(connection: SubscriptionConnection, params: readonly unknown[]): string {
    const type = params[0];
    if (typeof type !== 'string' || !(SUBSCRIPTION_TYPES as readonly string[]).includes(type)) {
      throw new InvalidSubscriptionRequestError('Invalid subscription type');
    }
    let filter: LogFilter | undefined;
    let includeTransactions = false;
    if (type === 'logs') {
      filter = parseLogFilter(params[1]);
      if (filter === undefined) throw new InvalidSubscriptionRequestError('Invalid logs filter');
    } else {
      includeTransactions = parseIncludeTransactions(params[1]);
    }

    this.counter += 1n;
    const sub: Subscription = {
      id: this.counter,
      hexId: `0x${this.counter.toString(16)}`,
      type: type as SubscriptionType,
      connection,
      includeTransactions,
      ...(filter ? { filter } : {}),
    };
    this.byId.set(sub.id, sub);
    this.byType.get(sub.type)?.add(sub);
    let own = this.byConnection.get(connection);
    if (!own) {
      own = new Set();
      this.byConnection.set(connection, own);
    }
    own.add(sub);
    return sub.hexId;
  }

  /** `eth_unsubscribe` params → true. Throws InvalidSubscriptionRequestError or SubscriptionNotFoundError. */
  unsubscribe(connection: SubscriptionConnection, params: readonly unknown[]): boolean {
    const id = parseSubscriptionId(params[0]);
    if (id === undefined) throw new InvalidSubscriptionRequestError('Invalid subscription id');
    const sub = this.byId.get(id);
    if (!sub || sub.connection !== connection) throw new SubscriptionNotFoundError('Subscription not found');
    this.remove(sub);
    return true;
  }

  /** Ends every subscription of a connection (call when it closes). */
  removeConnection(connection: SubscriptionConnection): void {
    const own = this.byConnection.get(connection);
    if (!own) return;
    for (const sub of own) this.remove(sub);
    this.byConnection.delete(connection);
  }

  /** Stops listening to the source and drops every subscription. */
  close(): void {
    for (const off of this.detach.splice(0)) off();
    for (const sub of [...this.byId.values()]) this.remove(sub);
  }

  private remove(sub: Subscription): void {
    this.byId.delete(sub.id);
    this.byType.get(sub.type)?.delete(sub);
    const own = this.byConnection.get(sub.connection);
    own?.delete(sub);
    if (own && own.size === 0) this.byConnection.delete(sub.connection);
  }

  private publish(type: SubscriptionType, resultJson: string): void {
    for (const sub of this.snapshot(type)) sub.connection.send(notification(sub.hexId, resultJson));
  }

  /** Subscribers at the moment of the event; a send that closes a connection must not upset the loop. */
  private snapshot(type: SubscriptionType): Subscription[] {
    const set = this.byType.get(type);
    return set && set.size > 0 ? [...set] : [];
  }

  private newHead(head: NewHeadParts): void {
    const heads = this.snapshot('newHeads');
    if (heads.length > 0) {
      let plain: string | undefined;
      let full: string | undefined;
      for (const sub of heads) {
        let json: string;
        if (sub.includeTransactions) {
          full ??= head.withTransactionsJson();
          json = full;
        } else {
          plain ??= head.headerJson();
          json = plain;
        }
        sub.connection.send(notification(sub.hexId, json));
      }
    }

    const logSubs = this.snapshot('logs');
    if (logSubs.length === 0) return;
    const logs = head.logs();
    const removedLogs = head.removedLogs();
    if (logs.length === 0 && removedLogs.length === 0) return;
    // Logs taken off the chain first (removed: true), then the block's own logs, each as one message.
    const all: Array<{ log: JsonObject; json?: string }> = [
      ...removedLogs.map((log) => ({ log: log.removed === true ? log : { ...log, removed: true } })),
      ...logs.map((log) => ({ log })),
    ];
    for (const sub of logSubs) {
      for (const entry of all) {
        if (!sub.filter || logMatches(sub.filter, entry.log)) {
          entry.json ??= JSON.stringify(entry.log);
          sub.connection.send(notification(sub.hexId, entry.json));
        }
      }
    }
  }

  private pendingTransaction(hash: string, detail: () => JsonObject): void {
    const subs = this.snapshot('newPendingTransactions');
    if (subs.length === 0) return;
    const hashJson = JSON.stringify(hash);
    let txJson: string | undefined;
    for (const sub of subs) {
      if (sub.includeTransactions) txJson ??= JSON.stringify(detail());
      sub.connection.send(notification(sub.hexId, sub.includeTransactions ? (txJson as string) : hashJson));
    }
  }
}

/** The optional `{includeTransactions: bool}` second parameter. */
function parseIncludeTransactions(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidSubscriptionRequestError('Invalid subscription params');
  }
  const flag = (value as JsonObject).includeTransactions;
  if (flag === undefined || flag === null) return false;
  if (typeof flag !== 'boolean') throw new InvalidSubscriptionRequestError('Invalid subscription params');
  return flag;
}

/** A subscription id as Besu reads it: a hex (`0x…`) or decimal string, or a non-negative integer. */
function parseSubscriptionId(value: unknown): bigint | undefined {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined;
  }
  if (typeof value !== 'string') return undefined;
  if (/^0x[0-9a-fA-F]{1,16}$/.test(value)) return BigInt(value);
  if (/^[0-9]{1,20}$/.test(value)) return BigInt(value);
  return undefined;
}
