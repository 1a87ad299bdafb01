/**
 * The GraphQL HTTP listener (besu-facts §1.5), on the same small HTTP/1.1 server and request gates as
 * JSON-RPC. Per request, in Besu's order: Host allowlist (403), CORS (403 or preflight 204), body size
 * (413); then the routes: `GET|POST /` redirect to `/graphql` (308); `GET|POST /graphql` (also
 * `/graphql/`) run a query — GET from the `query`, `operationName` and `variables` parameters, POST
 * from a JSON body `{query, operationName, variables}` when the content type is application/json,
 * otherwise the whole body is the query; any other method 405. No authentication, as Besu.
 */
import { logger } from '../log.js';
import { acceptsJson, createCorsPolicy, createHostCheck } from '../rpc/server/http-policy.js';
import {
  type Http1Handler,
  type Http1Request,
  type Http1Response,
  startHttp1Server,
} from '../rpc/server/http1.js';
import { prettyJson } from '../rpc/server/pretty-json.js';
import type { Services } from '../rpc/services.js';
import { type GraphQLAnswer, type GraphQLRequest, runGraphQL, TIMEOUT_SECONDS } from './execute.js';

export interface GraphQLServerOptions {
  host: string;
  port: number;
  services: Services;
  /** `*` or `all` = any Host. */
  hostAllowlist: readonly string[];
  /** Empty = requests with an Origin header are refused; `*` or `all` = any origin. */
  corsOrigins: readonly string[];
  /** Bytes; a larger body is refused with 413. */
  maxRequestContentLength: number;
  /** Seconds before a request is answered 504 (default 30, Besu's). */
  timeoutSeconds?: number;
  /** List items one answer may hold (default MAX_LIST_ITEMS). */
  maxListItems?: number;
}

export interface RunningGraphQLServer {
  port: number;
  close(): Promise<void>;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const HOST_NOT_AUTHORIZED = '{"message":"Host not authorized."}';
const CORS_REJECTED = 'CORS Rejected - Invalid origin';
const NOT_FOUND_BODY = '<html><body><h1>Resource not found</h1></body></html>';
const IDLE_TIMEOUT_MS = 60_000;

/** A request the endpoint cannot read (bad JSON body or variables): 400 with the reason. */
class RequestFormatError extends Error {}

function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && (value.split(';')[0] as string).trim().toLowerCase() === 'application/json';
}

function parseVariables(value: unknown): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    try {
      return parseVariables(JSON.parse(value));
    } catch (err) {
      if (err instanceof RequestFormatError) throw err;
      throw new RequestFormatError(`Invalid variables: ${(err as Error).message}`);
    }
  }
  if (typeof value !== 'object' || Array.isArray(value))
    throw new RequestFormatError('Invalid variables: not an object');
  return value as Record<string, unknown>;
}

function optionalString(value: unknown, what: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new RequestFormatError(`Invalid ${what}: not a string`);
  return value;
}

/** The request as GET parameters or a POST body. */
export function readRequest(
  method: string,
  query: string,
  contentType: string | undefined,
  body: string,
): GraphQLRequest {
  if (method === 'GET') {
    const params = new URLSearchParams(query);
    return {
      query: params.get('query') ?? '',
      operationName: params.get('operationName'),
      variables: parseVariables(params.get('variables')),
    };
  }
  if (isJsonContentType(contentType)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.trim());
    } catch (err) {
      throw new RequestFormatError(`Invalid JSON body: ${(err as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new RequestFormatError('Invalid JSON body: not an object');
    }
    const obj = parsed as Record<string, unknown>;
    return {
      query: optionalString(obj.query, 'query') ?? '',
      operationName: optionalString(obj.operationName, 'operationName'),
      variables: parseVariables(obj.variables),
    };
  }
  return { query: body.trim(), operationName: null, variables: null };
}

export async function startGraphQLServer(opts: GraphQLServerOptions): Promise<RunningGraphQLServer> {
  const log = logger('graphql');
  const hostAllowed = createHostCheck(opts.hostAllowlist);
  const cors = createCorsPolicy(opts.corsOrigins);
  const timeoutMs = (opts.timeoutSeconds ?? TIMEOUT_SECONDS) * 1000;
  const vary: readonly string[] = cors.vary ? ['Vary', 'origin'] : [];
  const jsonHeaders: readonly string[] = ['Content-Type', JSON_TYPE, ...vary];
  const answerHeaders = new WeakMap<Http1Request, readonly string[]>();

  function timeout(): Promise<GraphQLAnswer> {
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve({ status: 504 }), timeoutMs);
      t.unref();
    });
  }

  async function handleQuery(
    req: Http1Request,
    query: string,
    body: string,
    headers: readonly string[],
  ): Promise<Http1Response> {
    let request: GraphQLRequest;
    try {
      request = readRequest(req.method, query, req.headers['content-type'], body);
    } catch (err) {
      if (!(err instanceof RequestFormatError)) throw err;
      return { status: 400, headers, body: prettyJson({ errors: [{ message: err.message }] }) };
    }
    const answer = await Promise.race([
      runGraphQL(opts.services, request, { maxItems: opts.maxListItems, timeoutMs }),
      timeout(),
    ]);
    if (answer.status === 504 || answer.body === undefined) {
      return { status: 504, headers: vary, body: 'Gateway Timeout' };
    }
    return { status: answer.status, headers, body: prettyJson(answer.body) };
  }

  const handler: Http1Handler = {
    head(req) {
      if (!hostAllowed(req.headers.host)) {
        return { status: 403, headers: ['Content-Type', JSON_TYPE], body: HOST_NOT_AUTHORIZED };
      }
      const decision = cors.decide(
        req.method,
        req.headers.origin,
        req.headers['access-control-request-method'],
      );
      if (decision.kind === 'none') return undefined;
      if (decision.kind === 'reject')
        return { status: 403, headers: [], body: CORS_REJECTED, statusMessage: CORS_REJECTED };
      if (decision.kind === 'preflight') {
        return {
          status: 204,
          headers: [
            'Access-Control-Allow-Origin',
            decision.allowOrigin,
            'Access-Control-Allow-Headers',
            cors.allowHeaders,
          ],
          body: '',
        };
      }
      answerHeaders.set(req, [...jsonHeaders, 'Access-Control-Allow-Origin', decision.allowOrigin]);
      return undefined;
    },
    request(req, body) {
      const headers = answerHeaders.get(req) ?? jsonHeaders;
      const bareHeaders = headers === jsonHeaders ? vary : withoutType(headers);
      const url = req.url;
      const q = url.indexOf('?');
      let path = q < 0 ? url : url.slice(0, q);
      if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
      const method = req.method;
      if (path === '/') {
        if (method === 'GET' || method === 'POST') {
          return { status: 308, headers: [...bareHeaders, 'Location', '/graphql'], body: '' };
        }
        return { status: 405, headers: bareHeaders, body: 'Method Not Allowed' };
      }
      if (path === '/graphql') {
        if (method !== 'GET' && method !== 'POST') {
          return { status: 405, headers: bareHeaders, body: 'Method Not Allowed' };
        }
        if (!acceptsJson(req.headers.accept))
          return { status: 406, headers: bareHeaders, body: 'Not Acceptable' };
        return handleQuery(req, q < 0 ? '' : url.slice(q + 1), body, headers);
      }
      return {
        status: 404,
        headers: [...bareHeaders, 'Content-Type', 'text/html; charset=utf-8'],
        body: NOT_FOUND_BODY,
      };
    },
    onError(err) {
      log.error({ err }, 'GraphQL request failed');
      return {
        status: 500,
        headers: jsonHeaders,
        body: prettyJson({ errors: [{ message: 'Internal error' }] }),
      };
    },
  };

  return startHttp1Server({
    host: opts.host,
    port: opts.port,
    maxBodyBytes: opts.maxRequestContentLength,
    maxConnections: 0,
    handler,
    idleTimeoutMs: IDLE_TIMEOUT_MS,
  });
}

function withoutType(headers: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < headers.length; i += 2) {
    if ((headers[i] as string).toLowerCase() !== 'content-type')
      out.push(headers[i] as string, headers[i + 1] as string);
  }
  return out;
}
