/**
 * Request gates shared by the HTTP listeners (JSON-RPC, engine, later GraphQL): the Host allowlist that
 * stops DNS rebinding, and CORS as Besu's router applies it.
 */

/**
 * Host allowlist (`--host-allowlist`): `*` or `all` allows any Host. Otherwise the Host header must be
 * `host` or `host:port` (port 1–5 digits; anything else, IPv6 literals included, is refused) and its host
 * part must equal an entry, case-insensitively. A request without a Host header is refused.
 */
export function createHostCheck(allowlist: readonly string[]): (hostHeader: string | undefined) => boolean {
  const entries = allowlist.map((h) => h.trim().toLowerCase()).filter((h) => h !== '' && h !== 'none');
  if (entries.includes('*') || entries.includes('all')) return () => true;
  const allowed = new Set(entries);
  const cache = new Map<string, boolean>();
  return (hostHeader) => {
    if (hostHeader === undefined) return false;
    const hit = cache.get(hostHeader);
    if (hit !== undefined) return hit;
    const result = checkHost(hostHeader, allowed);
    if (cache.size < 1024) cache.set(hostHeader, result);
    return result;
  };
}

const PORT = /^\d{1,5}$/;

function checkHost(hostHeader: string, allowed: ReadonlySet<string>): boolean {
  const parts = hostHeader.split(':');
  if (parts.length > 2) return false;
  if (parts.length === 2 && !PORT.test(parts[1] as string)) return false;
  return allowed.has((parts[0] as string).toLowerCase());
}

/** The outcome of CORS for one request. */
export type CorsDecision =
  /** Not a CORS request (no Origin header): continue without CORS headers. */
  | { kind: 'none' }
  /** Origin allowed; add `Access-Control-Allow-Origin: allowOrigin` and continue. */
  | { kind: 'allow'; allowOrigin: string }
  /** Allowed preflight: answer 204 now. */
  | { kind: 'preflight'; allowOrigin: string }
  /** Origin refused: 403 `CORS Rejected - Invalid origin`. */
  | { kind: 'reject' };

export interface CorsPolicy {
  decide(
    method: string | undefined,
    origin: string | undefined,
    requestMethodHeader: string | undefined,
  ): CorsDecision;
  /** `Vary: origin` goes on every non-preflight response (the allowed origin depends on the request). */
  readonly vary: boolean;
  /** `Access-Control-Allow-Headers` of a preflight answer: all request headers are allowed. */
  readonly allowHeaders: string;
}

const NONE: CorsDecision = { kind: 'none' };
const REJECT: CorsDecision = { kind: 'reject' };
const ORIGIN_SHAPE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s/?#]+$/;

/**
 * `--rpc-http-cors-origins`: the entries joined into one regular expression that must match the whole
 * Origin; `*` or `all` allows any well-formed origin (answered with `*`). With no entries the expression
 * is empty, so every request that carries an Origin header is refused, as Besu does.
 */
export function createCorsPolicy(origins: readonly string[]): CorsPolicy {
  const entries = origins.filter((o) => o !== '');
  const any = entries.includes('*') || entries.includes('all');
  const pattern = any ? undefined : new RegExp(`^(?:${entries.join('|')})$`);
  return {
    vary: !any,
    allowHeaders: '*,content-type',
    decide(method, origin, requestMethodHeader) {
      if (origin === undefined) return NONE;
      const ok = any ? ORIGIN_SHAPE.test(origin) || origin === 'null' : (pattern as RegExp).test(origin);
      if (!ok) return REJECT;
      const allowOrigin = any ? '*' : origin;
      if (method === 'OPTIONS' && requestMethodHeader !== undefined)
        return { kind: 'preflight', allowOrigin };
      return { kind: 'allow', allowOrigin };
    },
  };
}

/** Does an Accept header allow application/json (what Besu's `produces(application/json)` routes need)? */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept === '') return true;
  for (const range of accept.split(',')) {
    const type = (range.split(';')[0] as string).trim().toLowerCase();
    if (type === 'application/json' || type === '*/*' || type === 'application/*' || type === '*')
      return true;
  }
  return false;
}
