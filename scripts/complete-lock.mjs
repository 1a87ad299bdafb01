#!/usr/bin/env node
// Adds to package-lock.json the platform packages that npm left out of it, so that `npm ci` accepts
// the lock on every machine. Run it after `npm install` changed the lock.
//
// Why: packages such as @biomejs/biome, rollup and msgpackr-extract ship their native binary as one
// optional dependency per platform. `npm ci` refuses a lock that does not list every one of them
// ("Missing: @rollup/rollup-darwin-arm64@ from lock file"), yet `npm install` leaves out those whose
// version the registry it talked to does not serve. Each added entry carries the platform fields
// (os, cpu, libc) the package publishes, so npm skips it on every other platform and installs it
// only where it belongs. Its integrity is recorded when the registry serves that version; otherwise
// npm fetches it by version on the platform that needs it.
//
// `test/lockfile.test.ts` fails when an optional dependency of a locked package has no entry.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;

/** The lock entry a package at `from` resolves `name` to, walking up node_modules folders as Node does. */
function resolveEntry(entries, from, name) {
  let dir = from;
  for (;;) {
    const key = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (entries[key] !== undefined) return key;
    if (dir === '') return undefined;
    const i = dir.lastIndexOf('/node_modules/');
    dir = i < 0 ? '' : dir.slice(0, i);
  }
}

function view(spec) {
  try {
    const out = execFileSync('npm', ['view', spec, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const data = out.trim() === '' ? undefined : JSON.parse(out);
    return Array.isArray(data) ? data[data.length - 1] : data;
  } catch {
    return undefined;
  }
}

const OSES = ['aix', 'android', 'darwin', 'freebsd', 'linux', 'openbsd', 'openharmony', 'sunos', 'win32'];
const CPUS = ['arm', 'arm64', 'ia32', 'loong64', 'mips', 'ppc64', 'riscv64', 's390x', 'x64'];

/**
 * For a package the registry here does not know at all: the platform its name states, in the
 * `<scope>/<prefix>-<os>-<cpu>[-<abi>]` form these families publish (rollup-linux-arm-musleabihf:
 * linux, arm, musl). A name that does not fit stops the script.
 */
function platformOfName(name) {
  const parts = name.split('/').pop().split('-');
  for (let i = 0; i + 1 < parts.length; i++) {
    if (!OSES.includes(parts[i]) || !CPUS.includes(parts[i + 1])) continue;
    const abi = parts.slice(i + 2).join('-');
    const meta = { os: [parts[i]], cpu: [parts[i + 1]] };
    if (parts[i] === 'linux') {
      if (abi.startsWith('musl')) meta.libc = ['musl'];
      else if (abi === '' || abi.startsWith('gnu')) meta.libc = ['glibc'];
      else break;
    } else if (abi !== '' && abi !== 'msvc') break;
    return meta;
  }
  throw new Error(`${name}: unknown to the registry, and its name states no platform`);
}

const missing = [];
for (const [key, entry] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    if (resolveEntry(packages, key, name) === undefined) missing.push({ parent: entry, name, spec });
  }
}

for (const { parent, name, spec } of missing) {
  if (!/^\d+\.\d+\.\d+$/.test(spec)) {
    throw new Error(`${name}@${spec}: only exact versions can be completed; add the entry with npm install`);
  }
  const exact = view(`${name}@${spec}`);
  const meta = exact ?? view(name) ?? platformOfName(name);
  if (meta.os === undefined && meta.cpu === undefined) {
    throw new Error(`${name}: no os/cpu fields; it is not a platform package, install it with npm install`);
  }
  const entry = { version: spec };
  if (exact?.dist?.integrity !== undefined) entry.integrity = exact.dist.integrity;
  if (meta.cpu !== undefined) entry.cpu = meta.cpu;
  if (parent.dev === true) entry.dev = true;
  if (meta.libc !== undefined) entry.libc = meta.libc;
  if (meta.license !== undefined) entry.license = meta.license;
  entry.optional = true;
  if (meta.os !== undefined) entry.os = meta.os;
  if (meta.engines !== undefined) entry.engines = meta.engines;
  packages[`node_modules/${name}`] = entry;
  process.stdout.write(`added ${name}@${spec}${entry.integrity === undefined ? ' (no integrity: version not served here)' : ''}\n`);
}

// npm writes the entries sorted by path (the root, '', first).
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => a.localeCompare(b, 'en')),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`${missing.length} entr${missing.length === 1 ? 'y' : 'ies'} added\n`);
