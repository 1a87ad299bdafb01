/**
 * `npm ci` (README's set-up command and CI's) refuses a lock file that does not list every optional
 * dependency of a locked package, the platform binaries of other systems included. After `npm install`
 * changed the lock, `node scripts/complete-lock.mjs` adds the ones npm left out.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  os?: string[];
  cpu?: string[];
}

const root = resolve(import.meta.dirname, '..');
const lock = JSON.parse(readFileSync(resolve(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as Record<
  string,
  Record<string, string> | undefined
>;

/** The lock key Node's resolution reaches for `name` from the package at `from`. */
function resolveEntry(from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const key = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (lock.packages[key] !== undefined) return key;
    if (dir === '') return undefined;
    const i = dir.lastIndexOf('/node_modules/');
    dir = i < 0 ? '' : dir.slice(0, i);
  }
}

describe('package-lock.json', () => {
  it('lists every optional dependency of every locked package (what npm ci checks)', () => {
    const missing: string[] = [];
    for (const [key, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (resolveEntry(key, name) === undefined) missing.push(`${name} (of ${key || 'the root'})`);
      }
    }
    expect(missing, 'run node scripts/complete-lock.mjs').toEqual([]);
  });

  it("has the root entry's dependencies equal to package.json's", () => {
    const rootEntry = lock.packages[''] as Record<string, unknown>;
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
      expect(rootEntry[field], field).toEqual(pkg[field]);
    }
  });

  it('pins every platform entry it added to the exact version its parent asks for', () => {
    for (const [key, entry] of Object.entries(lock.packages)) {
      for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
        const found = resolveEntry(key, name);
        if (found === undefined || !/^\d+\.\d+\.\d+$/.test(spec)) continue;
        expect(lock.packages[found]?.version, `${name} of ${key}`).toBe(spec);
      }
    }
  });
});
