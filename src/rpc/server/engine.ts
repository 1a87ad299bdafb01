/**
 * The engine API listener (`--engine-rpc-port`): JSON-RPC over HTTP and WebSocket on one port, for the
 * consensus client. It is the WebSocket server with plain HTTP requests answered too: `POST /` runs
 * the request, other paths 404. Host allowlist first (`--engine-host-allowlist`, 403); then the JWT:
 * an HTTP request without a valid token gets 401, a WebSocket upgrade without one 403.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { verifyEngineToken } from '../auth/engineJwt.js';
import type { DispatchContext, Dispatcher } from '../dispatch.js';
import { UNAUTHORIZED } from '../errors.js';
import type { Services } from '../services.js';
import { readBody, startWsServer, type WsServer } from './ws.js';

export interface EngineServerOptions {
  host: string;
  port: number;
  dispatcher: Dispatcher;
  services: Services;
  hostAllowlist: readonly string[];
  /** The shared secret; undefined with `--engine-jwt-disabled`. */
  jwtKey: Uint8Array | undefined;
  maxRequestContentLength: number;
}

const UNAUTHORIZED_BODY = `{"jsonrpc":"2.0","id":null,"error":{"code":${UNAUTHORIZED.code},"message":"${UNAUTHORIZED.message}"}}`;

export async function startEngineServer(opts: EngineServerOptions): Promise<WsServer> {
  const ctx: DispatchContext = { services: opts.services, transport: 'engine' };
  const authorized = (req: IncomingMessage): Promise<boolean> =>
    opts.jwtKey === undefined
      ? Promise.resolve(true)
      : verifyEngineToken(req.headers.authorization, opts.jwtKey);

  async function httpRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'POST' || (path !== '/' && path !== '')) {
      req.resume();
      res.writeHead(req.method === 'GET' && path === '/' ? 201 : 404);
      res.end();
      return;
    }
    if (!(await authorized(req))) {
      req.resume();
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end(UNAUTHORIZED_BODY);
      return;
    }
    const body = await readBody(req, opts.maxRequestContentLength);
    if (body === undefined) {
      res.writeHead(413, { Connection: 'close' });
      res.end();
      return;
    }
    const result = await opts.dispatcher.dispatch(body, ctx);
    const headers: Record<string, string> = result.bareBody ? {} : { 'Content-Type': 'application/json' };
    res.writeHead(result.status, headers);
    res.end(result.body ?? '');
  }

  return startWsServer({
    host: opts.host,
    port: opts.port,
    dispatcher: opts.dispatcher,
    services: opts.services,
    maxFrameSize: opts.maxRequestContentLength,
    maxActiveConnections: 80,
    hostAllowlist: opts.hostAllowlist,
    httpRequest,
    acceptUpgrade: authorized,
    transport: 'engine',
  });
}
