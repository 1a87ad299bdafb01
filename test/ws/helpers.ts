/** WS test harness: recording methods, an EventEmitter event source, a message-queue client. */
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import type { RpcAuth } from '../../src/rpc/auth/index.js';
import { createDispatcher } from '../../src/rpc/dispatch.js';
import type { ApiGroup, RpcMethod } from '../../src/rpc/methods/types.js';
import { startWsServer, type WsServer, type WsServerOptions } from '../../src/rpc/server/ws.js';
import type { Services } from '../../src/rpc/services.js';
import { SubscriptionManager } from '../../src/rpc/subscriptions/manager.js';
import { subscriptionMethods } from '../../src/rpc/subscriptions/methods.js';
import type { JsonObject, SubscriptionSource } from '../../src/rpc/subscriptions/source.js';

/** Methods that record each execution, to prove a refused request executed nothing. */
export function recordingMethods(): { methods: RpcMethod[]; calls: string[] } {
  const calls: string[] = [];
  const m = (name: string, group: ApiGroup, result: unknown): RpcMethod => ({
    name,
    group,
    handler(params) {
      calls.push(name);
      return typeof result === 'function' ? (result as (p: readonly unknown[]) => unknown)(params) : result;
    },
  });
  return {
    calls,
    methods: [
      m('eth_blockNumber', 'ETH', '0x10'),
      m('eth_chainId', 'ETH', '0x539'),
      m('eth_getBalance', 'ETH', '0x0'),
      m('net_version', 'NET', '1337'),
      m('admin_peers', 'ADMIN', []),
      m('web3_sha3', 'WEB3', (p: readonly unknown[]) => p[0]),
    ],
  };
}

type Listener<K extends keyof SubscriptionSource> = Parameters<NonNullable<SubscriptionSource[K]>>[0];

export class TestSource extends EventEmitter implements SubscriptionSource {
  onNewHead(cb: Listener<'onNewHead'>) {
    this.on('head', cb);
    return () => this.off('head', cb);
  }
  onPendingTransaction(cb: Listener<'onPendingTransaction'>) {
    this.on('pending', cb);
    return () => this.off('pending', cb);
  }
  onDroppedTransaction(cb: Listener<'onDroppedTransaction'>) {
    this.on('dropped', cb);
    return () => this.off('dropped', cb);
  }
  onSyncing(cb: Listener<'onSyncing'>) {
    this.on('syncing', cb);
    return () => this.off('syncing', cb);
  }
  head(header: JsonObject, logs: JsonObject[] = [], removed: JsonObject[] = [], full?: () => JsonObject) {
    this.emit('head', {
      headerJson: () => JSON.stringify(header),
      withTransactionsJson: () => JSON.stringify(full ? full() : header),
      logs: () => logs,
      removedLogs: () => removed,
    });
  }
}

export interface Harness {
  server: WsServer;
  url: string;
  calls: string[];
  source: TestSource;
  subscriptions: SubscriptionManager;
  close(): Promise<void>;
}

export async function startHarness(
  overrides: Partial<WsServerOptions> & { auth?: RpcAuth; groups?: ApiGroup[] } = {},
): Promise<Harness> {
  const { methods, calls } = recordingMethods();
  const source = new TestSource();
  const subscriptions = new SubscriptionManager(source);
  const dispatcher = createDispatcher({
    methods,
    alwaysEnabled: subscriptionMethods,
    enabledGroups: overrides.groups ?? ['ETH', 'NET', 'WEB3', 'ADMIN'],
    maxBatchSize: 0,
  });
  const server = await startWsServer({
    host: '127.0.0.1',
    port: 0,
    dispatcher,
    services: {} as Services,
    maxFrameSize: 1024 * 1024,
    maxActiveConnections: 80,
    hostAllowlist: ['localhost', '127.0.0.1'],
    subscriptions,
    ...overrides,
  });
  return {
    server,
    url: `ws://127.0.0.1:${server.port}`,
    calls,
    source,
    subscriptions,
    async close() {
      await server.close();
      subscriptions.close();
    },
  };
}

/** A ws client that queues what it receives. */
export class Client {
  readonly received: unknown[] = [];
  private waiters: Array<(m: unknown) => void> = [];
  closed: Promise<{ code: number; reason: string }>;
  private nextId = 1;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const text = data.toString();
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = text;
      }
      const w = this.waiters.shift();
      if (w) w(value);
      else this.received.push(value);
    });
    this.closed = new Promise((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  static async connect(url: string, options: WebSocket.ClientOptions = {}): Promise<Client> {
    const ws = new WebSocket(url, options);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
    return new Client(ws);
  }

  // biome-ignore lint/suspicious/noExplicitAny: test reads JSON answers
  next(timeoutMs = 3000): Promise<any> {
    const queued = this.received.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        reject(new Error('no message'));
      }, timeoutMs);
      const done = (m: unknown) => {
        clearTimeout(timer);
        resolve(m);
      };
      this.waiters.push(done);
    });
  }

  /** Resolves true if nothing arrives within `ms`. */
  async silent(ms = 200): Promise<boolean> {
    try {
      const m = await this.next(ms);
      this.received.unshift(m);
      return false;
    } catch {
      return true;
    }
  }

  sendRaw(data: string | Buffer): void {
    this.ws.send(data);
  }

  // biome-ignore lint/suspicious/noExplicitAny: test reads JSON answers
  async call(method: string, params: unknown[] = []): Promise<any> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    // Notifications that arrive before the answer stay queued, in order, for next().
    const skipped: unknown[] = [];
    try {
      for (;;) {
        const m = await this.next();
        if (typeof m === 'object' && m !== null && (m as { id?: unknown }).id === id) return m;
        skipped.push(m);
      }
    } finally {
      this.received.unshift(...skipped);
    }
  }

  close(): void {
    this.ws.close();
  }
}

/** Opens a connection that the server is expected to refuse; resolves with the HTTP status. */
export function refusedUpgrade(
  url: string,
  options: WebSocket.ClientOptions = {},
): Promise<number | 'closed'> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, options);
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('error', () => resolve('closed'));
    ws.once('open', () => resolve(-1 as never));
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
