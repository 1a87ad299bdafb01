/**
 * Authentication for one JSON-RPC service (the HTTP port or the WS port; each has its own instance and,
 * in login mode, its own signing key). Built once at startup by `createAuth`, which refuses a bad
 * configuration with the operator-facing message Besu prints.
 */
import type { AuthenticatedUser, RpcMethod } from '../methods/types.js';
import {
  AuthConfigError,
  type AuthTransportLabel,
  authenticateUser,
  validateCredentialsFile,
} from './credentials.js';
import { isPermitted } from './permissions.js';
import {
  type ClockOptions,
  createLoginTokenService,
  loadExternalTokenVerifier,
  type TokenCheck,
  type TokenVerifier,
} from './tokens.js';

export { AuthConfigError } from './credentials.js';
export { hashPassword, verifyPassword } from './password.js';
export { isPermitted, permissionStrings } from './permissions.js';
export type { JwtAlgorithm, TokenCheck } from './tokens.js';

export interface AuthOptions extends ClockOptions {
  enabled: boolean;
  credentialsFile?: string;
  jwtPublicKeyFile?: string;
  jwtAlgorithm?: string;
  /** `--rpc-{http,ws}-api-methods-no-auth`: full method names callable without a token. */
  noAuthMethods?: readonly string[];
  /** Which service this is; only changes the wording of startup errors. Default HTTP. */
  transport?: AuthTransportLabel;
}

/** What `POST /login` answers. `statusMessage` is the HTTP reason phrase when it is not the usual one. */
export interface LoginResponse {
  status: number;
  body: string;
  contentType?: string;
  statusMessage?: string;
}

export interface AuthenticateResult {
  user?: AuthenticatedUser;
  error?: 'missing' | 'invalid';
}

/** The hook the HTTP and WS servers call (same shape as `HttpAuthHook` in rpc/server/http.ts). */
export interface RpcAuth {
  /** True when a request without a token must be turned away before it is parsed (HTTP gate). */
  readonly required: boolean;
  readonly enabled: boolean;
  readonly mode: 'disabled' | 'credentials' | 'public-key';
  login(body: string): Promise<LoginResponse>;
  authenticate(authorizationHeader: string | undefined): Promise<AuthenticateResult>;
  /** Checks one bearer token (already stripped of `Bearer `). */
  verifyToken(token: string): Promise<TokenCheck>;
  /** The permission check the dispatcher applies to each request (and each batch entry). */
  permit(user: AuthenticatedUser | undefined): (method: RpcMethod) => boolean;
}

const BEARER = 'Bearer ';

/** Takes the token out of an `Authorization` header; only the exact `Bearer ` prefix counts. */
export function bearerToken(header: string | undefined): string | undefined {
  return header?.startsWith(BEARER) ? header.slice(BEARER.length) : undefined;
}

const LOGIN_NOT_ENABLED: LoginResponse = {
  status: 400,
  body: '',
  statusMessage: 'Authentication not enabled',
};
const LOGIN_FIELDS_REQUIRED: LoginResponse = {
  status: 400,
  body: 'Authentication failed: username and password are required.',
  contentType: 'text/plain',
};
const LOGIN_INCORRECT: LoginResponse = {
  status: 401,
  body: 'Authentication failed: the username or password is incorrect.',
  contentType: 'text/plain',
};

export async function createAuth(opts: AuthOptions): Promise<RpcAuth> {
  const transport = opts.transport ?? 'HTTP';
  const noAuth = new Set(opts.noAuthMethods ?? []);

  if (!opts.enabled) {
    return {
      required: false,
      enabled: false,
      mode: 'disabled',
      login: async () => LOGIN_NOT_ENABLED,
      authenticate: async () => ({}),
      verifyToken: async () => ({ ok: false, reason: 'authentication is not enabled' }),
      permit: () => () => true,
    };
  }

  const endpoint = transport === 'WS' ? 'WebSocket' : 'HTTP';
  if (!opts.credentialsFile && !opts.jwtPublicKeyFile) {
    throw new AuthConfigError(
      `Unable to authenticate JSON-RPC ${endpoint} endpoint without a supplied credentials file or authentication public key file`,
    );
  }
  if (opts.credentialsFile && opts.jwtPublicKeyFile) {
    // Besu starts with both, then fails every /login (it cannot sign without the private key). The two
    // methods are exclusive; say so at startup instead.
    throw new AuthConfigError(
      `JSON-RPC ${endpoint} authentication takes either a credentials file or an authentication public key file, not both`,
    );
  }

  let verifier: TokenVerifier;
  let login: (body: string) => Promise<LoginResponse>;
  let mode: RpcAuth['mode'];

  if (opts.jwtPublicKeyFile) {
    mode = 'public-key';
    verifier = await loadExternalTokenVerifier(opts.jwtPublicKeyFile, opts.jwtAlgorithm, opts);
    login = async () => LOGIN_NOT_ENABLED;
  } else {
    mode = 'credentials';
    const file = opts.credentialsFile as string;
    await validateCredentialsFile(file, transport);
    const tokens = await createLoginTokenService(opts);
    verifier = tokens;
    login = async (body) => {
      const fields = parseLoginBody(body);
      if (fields === 'missing') return LOGIN_FIELDS_REQUIRED;
      if (fields === 'not-strings') return LOGIN_INCORRECT;
      const user = await authenticateUser(file, fields.username, fields.password);
      if (user === undefined) return LOGIN_INCORRECT;
      const token = await tokens.issue(user);
      return { status: 200, body: JSON.stringify({ token }), contentType: 'application/json' };
    };
  }

  const verifyToken = cachedVerification(verifier, opts.now ?? (() => Math.floor(Date.now() / 1000)));
  return {
    required: noAuth.size === 0,
    enabled: true,
    mode,
    login,
    verifyToken,
    async authenticate(header) {
      const token = bearerToken(header);
      if (token === undefined) return { error: 'missing' };
      const check = await verifyToken(token);
      return check.ok ? { user: check.user } : { error: 'invalid' };
    },
    permit(user) {
      return (method) =>
        noAuth.has(method.name) ||
        (user !== undefined && isPermitted(user.permissions, method.group, method.name));
    },
  };
}

const VERIFIED_CACHE_SIZE = 1024;

/**
 * Remembers tokens whose signature and claims checked out, keyed by the whole token string, so a client
 * that sends the same token with every request (or every WebSocket frame) costs one signature check.
 * A hit is re-checked against `exp`; nothing else in a verified token can turn bad with time. Failures
 * are not cached (a token with a future `nbf` becomes valid later).
 */
function cachedVerification(
  verifier: TokenVerifier,
  now: () => number,
): (token: string) => Promise<TokenCheck> {
  const cache = new Map<string, Extract<TokenCheck, { ok: true }>>();
  return async (token) => {
    const hit = cache.get(token);
    if (hit) {
      if (now() < hit.expiresAt) return hit;
      cache.delete(token);
      return { ok: false, reason: 'token expired' };
    }
    const check = await verifier.verify(token);
    if (check.ok) {
      if (cache.size >= VERIFIED_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(token, check);
    }
    return check;
  };
}

/**
 * `{"username": …, "password": …}`. A body that is not a JSON object or lacks either field is 'missing'
 * (400); fields that are present but not strings fail Besu's credential check, so they are a failed
 * login (401).
 */
function parseLoginBody(body: string): { username: string; password: string } | 'missing' | 'not-strings' {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return 'missing';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'missing';
  const { username, password } = value as Record<string, unknown>;
  if (username === undefined || username === null || password === undefined || password === null)
    return 'missing';
  if (typeof username !== 'string' || typeof password !== 'string') return 'not-strings';
  return { username, password };
}
