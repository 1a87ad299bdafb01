/**
 * The JSON-RPC HTTP listener on `node:http` (besu-facts.md §1.4). Per request, in Besu's order: Host
 * allowlist (403), CORS (403 or preflight 204), body size (413), then the routes: `POST /` JSON-RPC,
 * `GET /` 201, `GET /liveness`, `GET /readiness`, `POST /login`. Connections beyond the limit are closed
 * as they arrive. The JSON-RPC route does no work of its own beyond the auth gate: the dispatcher builds
 * the answer string and its status.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DispatchContext, Dispatcher, DispatchResult } from '../dispatch.js';
import { INTERNAL_ERROR, UNAUTHORIZED } from '../errors.js';
import type { AuthenticatedUser, RpcMethod } from '../methods/types.js';
import type { Services } from '../services.js';
import { createCorsPolicy, createHostCheck } from './http-policy.js';
import { prettyJson } from './pretty-json.js';

/** What `POST /login` answers. `statusMessage` replaces the usual reason phrase when set. */
export interface HttpLoginResponse {
  status: number;
  body: string;
  contentType?: string;
  statusMessage?: string;
}

/**
 * Authentication as the HTTP server sees it (implemented by `rpc/auth`'s `createAuth`).
 * - `authenticate` reads the `Authorization` header. `error: 'missing'` with `required` true turns the
 *   request away before it is parsed: 401 with id null. Any other outcome goes on to the dispatcher with
 *   the user (possibly none), where `permit` decides per method: -40100 with the request id.
 * - `login` serves `POST /login`; without it the route answers 400 `Authentication not enabled`.
 */
export interface HttpAuthHook {
  readonly required: boolean;
  login?(body: string): Promise<HttpLoginResponse>;
  authenticate(
    authorizationHeader: string | undefined,
  ): Promise<{ user?: AuthenticatedUser; error?: 'missing' | 'invalid' }>;
  permit?(user: AuthenticatedUser | undefined): (method: RpcMethod) => boolean;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  dispatcher: Dispatcher;
  services: Services;
  /** Bytes; a larger body is refused with 413. */
  maxRequestContentLength: number;
  /** `*` or `all` = any Host. */
  hostAllowlist: readonly string[];
  /** Empty = requests with an Origin header are refused; `*` or `all` = any origin. */
  corsOrigins: readonly string[];
  /** Connections beyond this are closed on arrival; 0 or less = no limit. */
  maxActiveConnections: number;
  /** Jackson-style pretty JSON responses (`--json-pretty-print-enabled`). */
  prettyJson?: boolean;
  auth?: HttpAuthHook;
  /** `GET /readiness`: true = 200 UP, false = 503 DOWN. Reads query parameters (minPeers, maxBlocksBehind). */
  readiness?: (queryParam: (name: string) => string | undefined) => boolean | Promise<boolean>;
  /** `engine` for the engine API port (same rules, different transport label for methods). */
  transport?: 'http' | 'engine';
}

export interface RunningHttpServer {
  /** The bound port (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

const HOST_NOT_AUTHORIZED = '{"message":"Host not authorized."}';
const CORS_REJECTED = 'CORS Rejected - Invalid origin';
const UNAUTHORIZED_BODY = `{"jsonrpc":"2.0","id":null,"error":{"code":${UNAUTHORIZED.code},"message":"${UNAUTHORIZED.message}"}}`;
const INTERNAL_ERROR_BODY = `{"jsonrpc":"2.0","id":null,"error":{"code":${INTERNAL_ERROR.code},"message":"${INTERNAL_ERROR.message}"}}`;
const NOT_FOUND_BODY = '<html><body><h1>Resource not found</h1></body></html>';
const HEALTH_UP = prettyJson({ status: 'UP' });
const HEALTH_DOWN = prettyJson({ status: 'DOWN' });
const JSON_TYPE = 'application/json';

/** Does an Accept header allow application/json (what Besu's `produces(application/json)` routes need)? */
function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept === '') return true;
  for (const range of accept.split(',')) {
    const type = (range.split(';')[0] as string).trim().toLowerCase();
    if (type === 'application/json' || type === '*/*' || type === 'application/*' || type === '*')
      return true;
  }
  return false;
}

/** Response headers as a flat `[name, value, name, value …]` list (the cheapest form for writeHead). */
type HeaderList = readonly string[];

export async function startHttpServer(opts: HttpServerOptions): Promise<RunningHttpServer> {
  const hostAllowed = createHostCheck(opts.hostAllowlist);
  const cors = createCorsPolicy(opts.corsOrigins);
  const maxBody = opts.maxRequestContentLength;
  const transport = opts.transport ?? 'http';
  const { dispatcher, auth } = opts;
  const pretty = opts.prettyJson === true;
  const baseContext: DispatchContext = { services: opts.services, transport };

  // Headers of the common answers, built once. `bare` = without Content-Type, for the answers Besu
  // writes without one.
  const bareHeaders: HeaderList = cors.vary ? ['Vary', 'origin'] : [];
  const jsonHeaders: HeaderList = ['Content-Type', JSON_TYPE, ...bareHeaders];
  const bareOf = (headers: HeaderList): HeaderList =>
    headers === jsonHeaders ? bareHeaders : withoutType(headers);

  function send(
    res: ServerResponse,
    status: number,
    body: string,
    headers: HeaderList,
    statusMessage?: string,
  ): void {
    if (res.destroyed) return;
    // An explicit length keeps Node from switching to chunked encoding (Besu sends Content-Length too).
    const list = [...headers, 'Content-Length', String(Buffer.byteLength(body))];
    if (statusMessage !== undefined) res.writeHead(status, statusMessage, list);
    else res.writeHead(status, list);
    res.end(body);
  }

  function sendResult(res: ServerResponse, result: DispatchResult, headers: HeaderList): void {
    let text = result.body ?? '';
    if (pretty && text !== '') text = prettyJson(JSON.parse(text));
    send(res, result.status, text, result.bareBody ? bareOf(headers) : headers);
  }

  function handleJsonRpc(
    req: IncomingMessage,
    res: ServerResponse,
    body: string,
    headers: HeaderList,
  ): void | Promise<void> {
    if (auth === undefined) {
      const result = dispatcher.dispatch(body, baseContext);
      if (result instanceof Promise) return result.then((r) => sendResult(res, r, headers));
      return sendResult(res, result, headers);
    }
    return auth.authenticate(req.headers.authorization).then(async ({ user, error }) => {
      if (error === 'missing' && auth.required) return send(res, 401, UNAUTHORIZED_BODY, bareOf(headers));
      const ctx: DispatchContext = {
        services: opts.services,
        transport,
        user,
        authRequired: auth.required,
        permit: auth.permit?.(user),
      };
      sendResult(res, await dispatcher.dispatch(body, ctx), headers);
    });
  }

  async function otherRoutes(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: string,
    body: string,
    headers: HeaderList,
  ): Promise<void> {
    const method = req.method;
    const bare = bareOf(headers);
    switch (path) {
      case '/':
        if (method === 'GET') return send(res, 201, '', bare);
        return send(res, 405, 'Method Not Allowed', bare);
      case '/liveness':
        if (method !== 'GET') return send(res, 405, 'Method Not Allowed', bare);
        return send(res, 200, HEALTH_UP, bare);
      case '/readiness': {
        if (method !== 'GET') return send(res, 405, 'Method Not Allowed', bare);
        const params = new URLSearchParams(query);
        const ready = opts.readiness ? await opts.readiness((name) => params.get(name) ?? undefined) : true;
        return send(res, ready ? 200 : 503, ready ? HEALTH_UP : HEALTH_DOWN, bare);
      }
      case '/login': {
        if (method !== 'POST') return send(res, 405, 'Method Not Allowed', bare);
        if (!acceptsJson(req.headers.accept)) return send(res, 406, 'Not Acceptable', bare);
        if (auth?.login === undefined) return send(res, 400, '', bare, 'Authentication not enabled');
        const answer = await auth.login(body);
        const loginHeaders = answer.contentType ? [...bare, 'Content-Type', answer.contentType] : bare;
        return send(res, answer.status, answer.body, loginHeaders, answer.statusMessage);
      }
      default:
        return send(res, 404, NOT_FOUND_BODY, [...bare, 'Content-Type', 'text/html; charset=utf-8']);
    }
  }

  function route(req: IncomingMessage, res: ServerResponse, body: string, headers: HeaderList): void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    let path = q < 0 ? url : url.slice(0, q);
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    if (path === '') path = '/';

    let pending: void | Promise<void>;
    try {
      if (path === '/' && req.method === 'POST') {
        pending = acceptsJson(req.headers.accept)
          ? handleJsonRpc(req, res, body, headers)
          : send(res, 406, 'Not Acceptable', bareOf(headers));
      } else {
        pending = otherRoutes(req, res, path, q < 0 ? '' : url.slice(q + 1), body, headers);
      }
    } catch (err) {
      pending = Promise.reject(err);
    }
    if (pending instanceof Promise) {
      pending.catch((err: unknown) => {
        // The dispatcher maps handler failures itself; this is a failure of the server code.
        console.error('HTTP JSON-RPC request failed', err);
        send(res, 200, INTERNAL_ERROR_BODY, headers);
      });
    }
  }

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    if (!hostAllowed(req.headers.host)) {
      send(res, 403, HOST_NOT_AUTHORIZED, ['Content-Type', 'application/json; charset=utf-8']);
      return;
    }

    let headers = jsonHeaders;
    const decision = cors.decide(
      req.method,
      req.headers.origin,
      req.headers['access-control-request-method'],
    );
    if (decision.kind !== 'none') {
      if (decision.kind === 'reject') {
        send(res, 403, CORS_REJECTED, [], CORS_REJECTED);
        return;
      }
      if (decision.kind === 'preflight') {
        send(res, 204, '', [
          'Access-Control-Allow-Origin',
          decision.allowOrigin,
          'Access-Control-Allow-Headers',
          cors.allowHeaders,
        ]);
        return;
      }
      headers = [...jsonHeaders, 'Access-Control-Allow-Origin', decision.allowOrigin];
    }

    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > maxBody) {
      tooLarge(res);
      return;
    }

    // Most bodies arrive in one chunk; keep that case free of copies.
    let first: Buffer | undefined;
    let chunks: Buffer[] | undefined;
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > maxBody) {
        refused = true;
        tooLarge(res);
        return;
      }
      if (first === undefined) first = chunk;
      else if (chunks === undefined) chunks = [first, chunk];
      else chunks.push(chunk);
    });
    req.on('end', () => {
      if (refused) return;
      const body =
        chunks !== undefined
          ? Buffer.concat(chunks, size).toString('utf8')
          : first
            ? first.toString('utf8')
            : '';
      route(req, res, body, headers);
    });
    req.on('error', () => {
      refused = true;
    });
  }

  function tooLarge(res: ServerResponse): void {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(413, ['Connection', 'close', 'Content-Length', '24']);
    res.end('Request Entity Too Large');
  }

  const server = createServer({ keepAlive: true }, onRequest);
  if (opts.maxActiveConnections > 0) server.maxConnections = opts.maxActiveConnections;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function withoutType(headers: HeaderList): HeaderList {
  const out: string[] = [];
  for (let i = 0; i < headers.length; i += 2) {
    if ((headers[i] as string).toLowerCase() !== 'content-type')
      out.push(headers[i] as string, headers[i + 1] as string);
  }
  return out;
}
