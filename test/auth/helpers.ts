/** Test keys and token makers. Keys are generated at test time with node:crypto. */
import { generateKeyPairSync, type KeyObject, sign as nodeSign } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type KeyKind = 'rsa2048' | 'rsa1024' | 'p256' | 'secp256k1' | 'p384' | 'p521' | 'ed25519';

export interface TestKeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicPem: string;
}

const cache = new Map<KeyKind, TestKeyPair>();

export function testKey(kind: KeyKind): TestKeyPair {
  const hit = cache.get(kind);
  if (hit) return hit;
  let pair: { privateKey: KeyObject; publicKey: KeyObject };
  switch (kind) {
    case 'rsa2048':
      pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
      break;
    case 'rsa1024':
      pair = generateKeyPairSync('rsa', { modulusLength: 1024 });
      break;
    case 'p256':
      pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      break;
    case 'secp256k1':
      pair = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
      break;
    case 'p384':
      pair = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
      break;
    case 'p521':
      pair = generateKeyPairSync('ec', { namedCurve: 'secp521r1' });
      break;
    case 'ed25519':
      pair = generateKeyPairSync('ed25519');
      break;
  }
  const result = { ...pair, publicPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString() };
  cache.set(kind, result);
  return result;
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'alder-auth-'));
}

export function writeTemp(dir: string, name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const b64u = (x: Buffer | string) => Buffer.from(x).toString('base64url');

const HASH: Record<string, string> = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
};

/** Signs any header/payload with node:crypto (JOSE r||s for EC), so tests can forge whatever they like. */
export function signToken(
  header: Record<string, unknown>,
  payload: Record<string, unknown> | string,
  key: KeyObject,
): string {
  const alg = String(header.alg);
  const input = `${b64u(JSON.stringify(header))}.${b64u(typeof payload === 'string' ? payload : JSON.stringify(payload))}`;
  let sig: Buffer;
  if (alg.startsWith('HS')) {
    throw new Error('use hmacToken');
  } else if (alg.startsWith('ES')) {
    sig = nodeSign(HASH[alg] as string, Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  } else {
    sig = nodeSign(HASH[alg] as string, Buffer.from(input), key);
  }
  return `${input}.${sig.toString('base64url')}`;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export function claims(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const iat = nowSeconds();
  return { permissions: ['*:*'], iat, exp: iat + 300, ...extra };
}
