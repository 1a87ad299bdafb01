/**
 * `npm run ethereum-tests [-- --folder=X --filter=Y --verbose]`: runs the BlockchainTests under
 * `BlockchainTests/X` (all of them by default), the tests whose file or name contains Y, and prints
 * `N passed, M failed` per folder, each failure with its reason, and a total line.
 */
import { join } from 'node:path';
import { BLOCKCHAIN_TESTS_DIR, folderOf, listTestFiles, runFile, type TestResult } from './runner.js';

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

const folder = arg('folder');
const filter = arg('filter');
const verbose = process.argv.includes('--verbose');
const files = listTestFiles(folder ? join(BLOCKCHAIN_TESTS_DIR, folder) : BLOCKCHAIN_TESTS_DIR);
const byFolder = new Map<string, { passed: number; failed: TestResult[] }>();
const started = Date.now();

for (const file of files) {
  for (const r of await runFile(file, filter)) {
    const key = folderOf(file);
    let f = byFolder.get(key);
    if (!f) {
      f = { passed: 0, failed: [] };
      byFolder.set(key, f);
    }
    if (r.passed) f.passed++;
    else {
      f.failed.push(r);
      process.stdout.write(`FAIL ${r.file} ${r.name} [${r.network}]: ${r.reason}\n`);
    }
    if (verbose && r.passed) process.stdout.write(`ok   ${r.file} ${r.name}\n`);
  }
}

let passed = 0;
let failed = 0;
process.stdout.write('\n');
for (const [key, f] of [...byFolder].sort(([a], [b]) => a.localeCompare(b))) {
  passed += f.passed;
  failed += f.failed.length;
  process.stdout.write(`${key}: ${f.passed} passed, ${f.failed.length} failed\n`);
}
const seconds = ((Date.now() - started) / 1000).toFixed(0);
process.stdout.write(`total: ${passed} passed, ${failed} failed (${seconds} s)\n`);
process.exitCode = failed === 0 ? 0 : 1;
