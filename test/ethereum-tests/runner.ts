/**
 * Runs the consensus suite's BlockchainTests (`../shared/ethereum-tests/`) through Alder's import path:
 * each test's genesis and fork schedule become a genesis file, the node opens an LMDB data directory
 * over it with `openChain` (as `alder blocks import` does, seals unchecked for `NoProof`), and every
 * block goes through the block importer. A test passes when the genesis hash is the test's, every
 * block without `expectException` imports, every block with it is refused and leaves the head where
 * it was, the head is `lastblockhash`, and the head state is `postState` (or has `postStateHash`).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Block } from '@ethereumjs/block';
import { bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import { BlockDecoder } from '../../src/chain/blockDecoder.js';
import { InvalidBlockError, UnknownParentError } from '../../src/chain/errors.js';
import { loadConfig } from '../../src/config/load.js';
import { openChain } from '../../src/node.js';

export const SUITE_DIR = resolve(
  fileURLToPath(new URL('.', import.meta.url)),
  '../../../shared/ethereum-tests',
);
export const BLOCKCHAIN_TESTS_DIR = join(SUITE_DIR, 'BlockchainTests');

type Hex = string;

interface TestAccount {
  balance: Hex;
  nonce: Hex;
  code: Hex;
  storage: Record<Hex, Hex>;
}

interface TestBlock {
  rlp: Hex;
  expectException?: string;
  blockHeader?: { hash: Hex };
}

export interface BlockchainTest {
  network: string;
  sealEngine?: string;
  genesisBlockHeader: Record<string, Hex>;
  pre: Record<Hex, TestAccount>;
  blocks: TestBlock[];
  lastblockhash: Hex;
  postState?: Record<Hex, TestAccount>;
  postStateHash?: Hex;
}

export interface TestResult {
  /** Path of the file relative to `BlockchainTests/`. */
  file: string;
  name: string;
  network: string;
  passed: boolean;
  /** Why it failed (the first broken rule). */
  reason?: string;
  /** Transaction messages run on the call interpreter, and those it left to the library's EVM, by reason. */
  interpreter?: { fast: number; fallback: Record<string, number>; ownTxs: number; libraryTxs: number };
}

// ---------------------------------------------------------------------------------------------------
// Network names → fork schedule

/** Test-suite fork names and the genesis `config` key that schedules each (none for Frontier). */
const FORK_KEYS: Record<string, { key?: string; time?: boolean; merge?: boolean }> = {
  Frontier: {},
  Homestead: { key: 'homesteadBlock' },
  EIP150: { key: 'eip150Block' },
  EIP158: { key: 'eip158Block' },
  Byzantium: { key: 'byzantiumBlock' },
  Constantinople: { key: 'constantinopleBlock' },
  ConstantinopleFix: { key: 'petersburgBlock' },
  Petersburg: { key: 'petersburgBlock' },
  Istanbul: { key: 'istanbulBlock' },
  MuirGlacier: { key: 'muirGlacierBlock' },
  Berlin: { key: 'berlinBlock' },
  London: { key: 'londonBlock' },
  ArrowGlacier: { key: 'arrowGlacierBlock' },
  GrayGlacier: { key: 'grayGlacierBlock' },
  Paris: { merge: true },
  Merge: { merge: true },
  Shanghai: { key: 'shanghaiTime', time: true },
  Cancun: { key: 'cancunTime', time: true },
  Prague: { key: 'pragueTime', time: true },
  Osaka: { key: 'osakaTime', time: true },
};

/** Thrown for a network name the runner cannot map (counted as a failure with this reason). */
export class UnsupportedNetworkError extends Error {}

/**
 * The genesis `config` entries for a test network: `X` (from genesis), `XToYAt5` (Y at block 5),
 * `XToYAtTime15k` (Y at timestamp 15,000), `XToYAtDiffC0000` (the merge at total difficulty 0xC0000).
 * Forks before a named one are scheduled with it (the genesis loader's rule), so naming the last
 * fork of each side is enough.
 */
export function forkConfig(network: string): Record<string, unknown> {
  const config: Record<string, unknown> = { chainId: 1 };
  const schedule = (fork: string, at: number | bigint, byDiff = false): void => {
    const f = FORK_KEYS[fork];
    if (fork === 'DAO' || fork === 'Dao') {
      config.daoForkBlock = Number(at);
      config.daoForkSupport = true;
      return;
    }
    if (f === undefined) throw new UnsupportedNetworkError(`unknown fork name ${fork} in network ${network}`);
    if (f.merge || f.time) {
      // Time forks and the merge need a terminal total difficulty; reached at genesis unless given.
      if (config.terminalTotalDifficulty === undefined) config.terminalTotalDifficulty = byDiff ? at : 0;
    }
    if (f.key) config[f.key] = Number(at);
  };
  const m = /^(\w+?)To(\w+?)At(Time|Diff)?([0-9A-Fa-f]+k?)$/.exec(network);
  if (!m) {
    schedule(network, 0);
    return config;
  }
  const [, from, to, kind, amount] = m as unknown as [string, string, string, string | undefined, string];
  // The first fork is active from genesis (before a time fork, every block fork is at block 0).
  if (kind === 'Diff') {
    schedule(from, 0);
    const ttd = BigInt(`0x${amount}`);
    if (FORK_KEYS[to]?.merge !== true)
      throw new UnsupportedNetworkError(`a difficulty transition to ${to} in network ${network}`);
    config.terminalTotalDifficulty = ttd.toString();
    return config;
  }
  const at = amount.endsWith('k') ? Number(amount.slice(0, -1)) * 1000 : Number(amount);
  schedule(from, 0);
  schedule(to, at);
  return config;
}

// ---------------------------------------------------------------------------------------------------
// Running one test

/** The genesis file of a test: its block-0 header fields, its fork schedule and its `pre` state. */
export function genesisJson(test: BlockchainTest): Record<string, unknown> {
  const h = test.genesisBlockHeader;
  const out: Record<string, unknown> = {
    config: { ...forkConfig(test.network), ethash: {} },
    number: h.number,
    parentHash: h.parentHash,
    nonce: h.nonce,
    timestamp: h.timestamp,
    extraData: h.extraData,
    gasLimit: h.gasLimit,
    difficulty: h.difficulty,
    mixHash: h.mixHash,
    coinbase: h.coinbase,
    alloc: test.pre,
  };
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = h.baseFeePerGas;
  if (h.excessBlobGas !== undefined) out.excessBlobGas = h.excessBlobGas;
  if (h.blobGasUsed !== undefined) out.blobGasUsed = h.blobGasUsed;
  if (h.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = h.parentBeaconBlockRoot;
  return out;
}

class TestFailure extends Error {}

function fail(reason: string): never {
  throw new TestFailure(reason);
}

/** Runs one named test of a file in a fresh LMDB data directory under `workDir`, removed afterwards. */
export async function runTest(
  file: string,
  name: string,
  test: BlockchainTest,
  workDir = tmpdir(),
): Promise<TestResult> {
  const result: TestResult = { file, name, network: test.network, passed: false };
  const dir = mkdtempSync(join(workDir, 'alder-bt-'));
  try {
    await checkTest(test, dir, result);
    result.passed = true;
  } catch (err) {
    result.reason =
      err instanceof TestFailure || err instanceof UnsupportedNetworkError
        ? err.message
        : `error: ${firstLine(err)}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

async function checkTest(test: BlockchainTest, dir: string, result: TestResult): Promise<void> {
  const genesisFile = join(dir, 'genesis.json');
  writeFileSync(genesisFile, JSON.stringify(genesisJson(test)));
  const config = loadConfig(
    [`--genesis-file=${genesisFile}`, `--data-path=${join(dir, 'data')}`, '--logging=OFF'],
    {},
  );
  const ctx = await openChain(config, { skipPowValidation: test.sealEngine === 'NoProof' });
  try {
    const genesis = ctx.chain.genesisHash();
    const expectedGenesis = test.genesisBlockHeader.hash;
    if (!genesis || bytesToHex(genesis) !== expectedGenesis.toLowerCase())
      fail(`genesis hash ${genesis ? bytesToHex(genesis) : 'none'}, expected ${expectedGenesis}`);

    const decoder = new BlockDecoder(ctx.common);
    for (const [i, entry] of test.blocks.entries()) {
      const refused = entry.expectException !== undefined;
      const before = bytesToHex(ctx.chain.head().hash);
      let block: Block | undefined;
      let error: unknown;
      try {
        block = decoder.fromRLP(hexToBytes(entry.rlp as `0x${string}`));
        await ctx.importer.importBlock(block);
        if (block.header.difficulty === 0n) followPostMergeBlock(ctx, block);
      } catch (err) {
        error = err;
      }
      const label = `block ${i + 1}${block ? ` (#${block.header.number} ${bytesToHex(block.hash())})` : ''}`;
      if (refused) {
        if (error === undefined) fail(`${label} imported but should be refused (${entry.expectException})`);
        const after = bytesToHex(ctx.chain.head().hash);
        if (after !== before) fail(`${label} was refused but moved the head from ${before} to ${after}`);
      } else if (error !== undefined) {
        if (!block) fail(`${label} cannot be decoded: ${firstLine(error)}`);
        if (error instanceof InvalidBlockError || error instanceof UnknownParentError)
          fail(`${label} refused: ${firstLine(error)}`);
        fail(`${label} failed to import: ${firstLine(error)}`);
      }
    }

    const head = ctx.chain.headHeader();
    const headHash = bytesToHex(head.hash());
    if (headHash !== test.lastblockhash.toLowerCase())
      fail(`head ${headHash} (#${head.number}), expected ${test.lastblockhash}`);

    if (test.postStateHash !== undefined) {
      if (bytesToHex(head.stateRoot) !== test.postStateHash.toLowerCase())
        fail(`post state root ${bytesToHex(head.stateRoot)}, expected ${test.postStateHash}`);
    } else if (test.postState !== undefined) {
      await checkPostState(ctx, head.stateRoot, test.postState);
    }
  } finally {
    await ctx.importer.idle().catch(() => undefined);
    const stats = ctx.importer.processor.interpreterStats;
    if (stats)
      result.interpreter = {
        fast: stats.fast,
        fallback: Object.fromEntries(stats.reasons),
        ownTxs: stats.ownTxs,
        libraryTxs: stats.libraryTxs,
      };
    await ctx.db.close();
  }
}

type Chain = Awaited<ReturnType<typeof openChain>>;

/**
 * After the merge the importer stores a block beside the chain unless it extends the head; the
 * consensus client picks the head (forkchoiceUpdated). The suite's post-merge chains expect each
 * imported block to become the head, as a consensus client following them would ask, so the runner
 * plays that part with the chain store's own head switch (the reorg path forkchoiceUpdated takes).
 */
function followPostMergeBlock(ctx: Chain, block: Block): void {
  const hash = block.hash();
  if (bytesToHex(ctx.chain.head().hash) === bytesToHex(hash)) return;
  const batch = ctx.chain.newBatch();
  const moved = ctx.chain.setHead(batch, block);
  ctx.chain.db.commit(batch);
  ctx.chain.headCommitted({ head: block, ...moved });
}

/**
 * Every account of `postState` as the head state holds it, and nothing else: the root of a trie built
 * from `postState` alone must be the head's state root. Differences are named account by account.
 */
async function checkPostState(ctx: Chain, root: Uint8Array, post: Record<Hex, TestAccount>): Promise<void> {
  const state = ctx.world.at(root);
  for (const [address, want] of Object.entries(post)) {
    const addr = createAddressFromString(address);
    const acc = await state.getAccount(addr);
    if (!acc) fail(`post state: account ${address} is missing`);
    if (acc.balance !== BigInt(want.balance))
      fail(`post state: ${address} balance ${acc.balance}, expected ${BigInt(want.balance)}`);
    if (acc.nonce !== BigInt(want.nonce))
      fail(`post state: ${address} nonce ${acc.nonce}, expected ${BigInt(want.nonce)}`);
    const code = bytesToHex(await state.getCode(addr));
    if (code !== want.code.toLowerCase()) fail(`post state: ${address} code differs`);
    for (const [slot, value] of Object.entries(want.storage)) {
      const key = hexToBytes(`0x${BigInt(slot).toString(16).padStart(64, '0')}`);
      const got = await state.getStorage(addr, key);
      const gotValue = got.length === 0 ? 0n : BigInt(bytesToHex(got));
      if (gotValue !== BigInt(value))
        fail(`post state: ${address} slot ${slot} is 0x${gotValue.toString(16)}, expected ${value}`);
    }
  }
  // Accounts (or slots) the node has but `postState` does not list change the root.
  const alloc = new Map(
    Object.entries(post).map(([address, a]) => [
      address.toLowerCase(),
      {
        balance: BigInt(a.balance),
        nonce: BigInt(a.nonce),
        code: hexToBytes(a.code as `0x${string}`),
        storage: Object.entries(a.storage)
          .filter(([, v]) => BigInt(v) !== 0n)
          .map(
            ([k, v]) =>
              [
                hexToBytes(`0x${BigInt(k).toString(16).padStart(64, '0')}`),
                hexToBytes(`0x${BigInt(v).toString(16).padStart(64, '0')}`),
              ] as [Uint8Array, Uint8Array],
          ),
      },
    ]),
  );
  const expectedRoot = await ctx.world.writeGenesis(alloc);
  ctx.world.store.discard();
  if (bytesToHex(expectedRoot) !== bytesToHex(root))
    fail(
      `post state root ${bytesToHex(root)}, expected ${bytesToHex(expectedRoot)} (an account not in postState)`,
    );
}

function firstLine(err: unknown): string {
  return String(err instanceof Error ? err.message : err).split('\n')[0] as string;
}

// ---------------------------------------------------------------------------------------------------
// Files and folders

/** Every `.json` file under `dir` (recursively), sorted, as paths relative to `BlockchainTests/`. */
export function listTestFiles(dir = BLOCKCHAIN_TESTS_DIR): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d).sort()) {
      const p = join(d, entry);
      if (statSync(p).isDirectory()) walk(p);
      else if (entry.endsWith('.json')) out.push(relative(BLOCKCHAIN_TESTS_DIR, p));
    }
  };
  walk(dir);
  return out;
}

export function readTestFile(file: string): Record<string, BlockchainTest> {
  return JSON.parse(readFileSync(join(BLOCKCHAIN_TESTS_DIR, file), 'utf8')) as Record<string, BlockchainTest>;
}

/** Runs every test of one file (or the ones whose name contains `filter`). */
export async function runFile(file: string, filter?: string, workDir?: string): Promise<TestResult[]> {
  const results: TestResult[] = [];
  let tests: Record<string, BlockchainTest>;
  try {
    tests = readTestFile(file);
  } catch (err) {
    return [{ file, name: '(file)', network: '', passed: false, reason: `unreadable: ${firstLine(err)}` }];
  }
  for (const [name, test] of Object.entries(tests)) {
    if (filter && !name.includes(filter) && !file.includes(filter)) continue;
    results.push(await runTest(file, name, test, workDir));
  }
  return results;
}

/** The folder a result is counted under: the top folder, or the category under GeneralStateTests. */
export function folderOf(file: string): string {
  const parts = file.split('/');
  return parts[0] === 'GeneralStateTests' && parts.length > 2
    ? `${parts[0]}/${parts[1]}`
    : (parts[0] as string);
}

// ---------------------------------------------------------------------------------------------------
// The bounded sample `npm test` runs

/** Folders the sample draws from: every category of these top folders. */
const SAMPLE_TOP_FOLDERS = ['ValidBlocks', 'InvalidBlocks', 'TransitionTests', 'GeneralStateTests'];

/**
 * Categories the sample leaves to the whole-set command, each with its reason. CPU-bound categories
 * run for minutes to hours in a JavaScript EVM (BLAKE2 with 2^32-1 rounds, 50,000 nested calls,
 * quadratic memory); the merge by total difficulty is a known gap (README, "ethereum/tests").
 */
export const SAMPLE_EXCLUDED: Record<string, string> = {
  'TransitionTests/bcArrowGlacierToParis':
    'merge by terminal total difficulty: the importer does not switch to Paris rules at TTD',
  'ValidBlocks/bcExploitTest': 'DelegateCallSpam and the like: tens of seconds of EVM work each',
  'GeneralStateTests/stAttackTest': 'ContractCreationSpam: tens of seconds of EVM work',
  'GeneralStateTests/stTimeConsuming': 'minutes to hours of EVM work per test',
  'GeneralStateTests/stQuadraticComplexityTest': 'minutes of EVM work per test',
  'GeneralStateTests/stMemoryStressTest': 'large memory expansions, seconds per test',
};

export interface SampleCase {
  file: string;
  name: string;
}

/**
 * The sample: from every category folder (ValidBlocks/bcEIP1559, GeneralStateTests/stRandom, …) but
 * the excluded ones, the first file in sorted order and the first test in it. A fixed rule rather than
 * a hand-picked list, so the sample covers every area the suite has and cannot drift toward tests that
 * happen to pass.
 */
export function sampleCases(): SampleCase[] {
  const out: SampleCase[] = [];
  for (const top of SAMPLE_TOP_FOLDERS) {
    const topDir = join(BLOCKCHAIN_TESTS_DIR, top);
    for (const category of readdirSync(topDir).sort()) {
      if (SAMPLE_EXCLUDED[`${top}/${category}`] !== undefined) continue;
      const files = listTestFiles(join(topDir, category));
      const file = files[0];
      if (file === undefined) continue;
      const name = Object.keys(readTestFile(file))[0];
      if (name !== undefined) out.push({ file, name });
    }
  }
  return out;
}
