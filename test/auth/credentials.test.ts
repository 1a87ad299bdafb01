import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { authenticateUser, validateCredentialsFile } from '../../src/rpc/auth/credentials.js';
import { hashPassword } from '../../src/rpc/auth/password.js';
import { tempDir, writeTemp } from './helpers.js';

let dir: string;
let hash: string;

beforeAll(async () => {
  dir = tempDir();
  hash = await hashPassword('pegasys');
});

const good = () => `[Users.admin]
password = "${hash}"
permissions = ["*:*"]

[Users.user]
password = "${hash}"
permissions = ["net:*", "eth:blockNumber"]
privacyPublicKey = "A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo="
groups = ["g"]
roles = ["r"]
`;

describe('credentials file validation (startup)', () => {
  it('accepts a well-formed file', async () => {
    await expect(validateCredentialsFile(writeTemp(dir, 'good.toml', good()))).resolves.toBeUndefined();
  });

  it('reports a missing file with the transport in the message', async () => {
    await expect(validateCredentialsFile(join(dir, 'nope.toml'), 'WS')).rejects.toThrow(
      `The specified RPC WS authentication credential file '${join(dir, 'nope.toml')}' does not exist`,
    );
  });

  it('reports TOML syntax errors', async () => {
    const p = writeTemp(dir, 'bad.toml', '[Users.admin\npassword = ');
    await expect(validateCredentialsFile(p)).rejects.toThrow(
      'Invalid RPC HTTP authentication credentials file: Invalid TOML configuration',
    );
  });

  it('reports duplicate users as invalid TOML', async () => {
    const p = writeTemp(dir, 'dup.toml', `${good()}\n[Users.admin]\npassword = "x"\npermissions = ["*:*"]\n`);
    await expect(validateCredentialsFile(p)).rejects.toThrow('Invalid TOML configuration');
  });

  it('refuses a user without password, or with an empty one', async () => {
    const a = writeTemp(dir, 'nopw.toml', '[Users.admin]\npermissions = ["*:*"]\n');
    await expect(validateCredentialsFile(a)).rejects.toThrow(/^RPC user specified without password\.$/);
    const b = writeTemp(dir, 'emptypw.toml', '[Users.admin]\npassword = ""\npermissions = ["*:*"]\n');
    await expect(validateCredentialsFile(b)).rejects.toThrow('RPC user specified without password.');
  });

  it('refuses empty or non-array permissions/groups/roles and an empty privacyPublicKey', async () => {
    const cases = [
      'permissions = []',
      'permissions = "*:*"',
      'groups = []',
      'roles = ""',
      'privacyPublicKey = ""',
      'privacyPublicKey = ["x"]',
    ];
    for (const [i, line] of cases.entries()) {
      const rest = line.startsWith('permissions') ? line : `permissions = ["*:*"]\n${line}`;
      const p = writeTemp(dir, `inv${i}.toml`, `[Users.admin]\npassword = "${hash}"\n${rest}\n`);
      await expect(validateCredentialsFile(p), line).rejects.toThrow(
        /^RPC authentication configuration file contains invalid values\.$/,
      );
    }
  });
});

describe('login check (file re-read every time)', () => {
  it('returns the user with permissions and privacy key for the right password only', async () => {
    const p = writeTemp(dir, 'login.toml', good());
    expect(await authenticateUser(p, 'user', 'pegasys')).toEqual({
      username: 'user',
      permissions: ['net:*', 'eth:blockNumber'],
      privacyPublicKey: 'A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=',
    });
    expect(await authenticateUser(p, 'admin', 'pegasys')).toEqual({
      username: 'admin',
      permissions: ['*:*'],
    });
    expect(await authenticateUser(p, 'admin', 'wrong')).toBeUndefined();
    expect(await authenticateUser(p, 'nobody', 'pegasys')).toBeUndefined();
    expect(await authenticateUser(p, '__proto__', 'pegasys')).toBeUndefined();
    expect(await authenticateUser(p, 'toString', 'pegasys')).toBeUndefined();
  });

  it('sees edits without restart', async () => {
    const p = writeTemp(dir, 'edit.toml', good());
    expect(await authenticateUser(p, 'carol', 'pegasys')).toBeUndefined();
    writeFileSync(p, `${good()}\n[Users.carol]\npassword = "${hash}"\npermissions = ["eth:*"]\n`);
    expect(await authenticateUser(p, 'carol', 'pegasys')).toEqual({
      username: 'carol',
      permissions: ['eth:*'],
    });
    writeFileSync(p, good());
    expect(await authenticateUser(p, 'carol', 'pegasys')).toBeUndefined();
  });

  it('fails closed when the file becomes unreadable or the hash is not bcrypt', async () => {
    const p = writeTemp(dir, 'broken.toml', good());
    writeFileSync(p, '[Users.admin\n');
    expect(await authenticateUser(p, 'admin', 'pegasys')).toBeUndefined();
    writeFileSync(p, '[Users.admin]\npassword = "pegasys"\npermissions = ["*:*"]\n');
    expect(await authenticateUser(p, 'admin', 'pegasys')).toBeUndefined();
  });
});
