/**
 * The engine port's authentication (besu-facts §2.7): HS256 tokens signed with the secret shared with
 * the consensus client, `iat` required and within ±60 s of now, `exp` not looked at. The secret comes
 * from `--engine-jwt-secret` (first line, hex, `0x` optional, at least 32 bytes); without the option,
 * or when its file does not exist, a random secret is written to `<data-path>/jwt.hex` and removed
 * when the node stops.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compactVerify, decodeProtectedHeader } from 'jose';
import { bearerToken } from './index.js';

export const ENGINE_JWT_MAX_SKEW_SECONDS = 60;

export class EngineJwtConfigError extends Error {
  override name = 'EngineJwtConfigError';
}

export interface EngineJwtSecret {
  key: Uint8Array;
  /** The file the secret is in. */
  path: string;
  /** Removes a generated secret file (no-op for the operator's file). */
  dispose(): void;
}

/** Reads or generates the secret, refusing one shorter than 256 bits. */
export function loadEngineJwtSecret(secretFile: string | undefined, dataPath: string): EngineJwtSecret {
  if (secretFile !== undefined && existsSync(secretFile)) {
    const line = (readFileSync(secretFile, 'utf8').split(/\r?\n/)[0] ?? '').trim();
    const hex = line.startsWith('0x') || line.startsWith('0X') ? line.slice(2) : line;
    if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length % 2 !== 0)
      throw new EngineJwtConfigError(`${secretFile}: the JWT secret is not hex`);
    if (hex.length < 64) throw new EngineJwtConfigError('signing key too short, 256 bits required');
    return { key: Uint8Array.from(Buffer.from(hex, 'hex')), path: secretFile, dispose() {} };
  }
  const key = randomBytes(32);
  const path = join(dataPath, 'jwt.hex');
  writeFileSync(path, key.toString('hex'), { mode: 0o600 });
  return {
    key: new Uint8Array(key),
    path,
    dispose() {
      rmSync(path, { force: true });
    },
  };
}

/** True when the `Authorization` header carries a valid engine token now. */
export async function verifyEngineToken(
  authorizationHeader: string | undefined,
  key: Uint8Array,
  nowSeconds: number = Date.now() / 1000,
): Promise<boolean> {
  const token = bearerToken(authorizationHeader);
  if (token === undefined) return false;
  try {
    if (decodeProtectedHeader(token).alg !== 'HS256') return false;
    const { payload } = await compactVerify(token, key, { algorithms: ['HS256'] });
    const claims = JSON.parse(new TextDecoder().decode(payload)) as { iat?: unknown };
    if (typeof claims.iat !== 'number') return false;
    return Math.abs(nowSeconds - claims.iat) <= ENGINE_JWT_MAX_SKEW_SECONDS;
  } catch {
    return false;
  }
}
