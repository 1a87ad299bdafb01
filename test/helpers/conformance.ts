/**
 * Conformance plumbing shared by every capability's suite: selecting the cases of a set of methods,
 * and a node serving a suite's chain, imported through `alder blocks import` before the suite runs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { CONFORMANCE, type NodeProcess, removeDir, runCli, startNode, tempDir } from './node.js';

export const RPC_COMPAT_DIR = join(CONFORMANCE, 'rpc-compat');
export const BESU_ETH_DIR = join(CONFORMANCE, 'besu/eth');

export interface SuiteChain {
  genesis: string;
  blocks: string;
  /** Options the suite's recording used, for the import and for the node. */
  options: string[];
}

export const RPC_COMPAT_CHAIN: SuiteChain = {
  genesis: join(RPC_COMPAT_DIR, 'genesis.json'),
  blocks: join(RPC_COMPAT_DIR, 'chain.rlp'),
  options: [],
};

/** The Besu hive chain, with the network id the Besu harness used. */
export const HIVE_CHAIN: SuiteChain = {
  genesis: join(CONFORMANCE, 'besu/chain-data/hive/testGenesis.json'),
  blocks: join(CONFORMANCE, 'besu/chain-data/hive/testBlockchain.blocks'),
  options: ['--network-id=123'],
};

/** The chain Besu's own eth_simulateV1 specs were recorded on (blocks 1–45). */
export const SIMULATE_CHAIN: SuiteChain = {
  genesis: join(BESU_ETH_DIR, 'simulateV1/chain-data/genesis.json'),
  blocks: join(BESU_ETH_DIR, 'simulateV1/chain-data/chain.rlp'),
  options: [],
};

/** Besu's eth_simulateV1 spec files (replayed on SIMULATE_CHAIN). */
export function besuSimulateCases(): string[] {
  const dir = join(BESU_ETH_DIR, 'simulateV1/specs');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(dir, f));
}

function firstMethodOfIo(path: string): string | undefined {
  const line = readFileSync(path, 'utf8')
    .split('\n')
    .find((l) => l.trim().startsWith('>>'));
  return line ? (JSON.parse(line.trim().slice(2)) as { method: string }).method : undefined;
}

/** rpc-compat cases (`folder/file.io`) whose first request calls one of `methods`, in hive's order. */
export function rpcCompatCases(
  methods: ReadonlySet<string>,
  skip: ReadonlySet<string> = new Set(),
): string[] {
  const cases: string[] = [];
  for (const folder of readdirSync(RPC_COMPAT_DIR).sort()) {
    if (folder.includes('.')) continue;
    for (const f of readdirSync(join(RPC_COMPAT_DIR, folder)).sort()) {
      const rel = `${folder}/${f}`;
      if (!f.endsWith('.io') || skip.has(rel)) continue;
      const m = firstMethodOfIo(join(RPC_COMPAT_DIR, rel));
      if (m && methods.has(m)) cases.push(rel);
    }
  }
  return cases;
}

/** Besu eth/ spec files whose every request calls one of `methods`. */
export function besuEthCases(methods: ReadonlySet<string>, skip: ReadonlySet<string> = new Set()): string[] {
  const cases: string[] = [];
  for (const f of readdirSync(BESU_ETH_DIR).sort()) {
    if (!f.endsWith('.json') || skip.has(f)) continue;
    const spec = JSON.parse(readFileSync(join(BESU_ETH_DIR, f), 'utf8')) as {
      request: { method?: string } | { method?: string }[];
    };
    const reqs = Array.isArray(spec.request) ? spec.request : [spec.request];
    if (reqs.every((r) => r.method && methods.has(r.method))) cases.push(f);
  }
  return cases;
}

/**
 * Within a describe block: imports `chain` into a fresh data directory before the tests and serves
 * it with `nodeOptions`; stops the node and removes the directory after. Returns the running node.
 */
export function useImportedNode(chain: SuiteChain, nodeOptions: string[] = []): () => NodeProcess {
  let dir: string;
  let node: NodeProcess | undefined;
  beforeAll(async () => {
    dir = tempDir();
    const base = [`--genesis-file=${chain.genesis}`, `--data-path=${dir}`, ...chain.options];
    await runCli([...base, 'blocks', 'import', `--from=${chain.blocks}`, '--skip-pow-validation-enabled']);
    node = await startNode([...base, ...nodeOptions]);
  });
  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });
  return () => {
    if (!node) throw new Error('the node has not started');
    return node;
  };
}
