#!/usr/bin/env node
// Installs the foreign clients the tests run beside Alder, each in its own folder under test/clients
// with its own committed lock (their pinned dependencies must not mix with Alder's): today Lodestar,
// the consensus client of test/engine/lodestar.test.ts. A folder already installed from its current
// lock is left as it is, so `npm test` pays the install once per checkout.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
for (const name of ['lodestar']) {
  const dir = join(root, 'test/clients', name);
  const installed = join(dir, 'node_modules/.package-lock.json');
  const lock = readFileSync(join(dir, 'package-lock.json'), 'utf8');
  // npm writes the resolved tree to node_modules/.package-lock.json: the same packages as the lock.
  if (existsSync(installed) && sameTree(lock, readFileSync(installed, 'utf8'))) continue;
  console.log(`Installing test client ${name} (npm ci --prefix test/clients/${name})`);
  execFileSync('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund'], { stdio: 'inherit' });
}

function sameTree(lockText, installedText) {
  const versions = (text) => {
    const out = new Map();
    for (const [key, entry] of Object.entries(JSON.parse(text).packages ?? {})) {
      if (key !== '') out.set(key, entry.version);
    }
    return out;
  };
  const a = versions(lockText);
  const b = versions(installedText);
  for (const [key, version] of b) if (a.get(key) !== version) return false;
  return true;
}
