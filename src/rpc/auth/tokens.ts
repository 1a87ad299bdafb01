/**
 * JSON-RPC bearer tokens.
 *
 * Login mode: like Besu, each RPC service (HTTP, WS) generates its own RSA-2048 key pair in memory when
 * it starts and signs `/login` tokens with RS256 (header `{"typ":"JWT","alg":"RS256"}`, claims
 * `permissions`, `username`, optional `privacyPublicKey`, `iat`, `exp` = iat + 300 s). A token is
 * therefore only valid on the service that issued it, and none survives a restart.
 *
 * External-key mode: tokens are made by an outside provider and checked against the PEM public key given
 * at startup with the configured algorithm (RS256/RS384/RS512 on RSA ≥ 2048 bits, ES256 on P-256 or
 * secp256k1, ES384 on P-384, ES512 on P-521). The token's `alg` header must equal the configured
 * algorithm, which is what rules out `alg: none` and HS256 signed with the public key as secret.
 *
 * Claims (both modes): `exp` is required and the token is expired once now ≥ exp (seconds, no leeway);
 * an `iat` or `nbf` in the future is refused; `permissions` must be an array (non-string entries are
 * ignored when matching).
 */
import { createPublicKey, generateKeyPair, type KeyObject, verify as nodeVerify } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { compactVerify, SignJWT } from 'jose';
import type { AuthenticatedUser } from '../methods/types.js';
import { AuthConfigError } from './credentials.js';

export const LOGIN_TOKEN_LIFETIME_SECONDS = 300;

export const EXTERNAL_JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'] as const;
export type JwtAlgorithm = (typeof EXTERNAL_JWT_ALGORITHMS)[number];
export const DEFAULT_JWT_ALGORITHM: JwtAlgorithm = 'RS256';

/** Outcome of checking a token; `reason` is for logs and tests, never sent to the client. */
export type TokenCheck =
  | { ok: true; user: AuthenticatedUser /** the token's `exp` (seconds) */; expiresAt: number }
  | { ok: false; reason: string };

export interface TokenVerifier {
  readonly algorithm: JwtAlgorithm;
  verify(token: string): Promise<TokenCheck>;
}

export interface LoginTokenService extends TokenVerifier {
  /** Signs a token for a user who has just logged in. */
  issue(user: AuthenticatedUser): Promise<string>;
}

export interface ClockOptions {
  /** Current time in seconds since the epoch; tests move it. */
  now?: () => number;
}

const systemNow = () => Math.floor(Date.now() / 1000);
const BASE64URL = /^[A-Za-z0-9_-]*$/;

const generateKeyPairAsync = promisify(generateKeyPair);

/** The login-mode token service: a fresh RSA-2048 key pair, RS256. */
export async function createLoginTokenService(options: ClockOptions = {}): Promise<LoginTokenService> {
  const now = options.now ?? systemNow;
  const { privateKey, publicKey } = await generateKeyPairAsync('rsa', { modulusLength: 2048 });
  const verifier = createTokenVerifier(publicKey, 'RS256', options);
  return {
    algorithm: 'RS256',
    verify: verifier.verify,
    async issue(user) {
      const iat = now();
      const claims: Record<string, unknown> = { permissions: [...user.permissions], username: user.username };
      if (user.privacyPublicKey !== undefined) claims.privacyPublicKey = user.privacyPublicKey;
      return new SignJWT(claims)
        .setProtectedHeader({ typ: 'JWT', alg: 'RS256' })
        .setIssuedAt(iat)
        .setExpirationTime(iat + LOGIN_TOKEN_LIFETIME_SECONDS)
        .sign(privateKey);
    },
  };
}

/** Parses the algorithm option; refuses HS* and anything else that is not a public-key algorithm. */
export function parseJwtAlgorithm(value: string | undefined): JwtAlgorithm {
  if (value === undefined || value === '') return DEFAULT_JWT_ALGORITHM;
  if ((EXTERNAL_JWT_ALGORITHMS as readonly string[]).includes(value)) return value as JwtAlgorithm;
  if (/^HS\d+$/.test(value)) {
    throw new AuthConfigError(
      `JWT algorithm ${value} cannot be used with an authentication public key file: it is a shared-secret algorithm. Use one of ${EXTERNAL_JWT_ALGORITHMS.join(', ')}`,
    );
  }
  throw new AuthConfigError(
    `Invalid JWT algorithm '${value}': expected one of [${EXTERNAL_JWT_ALGORITHMS.join(', ')}] (case-sensitive)`,
  );
}

/**
 * Reads a PEM public key file as Besu does: the first PEM block whatever its label, whose DER bytes
 * must be a SubjectPublicKeyInfo.
 */
export async function readPublicKeyFile(path: string): Promise<KeyObject> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new AuthConfigError(`Authentication RPC public key could not be read: ${path}`);
  }
  const lines = text.split(/\r?\n/);
  const begin = lines.findIndex((l) => l.startsWith('-----BEGIN '));
  if (begin < 0) throw new AuthConfigError(`Authentication RPC public key file format is invalid: ${path}`);
  const end = lines.findIndex((l, i) => i > begin && l.startsWith('-----END '));
  if (end < 0) throw new AuthConfigError(`Authentication RPC public key could not be read: ${path}`);
  const body = lines
    .slice(begin + 1, end)
    .filter((l) => !l.includes(':'))
    .join('')
    .replace(/\s+/g, '');
  if (body === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) {
    throw new AuthConfigError(`Authentication RPC public key file format is invalid: ${path}`);
  }
  try {
    return createPublicKey({ key: Buffer.from(body, 'base64'), format: 'der', type: 'spki' });
  } catch {
    throw new AuthConfigError(`Authentication RPC public key file format is invalid: ${path}`);
  }
}

const CURVES: Record<'ES256' | 'ES384' | 'ES512', readonly string[]> = {
  ES256: ['prime256v1', 'secp256k1'],
  ES384: ['secp384r1'],
  ES512: ['secp521r1'],
};

/** Refuses a key that does not fit the algorithm (RSA under 2048 bits, wrong key type, wrong curve). */
export function checkKeyForAlgorithm(key: KeyObject, algorithm: JwtAlgorithm): void {
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  if (algorithm.startsWith('RS')) {
    if (type !== 'rsa') {
      throw new AuthConfigError(
        `Authentication RPC public key is not an RSA key (found ${type ?? 'unknown'}); algorithm ${algorithm} needs an RSA key`,
      );
    }
    const bits = details.modulusLength ?? 0;
    if (bits < 2048) {
      throw new AuthConfigError(
        `Authentication RPC public key is too weak: RSA keys must be at least 2048 bits, this one has ${bits}`,
      );
    }
    return;
  }
  const curves = CURVES[algorithm as keyof typeof CURVES];
  if (type !== 'ec' || details.namedCurve === undefined || !curves.includes(details.namedCurve)) {
    const found =
      type === 'ec' ? `an EC key on ${details.namedCurve ?? 'an unknown curve'}` : `a ${type} key`;
    throw new AuthConfigError(
      `Authentication RPC public key does not match algorithm ${algorithm}: it needs an EC key on ${curves.join(' or ')}, found ${found}`,
    );
  }
}

/** External-key mode: load, check and wrap the provider's public key. */
export async function loadExternalTokenVerifier(
  path: string,
  algorithm?: string,
  options: ClockOptions = {},
): Promise<TokenVerifier> {
  const alg = parseJwtAlgorithm(algorithm);
  const key = await readPublicKeyFile(path);
  checkKeyForAlgorithm(key, alg);
  return createTokenVerifier(key, alg, options);
}

const NODE_HASH: Record<JwtAlgorithm, string> = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
};

/** A verifier for one key and one algorithm. jose checks the signature, except for ES256 on secp256k1
 * (jose ties ES256 to P-256), where node:crypto checks the raw r||s signature over the same input. */
export function createTokenVerifier(
  key: KeyObject,
  algorithm: JwtAlgorithm,
  options: ClockOptions = {},
): TokenVerifier {
  const now = options.now ?? systemNow;
  const viaNodeCrypto =
    key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'secp256k1';

  async function verify(token: string): Promise<TokenCheck> {
    if (typeof token !== 'string' || token === '') return { ok: false, reason: 'no token' };
    const parts = token.split('.');
    if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p))) {
      return { ok: false, reason: 'malformed token' };
    }
    const header = decodeJsonObject(parts[0] as string);
    if (header === undefined) return { ok: false, reason: 'malformed header' };
    if (header.alg !== algorithm) {
      return { ok: false, reason: `algorithm ${String(header.alg)} is not accepted (expected ${algorithm})` };
    }

    let payload: Record<string, unknown> | undefined;
    if (viaNodeCrypto) {
      if (header.crit !== undefined || header.b64 !== undefined)
        return { ok: false, reason: 'unsupported header' };
      const signature = Buffer.from(parts[2] as string, 'base64url');
      const good =
        signature.length === 64 &&
        nodeVerify(
          NODE_HASH[algorithm],
          Buffer.from(`${parts[0]}.${parts[1]}`, 'ascii'),
          { key, dsaEncoding: 'ieee-p1363' },
          signature,
        );
      if (!good) return { ok: false, reason: 'bad signature' };
      payload = decodeJsonObject(parts[1] as string);
    } else {
      try {
        const result = await compactVerify(token, key, { algorithms: [algorithm] });
        payload = parseJsonObject(Buffer.from(result.payload).toString('utf8'));
      } catch {
        return { ok: false, reason: 'bad signature' };
      }
    }
    if (payload === undefined) return { ok: false, reason: 'malformed payload' };
    return checkClaims(payload, now());
  }

  return { algorithm, verify };
}

function checkClaims(claims: Record<string, unknown>, now: number): TokenCheck {
  const { exp, iat, nbf, permissions, username, privacyPublicKey } = claims;
  if (typeof exp !== 'number' || !Number.isFinite(exp))
    return { ok: false, reason: 'token has no expiry (exp)' };
  if (now >= exp) return { ok: false, reason: 'token expired' };
  if (iat !== undefined && (typeof iat !== 'number' || iat > now)) {
    return { ok: false, reason: 'token issued in the future (iat)' };
  }
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now)) {
    return { ok: false, reason: 'token not yet valid (nbf)' };
  }
  if (!Array.isArray(permissions)) return { ok: false, reason: 'token has no permissions claim' };
  const user: AuthenticatedUser = {
    permissions: permissions.filter((p): p is string => typeof p === 'string'),
  };
  if (typeof username === 'string') user.username = username;
  if (typeof privacyPublicKey === 'string') user.privacyPublicKey = privacyPublicKey;
  return { ok: true, user, expiresAt: exp };
}

function decodeJsonObject(part: string): Record<string, unknown> | undefined {
  return parseJsonObject(Buffer.from(part, 'base64url').toString('utf8'));
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
