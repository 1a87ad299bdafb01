import { createHmac } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAuth } from '../../src/rpc/auth/index.js';
import {
  createLoginTokenService,
  loadExternalTokenVerifier,
  type TokenVerifier,
} from '../../src/rpc/auth/tokens.js';
import { claims, nowSeconds, signToken, tempDir, testKey, writeTemp } from './helpers.js';

let dir: string;
beforeAll(() => {
  dir = tempDir();
});

const keyFile = (kind: Parameters<typeof testKey>[0], name = `${kind}.pem`) =>
  writeTemp(dir, name, testKey(kind).publicPem);

const b64u = (x: string | Buffer) => Buffer.from(x).toString('base64url');

function hmacToken(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  secret: Buffer | string,
) {
  const input = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(payload))}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

describe('external public-key tokens: every supported algorithm and curve', () => {
  const cases = [
    ['RS256', 'rsa2048'],
    ['RS384', 'rsa2048'],
    ['RS512', 'rsa2048'],
    ['ES256', 'p256'],
    ['ES256', 'secp256k1'],
    ['ES384', 'p384'],
    ['ES512', 'p521'],
  ] as const;
  for (const [alg, kind] of cases) {
    it(`${alg} on ${kind}`, async () => {
      const verifier = await loadExternalTokenVerifier(keyFile(kind), alg);
      const token = signToken(
        { alg, typ: 'JWT' },
        claims({ permissions: ['eth:*'], privacyPublicKey: 'k' }),
        testKey(kind).privateKey,
      );
      const check = await verifier.verify(token);
      expect(check).toMatchObject({ ok: true, user: { permissions: ['eth:*'], privacyPublicKey: 'k' } });
    });
  }

  it('defaults to RS256', async () => {
    const verifier = await loadExternalTokenVerifier(keyFile('rsa2048'));
    expect(verifier.algorithm).toBe('RS256');
  });
});

describe('external key loading refuses weak or mismatched keys at startup', () => {
  it('RSA under 2048 bits', async () => {
    await expect(loadExternalTokenVerifier(keyFile('rsa1024'), 'RS256')).rejects.toThrow(
      /at least 2048 bits, this one has 1024/,
    );
  });
  it('curve or key type not matching the algorithm', async () => {
    await expect(loadExternalTokenVerifier(keyFile('p384'), 'ES256')).rejects.toThrow(
      /does not match algorithm ES256/,
    );
    await expect(loadExternalTokenVerifier(keyFile('p256'), 'ES384')).rejects.toThrow(
      /does not match algorithm ES384/,
    );
    await expect(loadExternalTokenVerifier(keyFile('p256'), 'RS256')).rejects.toThrow(/not an RSA key/);
    await expect(loadExternalTokenVerifier(keyFile('rsa2048'), 'ES512')).rejects.toThrow(/does not match/);
    await expect(loadExternalTokenVerifier(keyFile('ed25519'), 'ES256')).rejects.toThrow(/does not match/);
  });
  it('HMAC and unknown algorithms', async () => {
    await expect(loadExternalTokenVerifier(keyFile('rsa2048'), 'HS256')).rejects.toThrow(
      /shared-secret algorithm/,
    );
    await expect(loadExternalTokenVerifier(keyFile('rsa2048'), 'rs256')).rejects.toThrow(
      /Invalid JWT algorithm/,
    );
    await expect(loadExternalTokenVerifier(keyFile('rsa2048'), 'none')).rejects.toThrow(
      /Invalid JWT algorithm/,
    );
  });
  it('files that are not a PEM public key', async () => {
    await expect(loadExternalTokenVerifier(writeTemp(dir, 'empty.pem', ''))).rejects.toThrow(
      'Authentication RPC public key file format is invalid',
    );
    await expect(
      loadExternalTokenVerifier(
        writeTemp(dir, 'junk.pem', '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n'),
      ),
    ).rejects.toThrow('Authentication RPC public key file format is invalid');
    const pkcs1 = testKey('rsa2048').publicKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    await expect(loadExternalTokenVerifier(writeTemp(dir, 'pkcs1.pem', pkcs1))).rejects.toThrow(
      /format is invalid/,
    );
    await expect(loadExternalTokenVerifier(`${dir}/missing.pem`)).rejects.toThrow(/could not be read/);
  });
  it('takes the first PEM block whatever its label', async () => {
    const relabelled = testKey('rsa2048').publicPem.replaceAll('PUBLIC KEY', 'CERTIFICATE');
    const path = writeTemp(dir, 'relabelled.pem', `junk before\n${relabelled}${testKey('p256').publicPem}`);
    const verifier = await loadExternalTokenVerifier(path, 'RS256');
    const ok = await verifier.verify(signToken({ alg: 'RS256' }, claims(), testKey('rsa2048').privateKey));
    expect(ok.ok).toBe(true);
  });
});

describe('attacks on token verification', () => {
  let rs: TokenVerifier;
  let k1: TokenVerifier;
  let p256: TokenVerifier;
  beforeAll(async () => {
    rs = await loadExternalTokenVerifier(keyFile('rsa2048'), 'RS256');
    k1 = await loadExternalTokenVerifier(keyFile('secp256k1'), 'ES256');
    p256 = await loadExternalTokenVerifier(keyFile('p256'), 'ES256');
  });
  const rsaPriv = () => testKey('rsa2048').privateKey;

  it('alg: none (with and without a signature)', async () => {
    const unsigned = `${b64u(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${b64u(JSON.stringify(claims()))}.`;
    expect(await rs.verify(unsigned)).toMatchObject({ ok: false });
    const signed = signToken({ alg: 'RS256' }, claims(), rsaPriv());
    const [, p, s] = signed.split('.');
    expect(await rs.verify(`${b64u(JSON.stringify({ alg: 'none' }))}.${p}.${s}`)).toMatchObject({
      ok: false,
    });
    expect(await rs.verify(`${b64u(JSON.stringify({ alg: 'None' }))}.${p}.`)).toMatchObject({ ok: false });
  });

  it('HS256 signed with the public key as the secret (algorithm confusion)', async () => {
    const pem = testKey('rsa2048').publicPem;
    const der = testKey('rsa2048').publicKey.export({ type: 'spki', format: 'der' });
    for (const secret of [pem, der, pem.trim()]) {
      const forged = hmacToken({ alg: 'HS256', typ: 'JWT' }, claims(), secret);
      expect(await rs.verify(forged)).toMatchObject({ ok: false });
    }
    // and even if the header claims RS256, an HMAC is not an RSA signature
    const lying = hmacToken({ alg: 'RS256', typ: 'JWT' }, claims(), pem);
    expect(await rs.verify(lying)).toMatchObject({ ok: false, reason: 'bad signature' });
  });

  it('expired and not-yet-valid tokens', async () => {
    const now = nowSeconds();
    const expired = signToken({ alg: 'RS256' }, claims({ iat: now - 600, exp: now - 1 }), rsaPriv());
    expect(await rs.verify(expired)).toEqual({ ok: false, reason: 'token expired' });
    const expiringNow = signToken({ alg: 'RS256' }, claims({ iat: now - 300, exp: now }), rsaPriv());
    expect(await rs.verify(expiringNow)).toEqual({ ok: false, reason: 'token expired' });
    const futureIat = signToken({ alg: 'RS256' }, claims({ iat: now + 60, exp: now + 600 }), rsaPriv());
    expect(await rs.verify(futureIat)).toMatchObject({ ok: false, reason: expect.stringMatching(/iat/) });
    const futureNbf = signToken({ alg: 'RS256' }, claims({ nbf: now + 60 }), rsaPriv());
    expect(await rs.verify(futureNbf)).toMatchObject({ ok: false, reason: expect.stringMatching(/nbf/) });
    const stringExp = signToken({ alg: 'RS256' }, claims({ exp: String(now + 600) }), rsaPriv());
    expect(await rs.verify(stringExp)).toMatchObject({ ok: false });
  });

  it('tampered payload (more permissions, later expiry)', async () => {
    const token = signToken({ alg: 'RS256' }, claims({ permissions: ['net:*'] }), rsaPriv());
    const [h, , s] = token.split('.');
    const widened = `${h}.${b64u(JSON.stringify(claims({ permissions: ['*:*'] })))}.${s}`;
    expect(await rs.verify(widened)).toEqual({ ok: false, reason: 'bad signature' });
    const k1Token = signToken(
      { alg: 'ES256' },
      claims({ permissions: ['net:*'] }),
      testKey('secp256k1').privateKey,
    );
    const [kh, , ks] = k1Token.split('.');
    expect(await k1.verify(`${kh}.${b64u(JSON.stringify(claims()))}.${ks}`)).toEqual({
      ok: false,
      reason: 'bad signature',
    });
  });

  it('tokens without permissions or without exp', async () => {
    const { permissions: _p, ...noPerms } = claims();
    expect(await rs.verify(signToken({ alg: 'RS256' }, noPerms, rsaPriv()))).toEqual({
      ok: false,
      reason: 'token has no permissions claim',
    });
    const { exp: _e, ...noExp } = claims();
    expect(await rs.verify(signToken({ alg: 'RS256' }, noExp, rsaPriv()))).toEqual({
      ok: false,
      reason: 'token has no expiry (exp)',
    });
    expect(
      await rs.verify(signToken({ alg: 'RS256' }, claims({ permissions: '*:*' }), rsaPriv())),
    ).toMatchObject({
      ok: false,
    });
  });

  it('an ES256 token checked against a key on the other curve', async () => {
    const byP256 = signToken({ alg: 'ES256' }, claims(), testKey('p256').privateKey);
    const byK1 = signToken({ alg: 'ES256' }, claims(), testKey('secp256k1').privateKey);
    expect(await p256.verify(byP256)).toMatchObject({ ok: true });
    expect(await k1.verify(byK1)).toMatchObject({ ok: true });
    expect(await k1.verify(byP256)).toEqual({ ok: false, reason: 'bad signature' });
    expect(await p256.verify(byK1)).toEqual({ ok: false, reason: 'bad signature' });
  });

  it('a token whose alg differs from the configured one', async () => {
    const es = signToken({ alg: 'ES256' }, claims(), testKey('p256').privateKey);
    expect(await rs.verify(es)).toMatchObject({ ok: false, reason: expect.stringMatching(/not accepted/) });
    const rs384 = signToken({ alg: 'RS384' }, claims(), rsaPriv());
    expect(await rs.verify(rs384)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not accepted/),
    });
  });

  it('garbage', async () => {
    for (const t of ['', 'a', 'a.b', 'a.b.c.d', '..', 'eyJ.eyJ.', '%%%.%%%.%%%']) {
      expect((await rs.verify(t)).ok, t).toBe(false);
      expect((await k1.verify(t)).ok, t).toBe(false);
    }
  });
});

describe('login tokens', () => {
  it('are RS256 JWTs with Besu’s header and claims, valid 300 s', async () => {
    const service = await createLoginTokenService();
    const token = await service.issue({ username: 'alice', permissions: ['eth:*'], privacyPublicKey: 'pk' });
    const header = decodeProtectedHeader(token);
    expect(Object.keys(header)).toEqual(['typ', 'alg']);
    expect(header).toEqual({ typ: 'JWT', alg: 'RS256' });
    const payload = decodeJwt(token);
    expect(Object.keys(payload)).toEqual(['permissions', 'username', 'privacyPublicKey', 'iat', 'exp']);
    expect(payload.exp).toBe((payload.iat as number) + 300);
    expect(await service.verify(token)).toEqual({
      ok: true,
      user: { username: 'alice', permissions: ['eth:*'], privacyPublicKey: 'pk' },
      expiresAt: payload.exp,
    });
  });

  it('are valid only on the service that issued them', async () => {
    const http = await createLoginTokenService();
    const ws = await createLoginTokenService();
    const token = await http.issue({ username: 'a', permissions: ['*:*'] });
    expect((await http.verify(token)).ok).toBe(true);
    expect(await ws.verify(token)).toEqual({ ok: false, reason: 'bad signature' });
  });

  it('expire after five minutes', async () => {
    let now = nowSeconds();
    const service = await createLoginTokenService({ now: () => now });
    const token = await service.issue({ username: 'a', permissions: ['*:*'] });
    now += 299;
    expect((await service.verify(token)).ok).toBe(true);
    now += 1;
    expect(await service.verify(token)).toEqual({ ok: false, reason: 'token expired' });
  });
});

describe('createAuth startup validation', () => {
  it('refuses auth without a credentials file or key file, in Besu’s words', async () => {
    await expect(createAuth({ enabled: true })).rejects.toThrow(
      'Unable to authenticate JSON-RPC HTTP endpoint without a supplied credentials file or authentication public key file',
    );
    await expect(createAuth({ enabled: true, transport: 'WS' })).rejects.toThrow(
      'Unable to authenticate JSON-RPC WebSocket endpoint without a supplied credentials file or authentication public key file',
    );
  });

  it('refuses a 1024-bit RSA key', async () => {
    await expect(createAuth({ enabled: true, jwtPublicKeyFile: keyFile('rsa1024') })).rejects.toThrow(
      /2048 bits/,
    );
  });

  it('refuses both methods at once', async () => {
    const creds = writeTemp(dir, 'c.toml', '[Users.a]\npassword = "x"\npermissions = ["*:*"]\n');
    await expect(
      createAuth({ enabled: true, credentialsFile: creds, jwtPublicKeyFile: keyFile('rsa2048') }),
    ).rejects.toThrow(/not both/);
  });

  it('disabled auth permits everything and has no login', async () => {
    const auth = await createAuth({ enabled: false });
    expect(auth.required).toBe(false);
    expect(auth.permit(undefined)({ name: 'admin_peers', group: 'ADMIN', handler: () => 1 })).toBe(true);
    expect(await auth.login('{"username":"a","password":"b"}')).toEqual({
      status: 400,
      body: '',
      statusMessage: 'Authentication not enabled',
    });
  });

  it('token-free requests: required unless no-auth methods are configured', async () => {
    const a = await createAuth({ enabled: true, jwtPublicKeyFile: keyFile('rsa2048') });
    expect(a.required).toBe(true);
    expect(await a.authenticate(undefined)).toEqual({ error: 'missing' });
    expect(await a.authenticate('bearer x')).toEqual({ error: 'missing' });
    expect(await a.authenticate('Bearer ')).toEqual({ error: 'invalid' });
    const b = await createAuth({
      enabled: true,
      jwtPublicKeyFile: keyFile('rsa2048'),
      noAuthMethods: ['eth_chainId'],
    });
    expect(b.required).toBe(false);
    const permit = b.permit(undefined);
    expect(permit({ name: 'eth_chainId', group: 'ETH', handler: () => 1 })).toBe(true);
    expect(permit({ name: 'eth_blockNumber', group: 'ETH', handler: () => 1 })).toBe(false);
  });
});
