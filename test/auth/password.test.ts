import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/rpc/auth/password.js';

describe('password hashing', () => {
  it('writes Besu-style $2a$ cost-10 hashes', async () => {
    const h = await hashPassword('pegasys');
    expect(h).toMatch(/^\$2a\$10\$[./A-Za-z0-9]{53}$/);
    expect(h).toHaveLength(60);
    expect(await verifyPassword('pegasys', h)).toBe(true);
    expect(await verifyPassword('pegasys2', h)).toBe(false);
  });

  it('accepts $2a$, $2b$ and $2y$ variants of the same hash', async () => {
    const h = await hashPassword('secret');
    for (const prefix of ['$2a$', '$2b$', '$2y$']) {
      expect(await verifyPassword('secret', prefix + h.slice(4))).toBe(true);
    }
  });

  it('rejects malformed hashes without throwing', async () => {
    expect(await verifyPassword('x', '')).toBe(false);
    expect(await verifyPassword('x', 'plaintext')).toBe(false);
    expect(await verifyPassword('x', `$2x$10$${'a'.repeat(53)}`)).toBe(false);
  });
});
