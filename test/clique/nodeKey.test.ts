/** The node key file in Besu's format: created when absent, read with or without `0x`, refused when malformed. */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addressOfPrivateKey } from '../../src/consensus/clique/seal.js';
import { loadOrCreateNodeKey, NodeKeyError, nodePublicKey } from '../../src/crypto/nodeKey.js';

const dir = mkdtempSync(join(tmpdir(), 'alder-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Besu's documented test account 0xfe3b…bd73.
const DEV_KEY = '8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63';

describe('node key file', () => {
  it('creates a key as 0x + 64 hex digits, readable by the owner only, and reads it back', () => {
    const file = join(dir, 'sub', 'key');
    const key = loadOrCreateNodeKey(file);
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/^0x[0-9a-f]{64}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(loadOrCreateNodeKey(file)).toString('hex')).toBe(Buffer.from(key).toString('hex'));
    expect(nodePublicKey(key)).toHaveLength(64);
  });

  it('reads keys written by hand, with or without 0x and a newline', () => {
    for (const text of [`0x${DEV_KEY}`, `${DEV_KEY}\n`, ` 0x${DEV_KEY.toUpperCase()}\r\n`]) {
      const file = join(dir, 'dev');
      writeFileSync(file, text);
      expect(addressOfPrivateKey(loadOrCreateNodeKey(file))).toBe(
        '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73',
      );
    }
  });

  it('refuses a file that is not a private key', () => {
    for (const text of ['', '0x1234', `0x${'00'.repeat(32)}`, `0x${'ff'.repeat(32)}`, 'hello']) {
      const file = join(dir, 'bad');
      writeFileSync(file, text);
      expect(() => loadOrCreateNodeKey(file)).toThrow(NodeKeyError);
    }
  });
});
