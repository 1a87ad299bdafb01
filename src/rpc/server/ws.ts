/**
 * The JSON-RPC WebSocket service (`--rpc-ws-*`), with Besu's observable behaviour:
 *
 * - One HTTP listener. WebSocket upgrades on any path become JSON-RPC connections; `POST /login`
 *   answers logins (each service signs with its own key, so WS needs a WS token); every other HTTP
 *   request gets 400 `Websocket endpoint can't handle HTTP requests`. A Host header off the allowlist
 *   gets 403 `{"message":"Host not authorized."}` for HTTP requests and a 403 handshake rejection.
 * - At most `maxActiveConnections` WebSocket connections are open at once. Further upgrade requests
 *   wait in a bounded queue (10× the limit) and are accepted, in order, as connections close; only when
 *   that queue is full is an upgrade answered 503. Request headers must arrive within 10 s and an HTTP
 *   request complete within 30 s, so slow senders cannot hold sockets.
 * - Frames: at most `maxFrameSize` payload bytes per frame and 4× that per message; beyond either the
 *   connection is closed with 1009 (message too big), and the oversized message is never executed.
 * - Messages are handled one at a time per connection, in order. Text or binary, same treatment. An
 *   empty message ⇒ -32600 (id null); text that is not a JSON object or array ⇒ -32603 (id null, not
 *   -32700 as on HTTP); a batch has no size limit and an empty batch answers `[]`.
 * - Authentication: the `Authorization: Bearer <jwt>` header of the upgrade request is the connection's
 *   token (there is no query-string form). The connection is accepted with or without a valid token,
 *   and, as Besu does (its WebSocketService re-authenticates the upgrade token for every frame), the
 *   token is checked again for every message: requests from a connection without a valid token — or
 *   whose token has expired since it connected — are answered -40100 Unauthorized, request by request
 *   and batch entry by batch entry, while the connection stays open. Subscriptions made while the token
 *   was valid keep delivering after it expires: Besu does not check notifications against the token,
 *   and neither does Alder.
 * - Slow readers: when the bytes queued for a connection (`bufferedAmount`) would pass
 *   `maxSendQueueBytes`, nothing more is queued and the connection is closed with 1008 `Send queue
 *   limit exceeded` (terminated outright if the close cannot get through in `sendQueueCloseGraceMs`).
 *   While a connection has many requests waiting to be handled, its socket stops being read.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { bearerToken, type RpcAuth } from '../auth/index.js';
import type { DispatchContext, Dispatcher, DispatchResult } from '../dispatch.js';
import { INTERNAL_ERROR, INVALID_REQUEST, type RpcErrorSpec } from '../errors.js';
import type { AuthenticatedUser, ConnectionContext } from '../methods/types.js';
import type { Services } from '../services.js';
import type { SubscriptionConnection, SubscriptionManager } from '../subscriptions/manager.js';
import { createHostCheck } from './http-policy.js';
import { CONTINUATION, FIN_CONTINUATION, frameOf, TEXT_FIRST, textFrame } from './wsFrame.js';

/** Streamed answers (traces, wide log queries) leave in frames of about this many characters. */
const STREAM_FRAME_CHARS = 64 * 1024;
const STREAM = { stream: true };
/** Close code when an answer fails after part of it was sent. */
const CLOSE_INTERNAL_ERROR = 1011;

export interface WsServerOptions {
  host: string;
  port: number;
  /** Built with this service's methods and groups, and no batch limit (WS batches have none). */
  dispatcher: Pick<Dispatcher, 'dispatch'>;
  services: Services;
  /** `--rpc-ws-max-frame-size` (Besu default 1 MiB); a message may span up to 4 frames' worth. */
  maxFrameSize: number;
  /** `--rpc-ws-max-active-connections` (Besu default 80). */
  maxActiveConnections: number;
  /** `--host-allowlist`; `*` or `all` allows any Host (same check as the HTTP server). */
  hostAllowlist: readonly string[];
  auth?: RpcAuth;
  /** The node-wide subscription manager; without it eth_subscribe fails. */
  subscriptions?: SubscriptionManager;
  /** Bytes that may wait in a connection's send queue before it is closed. Default 16 MiB. */
  maxSendQueueBytes?: number;
  /** How long a connection closed for a full send queue gets to complete the close. Default 5 s. */
  sendQueueCloseGraceMs?: number;
  /** Largest `POST /login` body accepted. Default 64 KiB. */
  maxLoginBodyBytes?: number;
  /** Upgrade requests that may wait for a free connection slot; default 10 × `maxActiveConnections`. */
  maxQueuedConnections?: number;
  /** Request headers must be complete this long after the connection opens (ms). Default 10 s. */
  headerTimeoutMs?: number;
  /**
   * Plain HTTP requests on the same port (the engine port serves JSON-RPC over both); without it they
   * get 400 `Websocket endpoint can't handle HTTP requests`. Called after the Host check.
   */
  httpRequest?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Decides an upgrade from its request (the engine port's JWT); false answers 403. */
  acceptUpgrade?: (req: IncomingMessage) => Promise<boolean>;
  /** Transport label of this server's requests (default `ws`). */
  transport?: 'ws' | 'engine';
}

export interface WsServer {
  readonly host: string;
  /** The bound port (useful with port 0). */
  readonly port: number;
  /** WebSocket connections being served (not counting ones we are closing). */
  connectionCount(): number;
  close(): Promise<void>;
}

export const DEFAULT_MAX_SEND_QUEUE_BYTES = 16 * 1024 * 1024;
export const CLOSE_MESSAGE_TOO_BIG = 1009;
export const CLOSE_SEND_QUEUE_FULL = 1008;
const PAUSE_AFTER_PENDING = 64;
const RESUME_BELOW_PENDING = 16;

const WHITESPACE_ONLY = /^[ \t\r\n]*$/;
const EMPTY_BATCH = /^[ \t\r\n]*\[[ \t\r\n]*\][ \t\r\n]*$/;
const HTTP_NOT_SUPPORTED = "Websocket endpoint can't handle HTTP requests";
const HOST_NOT_AUTHORIZED = '{"message":"Host not authorized."}';
const UPGRADE_QUEUE_FULL =
  'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n';

/** An upgrade request waiting for a connection slot. */
interface WaitingUpgrade {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
}

function errorResponse(error: RpcErrorSpec): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: error.code, message: error.message } });
}

/**
 * Follows the client's frame headers on the raw socket so a frame whose payload exceeds the limit is
 * caught even when the message as a whole would fit (`ws` only limits whole messages).
 */
class FrameSizeGuard {
  private readonly header = Buffer.alloc(14);
  private have = 0;
  private need = 2;
  private skip = 0;

  constructor(private readonly maxFrameSize: number) {}

  /** Feeds raw bytes; false once a frame header announces an oversized payload. */
  push(chunk: Buffer): boolean {
    let i = 0;
    while (i < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i);
        this.skip -= n;
        i += n;
        continue;
      }
      this.header[this.have++] = chunk[i++] as number;
      if (this.have === 2) {
        const len7 = (this.header[1] as number) & 0x7f;
        const masked = ((this.header[1] as number) & 0x80) !== 0;
        this.need = 2 + (len7 === 126 ? 2 : len7 === 127 ? 8 : 0) + (masked ? 4 : 0);
      }
      if (this.have >= 2 && this.have === this.need) {
        const len7 = (this.header[1] as number) & 0x7f;
        const length =
          len7 < 126
            ? len7
            : len7 === 126
              ? this.header.readUInt16BE(2)
              : this.header.readUInt32BE(2) * 2 ** 32 + this.header.readUInt32BE(6);
        if (length > this.maxFrameSize) return false;
        this.skip = length;
        this.have = 0;
        this.need = 2;
      }
    }
    return true;
  }
}

interface Connection extends SubscriptionConnection {
  readonly ws: WebSocket;
  /** The upgraded socket under `ws`: answers and notifications are written to it as whole frames. */
  readonly socket: Duplex;
  readonly token: string | undefined;
  /** Set once the connection is being closed by us; nothing more is executed or sent. */
  closing: boolean;
  pending: number;
  paused: boolean;
  chain: Promise<void>;
  /** The request context when authentication is off (the same for every message). */
  context: DispatchContext;
  /** While a fragmented answer is being sent: the messages that wait for it to finish. */
  streaming?: string[];
}

export async function startWsServer(opts: WsServerOptions): Promise<WsServer> {
  const maxSendQueue = opts.maxSendQueueBytes ?? DEFAULT_MAX_SEND_QUEUE_BYTES;
  const closeGrace = opts.sendQueueCloseGraceMs ?? 5000;
  const maxLoginBody = opts.maxLoginBodyBytes ?? 64 * 1024;
  const auth = opts.auth?.enabled ? opts.auth : undefined;
  const hostAllowed = createHostCheck(opts.hostAllowlist);
  const transport = opts.transport ?? 'ws';
  const connections = new Set<Connection>();
  const sockets = new Set<Duplex>();
  let nextConnectionId = 1;

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: opts.maxFrameSize * 4,
    perMessageDeflate: false,
    clientTracking: false,
  });

  const headerTimeout = opts.headerTimeoutMs ?? 10_000;
  const server: Server = createServer(
    { headersTimeout: headerTimeout, requestTimeout: 30_000, connectionsCheckingInterval: 500 },
    (req, res) => {
      handleHttp(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    },
  );
  const limit = opts.maxActiveConnections;
  const maxQueued = opts.maxQueuedConnections ?? Math.max(0, limit) * 10;
  const waiting: WaitingUpgrade[] = [];
  /** Upgrades accepted and not yet closed (counted from the accept, before the handshake finishes). */
  let admitted = 0;
  if (limit > 0) server.maxConnections = limit + maxQueued + 160;

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  /** A connection slot freed: admit the oldest waiting upgrade whose client is still there. */
  function admitNext(): void {
    while (waiting.length > 0 && (limit <= 0 || admitted < limit)) {
      const next = waiting.shift() as WaitingUpgrade;
      if (next.socket.destroyed) continue;
      upgrade(next.req, next.socket, next.head);
    }
  }

  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    admitted++;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      admitted--;
      admitNext();
    };
    socket.once('close', release);
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, socket, req));
  }

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostAllowed(req.headers.host)) {
      res.writeHead(403, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(HOST_NOT_AUTHORIZED);
      req.resume();
      return;
    }
    if (opts.httpRequest) return opts.httpRequest(req, res);
    let path = (req.url ?? '/').split('?')[0] as string;
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    if (req.method === 'POST' && path === '/login') {
      const body = await readBody(req, maxLoginBody);
      if (body === undefined) {
        res.writeHead(413, { Connection: 'close' });
        res.end();
        return;
      }
      const answer = opts.auth
        ? await opts.auth.login(body)
        : { status: 400, body: '', statusMessage: 'Authentication not enabled' };
      const headers: Record<string, string> = {};
      if (answer.contentType) headers['Content-Type'] = answer.contentType;
      if (answer.statusMessage) res.writeHead(answer.status, answer.statusMessage, headers);
      else res.writeHead(answer.status, headers);
      res.end(answer.body);
      return;
    }
    req.resume();
    res.writeHead(400);
    res.end(HTTP_NOT_SUPPORTED);
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (!hostAllowed(req.headers.host)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    if (opts.acceptUpgrade) {
      const check = opts.acceptUpgrade;
      check(req).then(
        (ok) => {
          if (ok) admit(req, socket, head);
          else socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        },
        () => socket.destroy(),
      );
      return;
    }
    admit(req, socket, head);
  });

  function admit(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (limit <= 0 || admitted < limit) {
      upgrade(req, socket, head);
      return;
    }
    if (waiting.length >= maxQueued) {
      socket.end(UPGRADE_QUEUE_FULL);
      return;
    }
    const entry: WaitingUpgrade = { req, socket, head };
    waiting.push(entry);
    socket.once('close', () => {
      const i = waiting.indexOf(entry);
      if (i >= 0) waiting.splice(i, 1);
    });
  }

  function accept(ws: WebSocket, socket: Duplex, req: IncomingMessage): void {
    const id = String(nextConnectionId++);
    const conn: Connection = {
      id,
      ws,
      socket,
      token: bearerToken(req.headers.authorization),
      closing: false,
      pending: 0,
      paused: false,
      chain: Promise.resolve(),
      context: { services: opts.services, transport },
      send: (message) => send(conn, message),
    };
    // The node's services, shared; beside them the connection, for eth_subscribe / eth_unsubscribe.
    conn.context = { services: opts.services, transport, connection: connectionContext(conn) };
    connections.add(conn);

    const guard = new FrameSizeGuard(opts.maxFrameSize);
    socket.prependListener('data', (chunk: Buffer) => {
      if (!conn.closing && !guard.push(chunk))
        closeConnection(conn, CLOSE_MESSAGE_TOO_BIG, 'Max frame size exceeded');
    });

    ws.on('message', (data: RawData) => enqueue(conn, toBuffer(data)));
    ws.on('error', () => {
      // ws closes the connection itself (e.g. 1009 for a message over the limit); just stop working.
      conn.closing = true;
    });
    ws.on('close', () => {
      conn.closing = true;
      connections.delete(conn);
      opts.subscriptions?.removeConnection(conn);
    });
  }

  function enqueue(conn: Connection, data: Buffer): void {
    if (conn.closing) return;
    if (conn.pending === 0) {
      // Nothing queued ahead of this message: handle it now, without a trip through the promise chain
      // (most methods answer synchronously). Order is kept: later messages queue behind it if it waits.
      let waiting: Promise<void> | undefined;
      try {
        waiting = handleMessage(conn, data);
      } catch {
        send(conn, errorResponse(INTERNAL_ERROR));
        return;
      }
      if (waiting !== undefined) track(conn, waiting);
      return;
    }
    track(
      conn,
      conn.chain.then(() => (conn.closing ? undefined : handleMessage(conn, data))),
    );
  }

  /** Queues work behind the connection's earlier messages and pauses reading when too much waits. */
  function track(conn: Connection, work: Promise<void>): void {
    conn.pending++;
    if (!conn.paused && conn.pending >= PAUSE_AFTER_PENDING) {
      conn.paused = true;
      conn.ws.pause();
    }
    conn.chain = work
      .catch(() => {
        send(conn, errorResponse(INTERNAL_ERROR));
      })
      .finally(() => {
        conn.pending--;
        if (conn.paused && conn.pending <= RESUME_BELOW_PENDING) {
          conn.paused = false;
          conn.ws.resume();
        }
      });
  }

  /** Answers one message; returns a promise only when the answer is not ready at once. */
  function handleMessage(conn: Connection, data: Buffer): Promise<void> | undefined {
    // The dispatcher applies the WebSocket parse rules (unparsable or non-object/array ⇒ -32603); the
    // cases where Besu's WebSocket handler differs from it are settled here: only a truly empty frame
    // is -32600 (whitespace is unparsable text), and an empty batch answers an empty array.
    if (data.length === 0) {
      send(conn, errorResponse(INVALID_REQUEST));
      return undefined;
    }
    const text = data.toString('utf8');
    const first = text.charCodeAt(0);
    // Only text starting with whitespace or `[` can be blank or an empty batch.
    if (first <= 0x20 || first === 0x5b) {
      if (WHITESPACE_ONLY.test(text)) {
        send(conn, errorResponse(INTERNAL_ERROR));
        return undefined;
      }
      if (EMPTY_BATCH.test(text)) {
        send(conn, '[]');
        return undefined;
      }
    }
    if (auth) {
      return requestContext(conn).then((ctx) =>
        conn.closing ? undefined : answer(conn, opts.dispatcher.dispatch(text, ctx, STREAM)),
      );
    }
    return answer(conn, opts.dispatcher.dispatch(text, conn.context, STREAM));
  }

  function answer(
    conn: Connection,
    result: DispatchResult | Promise<DispatchResult>,
  ): Promise<void> | undefined {
    if (result instanceof Promise) return result.then((r) => sendResult(conn, r));
    return sendResult(conn, result);
  }

  function sendResult(conn: Connection, result: DispatchResult): Promise<void> | undefined {
    if (result.stream !== undefined) return sendStream(conn, result.stream);
    if (result.body !== undefined && result.body !== '') send(conn, result.body);
    return undefined;
  }

  /**
   * A streamed answer as one fragmented message: frames of up to STREAM_FRAME_CHARS leave as the text
   * comes, waiting for the socket to drain. Other messages for the connection (notifications) wait
   * until the last frame is out, as fragments of one message cannot be interleaved with another. A
   * failure part-way closes the connection (the message cannot be completed).
   */
  async function sendStream(conn: Connection, stream: NonNullable<DispatchResult['stream']>): Promise<void> {
    conn.streaming = [];
    let pending = '';
    let started = false;
    const out = (head: number): boolean => {
      const text = pending;
      pending = '';
      return conn.socket.write(frameOf(text, head));
    };
    const write = (text: string): Promise<void> | undefined => {
      if (conn.closing || conn.ws.readyState !== conn.ws.OPEN) throw new Error('connection closed');
      pending += text;
      if (pending.length < STREAM_FRAME_CHARS) return undefined;
      const flushed = out(started ? CONTINUATION : TEXT_FIRST);
      started = true;
      if (flushed) return undefined;
      return new Promise<void>((resolve) => {
        const done = (): void => {
          conn.socket.off('drain', done);
          conn.socket.off('close', done);
          resolve();
        };
        conn.socket.once('drain', done);
        conn.socket.once('close', done);
      });
    };
    try {
      await stream(write);
      if (!conn.closing) {
        if (started) out(FIN_CONTINUATION);
        else if (pending !== '') conn.socket.write(textFrame(pending));
      }
    } catch {
      if (!conn.closing) closeConnection(conn, CLOSE_INTERNAL_ERROR, 'Answer failed part-way');
    } finally {
      const held = conn.streaming;
      conn.streaming = undefined;
      for (const message of held) send(conn, message);
    }
  }

  /** Who is asking, decided afresh for every message (the token may have expired since the upgrade). */
  async function requestContext(conn: Connection): Promise<DispatchContext> {
    if (!auth) return conn.context;
    let user: AuthenticatedUser | undefined;
    if (conn.token !== undefined) {
      const check = await auth.verifyToken(conn.token);
      if (check.ok) user = check.user;
    }
    return {
      services: opts.services,
      transport: 'ws',
      connection: conn.context.connection,
      ...(user ? { user } : {}),
      authRequired: false,
      permit: auth.permit(user),
    };
  }

  function connectionContext(conn: Connection): ConnectionContext {
    return opts.subscriptions
      ? { connection: conn, subscriptions: opts.subscriptions }
      : { connection: conn };
  }

  function send(conn: Connection, message: string): void {
    if (conn.closing || conn.ws.readyState !== conn.ws.OPEN) return;
    if (conn.streaming !== undefined) {
      conn.streaming.push(message);
      return;
    }
    if (conn.ws.bufferedAmount + message.length > maxSendQueue) {
      closeConnection(conn, CLOSE_SEND_QUEUE_FULL, 'Send queue limit exceeded');
      return;
    }
    // A whole frame per write. `ws` itself only ever writes whole frames too (close, pong), and without
    // compression it never holds one back, so frames from both sides cannot interleave.
    conn.socket.write(textFrame(message));
  }

  function closeConnection(conn: Connection, code: number, reason: string): void {
    if (conn.closing) return;
    conn.closing = true;
    opts.subscriptions?.removeConnection(conn);
    conn.ws.close(code, reason);
    const timer = setTimeout(() => conn.ws.terminate(), closeGrace);
    timer.unref();
    conn.ws.once('close', () => clearTimeout(timer));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : opts.port;

  return {
    host: opts.host,
    port,
    connectionCount: () => {
      let n = 0;
      for (const conn of connections) if (!conn.closing) n++;
      return n;
    },
    async close() {
      for (const conn of connections) {
        conn.closing = true;
        opts.subscriptions?.removeConnection(conn);
        conn.ws.terminate();
      }
      connections.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      wss.close();
    },
  };
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** The request body, or undefined once it passes `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}
