/**
 * The JSON-RPC HTTP listener on `node:http` (besu-facts.md §1.4). Per request, in Besu's order: Host
 * allowlist (403), CORS (403 or preflight 204), body size (413), then the routes: `POST /` JSON-RPC,
 * `GET /` 201, `GET /liveness`, `GET /readiness`, `POST /login`. At most `maxActiveConnections`
 * requests are served at once; more wait in a bounded queue and only a full queue answers 503 (see
 * `http1.ts`, which also times out slow senders). The JSON-RPC route does no work of its own beyond the auth gate: the dispatcher builds
 * the answer string and its status.
 */
import type { DispatchContext, Dispatcher, DispatchResult } from '../dispatch.js';
import { INTERNAL_ERROR, logInternalError, UNAUTHORIZED } from '../errors.js';
import type { AuthenticatedUser, RpcMethod } from '../methods/types.js';
import type { Services } from '../services.js';
import { acceptsJson, createCorsPolicy, createHostCheck } from './http-policy.js';
import { type Http1Handler, type Http1Request, type Http1Response, startHttp1Server } from './http1.js';
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
  /** Requests served at once (more wait in a queue of 10× this, then 503); 0 or less = no limit. */
  maxActiveConnections: number;
  /** Requests that may wait for a slot; default 10 × `maxActiveConnections`. */
  maxQueuedConnections?: number;
  /** Headers must be complete this long after a request's first byte (ms); default 10 s. */
  headerTimeoutMs?: number;
  /** A body must be complete this long after its headers (ms); default 30 s. */
  bodyTimeoutMs?: number;
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
/** Keep-alive connections with no request in progress are closed after this long. */
const IDLE_TIMEOUT_MS = 60_000;

/** Response headers as a flat `[name, value, name, value …]` list (the cheapest form for writeHead). */
type HeaderList = readonly string[];

export async function startHttpServer(opts: HttpServerOptions): Promise<RunningHttpServer> {
  const hostAllowed = createHostCheck(opts.hostAllowlist);
  const cors = createCorsPolicy(opts.corsOrigins);
  const transport = opts.transport ?? 'http';
  const { dispatcher, auth } = opts;
  const pretty = opts.prettyJson === true;
  const baseContext: DispatchContext = { services: opts.services, transport };
  // Batch answers leave piece by piece (bounded memory), except when they are to be pretty-printed.
  const streamBatches = { stream: !pretty };

  // Headers of the common answers, built once. `bare` = without Content-Type, for the answers Besu
  // writes without one.
  const bareHeaders: HeaderList = cors.vary ? ['Vary', 'origin'] : [];
  const jsonHeaders: HeaderList = ['Content-Type', JSON_TYPE, ...bareHeaders];
  const bareOf = (headers: HeaderList): HeaderList =>
    headers === jsonHeaders ? bareHeaders : withoutType(headers);
  /** Headers of a request's answers, decided by `head` (CORS) and used again by `request`. */
  const answerHeaders = new WeakMap<Http1Request, HeaderList>();

  const answer = (
    status: number,
    body: string,
    headers: HeaderList,
    statusMessage?: string,
  ): Http1Response =>
    statusMessage === undefined ? { status, body, headers } : { status, body, headers, statusMessage };

  function resultAnswer(result: DispatchResult, headers: HeaderList): Http1Response {
    if (result.stream !== undefined)
      return { status: result.status, body: '', headers, stream: result.stream };
    let text = result.body ?? '';
    if (pretty && text !== '') text = prettyJson(JSON.parse(text));
    else if (result.ascii === true)
      return {
        status: result.status,
        body: text,
        headers: result.bareBody ? bareOf(headers) : headers,
        ascii: true,
      };
    return answer(result.status, text, result.bareBody ? bareOf(headers) : headers);
  }

  function handleJsonRpc(
    req: Http1Request,
    body: string,
    headers: HeaderList,
  ): Http1Response | Promise<Http1Response> {
    if (auth === undefined) {
      const result = dispatcher.dispatch(body, baseContext, streamBatches);
      if (result instanceof Promise) return result.then((r) => resultAnswer(r, headers));
      return resultAnswer(result, headers);
    }
    return auth.authenticate(req.headers.authorization).then(async ({ user, error }) => {
      if (error === 'missing' && auth.required) return answer(401, UNAUTHORIZED_BODY, bareOf(headers));
      const ctx: DispatchContext = {
        services: opts.services,
        transport,
        user,
        authRequired: auth.required,
        permit: auth.permit?.(user),
      };
      return resultAnswer(await dispatcher.dispatch(body, ctx, streamBatches), headers);
    });
  }

  async function otherRoutes(
    req: Http1Request,
    path: string,
    query: string,
    body: string,
    headers: HeaderList,
  ): Promise<Http1Response> {
    const method = req.method;
    const bare = bareOf(headers);
    switch (path) {
      case '/':
        if (method === 'GET' || method === 'HEAD') return answer(201, '', bare);
        return answer(405, 'Method Not Allowed', bare);
      case '/liveness':
        if (method !== 'GET' && method !== 'HEAD') return answer(405, 'Method Not Allowed', bare);
        return answer(200, HEALTH_UP, bare);
      case '/readiness': {
        if (method !== 'GET' && method !== 'HEAD') return answer(405, 'Method Not Allowed', bare);
        const params = new URLSearchParams(query);
        const ready = opts.readiness ? await opts.readiness((name) => params.get(name) ?? undefined) : true;
        return answer(ready ? 200 : 503, ready ? HEALTH_UP : HEALTH_DOWN, bare);
      }
      case '/login': {
        if (method !== 'POST') return answer(405, 'Method Not Allowed', bare);
        if (!acceptsJson(req.headers.accept)) return answer(406, 'Not Acceptable', bare);
        if (auth?.login === undefined) return answer(400, '', bare, 'Authentication not enabled');
        const reply = await auth.login(body);
        const loginHeaders = reply.contentType ? [...bare, 'Content-Type', reply.contentType] : bare;
        return answer(reply.status, reply.body, loginHeaders, reply.statusMessage);
      }
      default:
        return answer(404, NOT_FOUND_BODY, [...bare, 'Content-Type', 'text/html; charset=utf-8']);
    }
  }

  const handler: Http1Handler = {
    // Besu's order: Host allowlist (403), CORS (403 or preflight 204), then the body size (413).
    head(req) {
      if (!hostAllowed(req.headers.host))
        return answer(403, HOST_NOT_AUTHORIZED, ['Content-Type', 'application/json; charset=utf-8']);
      const decision = cors.decide(
        req.method,
        req.headers.origin,
        req.headers['access-control-request-method'],
      );
      if (decision.kind === 'none') return undefined;
      if (decision.kind === 'reject') return answer(403, CORS_REJECTED, [], CORS_REJECTED);
      if (decision.kind === 'preflight')
        return answer(204, '', [
          'Access-Control-Allow-Origin',
          decision.allowOrigin,
          'Access-Control-Allow-Headers',
          cors.allowHeaders,
        ]);
      answerHeaders.set(req, [...jsonHeaders, 'Access-Control-Allow-Origin', decision.allowOrigin]);
      return undefined;
    },
    request(req, body) {
      const headers = answerHeaders.get(req) ?? jsonHeaders;
      const url = req.url;
      const q = url.indexOf('?');
      let path = q < 0 ? url : url.slice(0, q);
      if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
      if (path === '') path = '/';
      if (path === '/' && req.method === 'POST') {
        return acceptsJson(req.headers.accept)
          ? handleJsonRpc(req, body, headers)
          : answer(406, 'Not Acceptable', bareOf(headers));
      }
      return otherRoutes(req, path, q < 0 ? '' : url.slice(q + 1), body, headers);
    },
    onError(err) {
      // The dispatcher maps handler failures itself; this is a failure of the server code.
      logInternalError(err, 'HTTP JSON-RPC request');
      return answer(200, INTERNAL_ERROR_BODY, jsonHeaders);
    },
  };

  const server = await startHttp1Server({
    host: opts.host,
    port: opts.port,
    maxBodyBytes: opts.maxRequestContentLength,
    maxConnections: opts.maxActiveConnections,
    ...(opts.maxQueuedConnections !== undefined ? { maxQueued: opts.maxQueuedConnections } : {}),
    ...(opts.headerTimeoutMs !== undefined ? { headerTimeoutMs: opts.headerTimeoutMs } : {}),
    ...(opts.bodyTimeoutMs !== undefined ? { bodyTimeoutMs: opts.bodyTimeoutMs } : {}),
    handler,
    idleTimeoutMs: IDLE_TIMEOUT_MS,
  });
  return server;
}

function withoutType(headers: HeaderList): HeaderList {
  const out: string[] = [];
  for (let i = 0; i < headers.length; i += 2) {
    if ((headers[i] as string).toLowerCase() !== 'content-type')
      out.push(headers[i] as string, headers[i + 1] as string);
  }
  return out;
}
