/**
 * The RPC credentials file (TOML), read the way Besu reads it:
 *
 *   [Users.alice]
 *   password = "$2a$10$…"            # bcrypt, required, non-empty
 *   permissions = ["eth:*", "net:*"] # required, non-empty array
 *   privacyPublicKey = "…"            # optional, non-empty string
 *
 * `validateCredentialsFile` is the startup check (same messages as Besu's); `authenticateUser` runs on
 * every `/login` and re-reads the file each time, so edits apply without a restart.
 */
import { readFile, stat } from 'node:fs/promises';
import { parse as parseToml } from 'smol-toml';
import type { AuthenticatedUser } from '../methods/types.js';
import { verifyPassword } from './password.js';

/** A startup problem with the authentication configuration; the message is meant for the operator. */
export class AuthConfigError extends Error {
  override name = 'AuthConfigError';
}

/** Which endpoint a message talks about, as Besu words it. */
export type AuthTransportLabel = 'HTTP' | 'WS';

type TomlTable = Record<string, unknown>;

function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * Startup validation. Throws AuthConfigError with Besu's messages:
 * missing file, unreadable file, TOML syntax, a user without password, any other entry that is not a
 * non-empty array (`permissions = []` is rejected here even though the docs describe empty lists), and
 * a `privacyPublicKey` that is not a non-empty string.
 */
export async function validateCredentialsFile(
  path: string,
  transport: AuthTransportLabel = 'HTTP',
): Promise<void> {
  try {
    await stat(path);
  } catch {
    throw new AuthConfigError(
      `The specified RPC ${transport} authentication credential file '${path}' does not exist`,
    );
  }
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new AuthConfigError(
      `An error occurred while opening the specified RPC ${transport} authentication configuration file ${path}.`,
    );
  }
  let doc: TomlTable;
  try {
    doc = parseToml(text) as TomlTable;
  } catch (err) {
    throw new AuthConfigError(
      `Invalid RPC ${transport} authentication credentials file: Invalid TOML configuration in ${path}: ${((err as Error).message.split('\n')[0] ?? '').trim()}`,
    );
  }
  if (Object.keys(doc).length === 0) {
    throw new AuthConfigError(
      `Invalid RPC ${transport} authentication credentials file: Empty TOML result in ${path}: ${text}`,
    );
  }
  const users = doc.Users;
  if (!isTable(users)) {
    // Besu fails on a file without a [Users] table too (with an internal error); say what is wrong.
    throw new AuthConfigError('RPC authentication configuration file contains invalid values.');
  }
  for (const entry of Object.values(users)) {
    if (!isTable(entry) || typeof entry.password !== 'string' || entry.password === '') {
      throw new AuthConfigError('RPC user specified without password.');
    }
  }
  if (!allEntriesHaveValues(doc)) {
    throw new AuthConfigError('RPC authentication configuration file contains invalid values.');
  }
}

/** Every leaf other than `password` must be a non-empty array, or for `privacyPublicKey` a non-empty string. */
function allEntriesHaveValues(table: TomlTable): boolean {
  for (const [key, value] of Object.entries(table)) {
    if (isTable(value)) {
      if (!allEntriesHaveValues(value)) return false;
      continue;
    }
    if (key === 'password') continue;
    if (key.endsWith('privacyPublicKey')) {
      if (typeof value !== 'string' || value === '') return false;
    } else if (!Array.isArray(value) || value.length === 0) {
      return false;
    }
  }
  return true;
}

/**
 * Checks a username and password against the file as it is now. Returns the user (with the permissions
 * and privacy key from the file) or undefined for any failure: unknown user, wrong password, a hash that
 * is not bcrypt, or a file that can no longer be read or parsed. Callers answer all of them alike.
 */
export async function authenticateUser(
  path: string,
  username: string,
  password: string,
): Promise<AuthenticatedUser | undefined> {
  let doc: TomlTable;
  try {
    doc = parseToml(await readFile(path, 'utf8')) as TomlTable;
  } catch {
    return undefined;
  }
  const users = doc.Users;
  if (!isTable(users) || !Object.hasOwn(users, username)) return undefined;
  const entry = users[username];
  if (!isTable(entry) || Object.keys(entry).length === 0) return undefined;

  const hash = entry.password ?? '';
  if (typeof hash !== 'string' || hash === '') return undefined;

  const rawPermissions = entry.permissions ?? [];
  if (!Array.isArray(rawPermissions)) return undefined;
  const privacyPublicKey = entry.privacyPublicKey;
  if (privacyPublicKey !== undefined && typeof privacyPublicKey !== 'string') return undefined;

  if (!(await verifyPassword(password, hash))) return undefined;

  // Besu turns each array element into its string form.
  const permissions = rawPermissions.map((p) => String(p));
  return privacyPublicKey === undefined
    ? { username, permissions }
    : { username, permissions, privacyPublicKey };
}
