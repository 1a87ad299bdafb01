#!/usr/bin/env node
/**
 * Generates a benchmark chain: a post-merge genesis (Cancun from genesis, terminal total difficulty 0,
 * so no proof of work is involved) with deterministic prefunded accounts and a hand-assembled token
 * contract, then N blocks filled to their gas limit with a seeded mix of ETH transfers, token
 * transfers (which log) and storage-heavy calls. Blocks are built with @ethereumjs/vm's block
 * builder on an in-memory state, so state roots, receipts and blooms are exact; they are written as
 * concatenated RLP, the format `alder blocks import` reads.
 *
 *   node bench/genchain.mjs [--blocks=1000] [--gas-limit=1500000] [--out=DIR (default $TMPDIR/alder-bench-chain)] [--genesis-only]
 *
 * Library use (tests): `generateChain({ blocks, txsPerBlock, outDir })`.
 */
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createBlock } from '@ethereumjs/block';
import { createCommonFromGethGenesis } from '@ethereumjs/common';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import {
  Account,
  Address,
  bigIntToBytes,
  bigIntToHex,
  bytesToHex,
  concatBytes,
  hexToBytes,
  setLengthLeft,
  utf8ToBytes,
} from '@ethereumjs/util';
import { buildBlock, createVM } from '@ethereumjs/vm';

const require = createRequire(import.meta.url);

// ---------------------------------------------------------------------------------------------------
// Native crypto (the same add-ons Alder uses): signing and sender recovery dominate generation time.

const secp = require('secp256k1');
const KeccakState = require('node-gyp-build')(
  require.resolve('keccak/package.json').replace(/package\.json$/, ''),
);

export function keccak256(msg) {
  const s = new KeccakState();
  s.initialize(1088, 512);
  s.absorb(msg);
  s.absorbLastFewBits(0x01);
  const out = s.squeeze(32);
  return new Uint8Array(out.buffer, out.byteOffset, 32);
}

/** A recoverable signature (recovery id, then r and s: 65 bytes) through the native add-on. */
export function ecsign(msgHash, privateKey) {
  const { signature, recid } = secp.ecdsaSign(msgHash, privateKey);
  const out = new Uint8Array(65);
  out[0] = recid;
  out.set(signature, 1);
  return out;
}

function ecrecover(msgHash, v, r, s, chainId) {
  const recovery = v === 0n || v === 1n ? v : chainId === undefined ? v - 27n : v - (2n * chainId + 35n);
  const sig = concatBytes(setLengthLeft(r, 32), setLengthLeft(s, 32));
  return secp.ecdsaRecover(sig, Number(recovery), msgHash, false).subarray(1);
}

const CRYPTO = { keccak256, ecsign, ecrecover };

/** Address of a private key, through the native add-ons (the library's path is pure JS). */
export function addressOf(privateKey) {
  return new Address(keccak256(secp.publicKeyCreate(privateKey, false).subarray(1)).subarray(12));
}

// ---------------------------------------------------------------------------------------------------
// Chain parameters

export const CHAIN_ID = 31_415n;
export const DEFAULT_ACCOUNTS = 512;
export const DEFAULT_GAS_LIMIT = 1_500_000n;
/** Low starting base fee: full blocks raise it 12.5% per block, 1000 blocks multiply it by ~1e51. */
export const GENESIS_BASE_FEE = 7n;
export const GENESIS_TIMESTAMP = 0x6500_0000n;
export const BLOCK_TIME = 12n;
export const TOKEN_ADDRESS = '0x00000000000000000000000000000000000a1de7';
/** Genesis `config` members: every fork up to London active from block 0. */
export const LONDON_AT_GENESIS = Object.freeze({
  homesteadBlock: 0,
  eip150Block: 0,
  eip155Block: 0,
  eip158Block: 0,
  byzantiumBlock: 0,
  constantinopleBlock: 0,
  petersburgBlock: 0,
  istanbulBlock: 0,
  berlinBlock: 0,
  londonBlock: 0,
});

/** Genesis `config` members: merged at genesis, Shanghai and Cancun active from the first block. */
export const CANCUN_AT_GENESIS = Object.freeze({
  ...LONDON_AT_GENESIS,
  mergeNetsplitBlock: 0,
  terminalTotalDifficulty: 0,
  shanghaiTime: 0,
  cancunTime: 0,
  blobSchedule: { cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 } },
});

/** Genesis `config` members: merged at genesis, Shanghai active from the first block, no Cancun. */
export const SHANGHAI_AT_GENESIS = Object.freeze({
  ...LONDON_AT_GENESIS,
  mergeNetsplitBlock: 0,
  terminalTotalDifficulty: 0,
  shanghaiTime: 0,
});

/** Difficulty of every block of a proof-of-work chain (its seals are not real: import skips them). */
export const POW_DIFFICULTY = 100n;
export const FEE_RECIPIENT = '0x0000000000000000000000000000000000c0ffee';
/** Each account starts with 2^230 wei (fees grow with the base fee) and 10^24 token units. */
const ETH_BALANCE = 2n ** 230n;
const TOKEN_BALANCE = 10n ** 24n;
/** Storage slots written per storage-heavy call: alternately fresh slots and slots written before. */
const FILL_SLOTS = 16n;

/** Private key of bench account `i`: keccak256("alder-bench-account-<i>"). */
export function accountKey(i) {
  return keccak256(utf8ToBytes(`alder-bench-account-${i}`));
}

function selector(sig) {
  return keccak256(utf8ToBytes(sig)).subarray(0, 4);
}
export const TRANSFER_TOPIC = bytesToHex(keccak256(utf8ToBytes('Transfer(address,address,uint256)')));

// ---------------------------------------------------------------------------------------------------
// The token contract, assembled here (no compiler). Storage: the balance of address A is at slot A;
// `fill` writes slots (1 << 200) | i.
//   transfer(address,uint256)  -> moves balance, emits Transfer(from, to, amount), returns true
//   balanceOf(address)         -> uint256
//   fill(uint256 start, uint256 count) -> writes the block number into `count` slots from `start`

// biome-ignore format: an opcode table
const OP = {
  STOP: 0x00, ADD: 0x01, SUB: 0x03, LT: 0x10, EQ: 0x14, ISZERO: 0x15, AND: 0x16, OR: 0x17, SHL: 0x1b, SHR: 0x1c,
  CALLER: 0x33, CALLDATALOAD: 0x35, CODECOPY: 0x39, NUMBER: 0x43, MSTORE: 0x52, SLOAD: 0x54, SSTORE: 0x55, JUMP: 0x56,
  JUMPI: 0x57, JUMPDEST: 0x5b, DUP1: 0x80, DUP2: 0x81, DUP3: 0x82, SWAP1: 0x90, SWAP2: 0x91, LOG3: 0xa3,
  RETURN: 0xf3, REVERT: 0xfd,
};

/** Assembles a program: op names, `['push', bytes|bigint]`, `['label', name]`, `['ref', name]` (PUSH2). */
function assemble(program) {
  const out = [];
  const labels = new Map();
  const fixups = [];
  for (const item of program) {
    if (typeof item === 'string') {
      if (!(item in OP)) throw new Error(`unknown op ${item}`);
      out.push(OP[item]);
    } else if (item[0] === 'label') {
      labels.set(item[1], out.length);
      out.push(OP.JUMPDEST);
    } else if (item[0] === 'ref') {
      out.push(0x61, 0, 0);
      fixups.push([out.length - 2, item[1]]);
    } else if (item[0] === 'push') {
      const v = item[1];
      const bytes = typeof v === 'bigint' ? (v === 0n ? new Uint8Array([0]) : bigIntToBytes(v)) : v;
      if (bytes.length < 1 || bytes.length > 32) throw new Error('bad push');
      out.push(0x5f + bytes.length, ...bytes);
    } else {
      throw new Error(`bad item ${item}`);
    }
  }
  for (const [at, name] of fixups) {
    const dest = labels.get(name);
    if (dest === undefined) throw new Error(`unknown label ${name}`);
    out[at] = dest >> 8;
    out[at + 1] = dest & 0xff;
  }
  return new Uint8Array(out);
}

export const SELECTORS = {
  transfer: selector('transfer(address,uint256)'),
  balanceOf: selector('balanceOf(address)'),
  fill: selector('fill(uint256,uint256)'),
};

export function tokenRuntime() {
  const p = (v) => ['push', v];
  const ADDRESS_MASK = 2n ** 160n - 1n;
  // biome-ignore format: an assembly listing, one instruction group per line
  return assemble([
    p(0n), 'CALLDATALOAD', p(0xe0n), 'SHR',
    'DUP1', p(SELECTORS.transfer), 'EQ', ['ref', 'transfer'], 'JUMPI',
    'DUP1', p(SELECTORS.balanceOf), 'EQ', ['ref', 'balanceOf'], 'JUMPI',
    'DUP1', p(SELECTORS.fill), 'EQ', ['ref', 'fill'], 'JUMPI',
    ['label', 'fail'], p(0n), 'DUP1', 'REVERT',

    // transfer(to, amount)
    ['label', 'transfer'],
    p(0x24n), 'CALLDATALOAD', //                      amount
    'CALLER', 'SLOAD', //                             bal amount
    'DUP2', 'DUP2', 'LT', ['ref', 'fail'], 'JUMPI', //  bal < amount -> revert
    'SUB', 'CALLER', 'SSTORE', //                     (bal - amount) -> [caller]
    p(0x24n), 'CALLDATALOAD', //                      amount
    p(0x04n), 'CALLDATALOAD', p(ADDRESS_MASK), 'AND', // to amount
    'DUP1', 'SLOAD', 'DUP3', 'ADD', 'DUP2', 'SSTORE', // [to] += amount; stack: to amount
    'SWAP1', p(0n), 'MSTORE', //                      mem[0] = amount; stack: to
    'CALLER', p(hexToBytes(TRANSFER_TOPIC)), p(0x20n), p(0n), 'LOG3',
    p(1n), p(0n), 'MSTORE', p(0x20n), p(0n), 'RETURN',

    // balanceOf(owner)
    ['label', 'balanceOf'],
    p(0x04n), 'CALLDATALOAD', 'SLOAD', p(0n), 'MSTORE', p(0x20n), p(0n), 'RETURN',

    // fill(start, count)
    ['label', 'fill'],
    p(0x04n), 'CALLDATALOAD', 'DUP1', p(0x24n), 'CALLDATALOAD', 'ADD', 'SWAP1', // i end
    ['label', 'loop'],
    'DUP2', 'DUP2', 'LT', 'ISZERO', ['ref', 'done'], 'JUMPI',
    'NUMBER', 'DUP2', p(1n), p(200n), 'SHL', 'OR', 'SSTORE', // [(1<<200)|i] = number
    p(1n), 'ADD', ['ref', 'loop'], 'JUMP',
    ['label', 'done'], 'STOP',
  ]);
}

/**
 * Creation code for chains whose genesis cannot hold the contract (the peers): credits `supply` to the
 * deployer and returns the runtime.
 */
export function tokenInitCode(supply = 10n ** 30n) {
  const runtime = tokenRuntime();
  const prefix = (offset) =>
    // biome-ignore format: an assembly listing
    assemble([
      ['push', supply], 'CALLER', 'SSTORE',
      ['push', BigInt(runtime.length)], ['push', BigInt(offset)], ['push', 0n], 'CODECOPY',
      ['push', BigInt(runtime.length)], ['push', 0n], 'RETURN',
    ]);
  // The prefix's length depends on the offset only through its push width; two passes settle it.
  const length = prefix(prefix(0).length).length;
  return concatBytes(prefix(length), runtime);
}

// ---------------------------------------------------------------------------------------------------
// Genesis

const word = (v) => bytesToHex(setLengthLeft(bigIntToBytes(v), 32));

/** The genesis file (Besu/geth JSON) for `accounts` bench accounts. */
export function benchGenesis({
  accounts = DEFAULT_ACCOUNTS,
  gasLimit = DEFAULT_GAS_LIMIT,
  pow = false,
  cancun = true,
} = {}) {
  const alloc = {};
  const tokenStorage = {};
  for (let i = 0; i < accounts; i++) {
    const addr = addressOf(accountKey(i)).toString();
    alloc[addr] = { balance: bigIntToHex(ETH_BALANCE) };
    tokenStorage[word(BigInt(addr))] = word(TOKEN_BALANCE);
  }
  alloc[TOKEN_ADDRESS] = { balance: '0x0', code: bytesToHex(tokenRuntime()), storage: tokenStorage };
  if (pow) return powGenesis(alloc, gasLimit);
  return {
    config: {
      chainId: Number(CHAIN_ID),
      ...(cancun ? CANCUN_AT_GENESIS : SHANGHAI_AT_GENESIS),
    },
    nonce: '0x0',
    timestamp: bigIntToHex(GENESIS_TIMESTAMP),
    extraData: bytesToHex(utf8ToBytes('alder bench')),
    gasLimit: bigIntToHex(gasLimit),
    difficulty: '0x0',
    mixHash: `0x${'00'.repeat(32)}`,
    coinbase: `0x${'00'.repeat(20)}`,
    baseFeePerGas: bigIntToHex(GENESIS_BASE_FEE),
    ...(cancun ? { excessBlobGas: '0x0', blobGasUsed: '0x0' } : {}),
    number: '0x0',
    parentHash: `0x${'00'.repeat(32)}`,
    alloc,
  };
}

/** A proof-of-work (London) genesis with Besu's fixed-difficulty ethash, as its dev network has. */
function powGenesis(alloc, gasLimit) {
  return {
    config: {
      chainId: Number(CHAIN_ID),
      ...LONDON_AT_GENESIS,
      ethash: { fixeddifficulty: Number(POW_DIFFICULTY) },
    },
    nonce: '0x42',
    timestamp: bigIntToHex(GENESIS_TIMESTAMP),
    extraData: bytesToHex(utf8ToBytes('alder bench pow')),
    gasLimit: bigIntToHex(gasLimit),
    difficulty: bigIntToHex(POW_DIFFICULTY),
    mixHash: `0x${'00'.repeat(32)}`,
    coinbase: `0x${'00'.repeat(20)}`,
    baseFeePerGas: bigIntToHex(GENESIS_BASE_FEE),
    number: '0x0',
    parentHash: `0x${'00'.repeat(32)}`,
    alloc,
  };
}

/**
 * The builder re-creates every transaction already in the block (to make a block object for the
 * next one's execution context), which makes filling a block quadratic in its transaction count. Only
 * the header matters for that context, so each transaction runs with the list set aside and the list
 * is restored afterwards; `build()` sees every transaction.
 */
async function addTransaction(builder, tx) {
  const included = builder.transactions;
  builder.transactions = [];
  try {
    const res = await builder.addTransaction(tx);
    included.push(...builder.transactions);
    return res;
  } finally {
    builder.transactions = included;
  }
}

/**
 * Every transaction, header and VM copies its Common and re-merges its parameter table into the copy
 * (~4 ms per transaction here, most of generation time). The generator drives one chain with one fork
 * at a time, so one shared Common whose parameter merges are remembered gives the same results.
 */
function shareCommon(common) {
  const merged = new WeakSet();
  const updateParams = common.updateParams.bind(common);
  common.copy = () => common;
  common.updateParams = (params) => {
    if (merged.has(params)) return;
    merged.add(params);
    updateParams(params);
  };
  return common;
}

// ---------------------------------------------------------------------------------------------------
// Deterministic randomness (xorshift32), so the same arguments always give the same chain.

function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

// ---------------------------------------------------------------------------------------------------
// Chain generation

/**
 * @param {object} opts
 * @param {number} [opts.blocks] blocks to generate (default 1000)
 * @param {number} [opts.txsPerBlock] cap on transactions per block; by default blocks are filled to the gas limit
 * @param {bigint|number} [opts.gasLimit] block gas limit (default 1,500,000)
 * @param {number} [opts.accounts] prefunded accounts (default 512)
 * @param {boolean} [opts.pow] a proof-of-work London chain (fixed difficulty, no withdrawals) instead of post-merge Cancun
 * @param {boolean} [opts.cancun] false: post-merge Shanghai without Cancun (no blobs, so a node on it never loads the KZG setup)
 * @param {number} [opts.seed] seed of the transaction mix: two seeds give two different chains from one genesis
 * @param {string} opts.outDir where genesis.json and chain.rlp are written
 * @param {(msg: string) => void} [opts.log] progress output
 */
export async function generateChain(opts) {
  const blocks = opts.blocks ?? 1000;
  const accounts = opts.accounts ?? DEFAULT_ACCOUNTS;
  const gasLimit = BigInt(opts.gasLimit ?? DEFAULT_GAS_LIMIT);
  const txCap = opts.txsPerBlock ?? Number.POSITIVE_INFINITY;
  const outDir = resolve(opts.outDir);
  const log = opts.log ?? (() => {});
  const t0 = performance.now();

  mkdirSync(outDir, { recursive: true });
  const pow = opts.pow ?? false;
  const cancun = !pow && (opts.cancun ?? true);
  const genesis = benchGenesis({ accounts, gasLimit, pow, cancun });
  const genesisPath = join(outDir, 'genesis.json');
  writeFileSync(genesisPath, `${JSON.stringify(genesis, null, 2)}\n`);

  const common = shareCommon(
    createCommonFromGethGenesis(genesis, { chain: 'alder-bench', customCrypto: CRYPTO }),
  );
  common.setHardforkBy({ blockNumber: 0n, timestamp: GENESIS_TIMESTAMP });

  // Genesis state.
  // Every historical trie node stays in memory (about 1 GB per 1000 blocks here); pruning them costs
  // 30% more time than it saves in garbage collection.
  const state = new MerkleStateManager({ common, caches: new Caches() });
  for (const [addr, a] of Object.entries(genesis.alloc)) {
    const address = new Address(hexToBytes(addr));
    await state.putAccount(address, new Account(0n, BigInt(a.balance)));
    if (a.code) await state.putCode(address, hexToBytes(a.code));
    for (const [k, v] of Object.entries(a.storage ?? {}))
      await state.putStorage(address, hexToBytes(k), hexToBytes(v));
  }
  await state.flush();
  const genesisBlock = createBlock(
    {
      header: {
        number: 0n,
        gasLimit,
        difficulty: pow ? POW_DIFFICULTY : 0n,
        nonce: pow ? hexToBytes('0x0000000000000042') : undefined,
        timestamp: GENESIS_TIMESTAMP,
        extraData: hexToBytes(genesis.extraData),
        baseFeePerGas: GENESIS_BASE_FEE,
        ...(cancun ? { excessBlobGas: 0n, blobGasUsed: 0n } : {}),
        stateRoot: await state.getStateRoot(),
      },
      ...(pow ? {} : { withdrawals: [] }),
    },
    { common, setHardfork: true },
  );

  const hashes = [genesisBlock.hash()];
  const blockchain = {
    async getBlock(n) {
      const h = hashes[Number(n)];
      if (!h) throw new Error(`no block ${n}`);
      return { hash: () => h };
    },
    async putBlock(b) {
      hashes[Number(b.header.number)] = b.hash();
    },
    shallowCopy() {
      return this;
    },
  };
  const vm = await createVM({ common, stateManager: state, blockchain });

  const keys = [];
  const addrs = [];
  for (let i = 0; i < accounts; i++) {
    keys.push(accountKey(i));
    addrs.push(addressOf(keys[i]));
  }
  const nonces = new Array(accounts).fill(0n);
  const token = new Address(hexToBytes(TOKEN_ADDRESS));
  const random = rng(opts.seed ?? 0xa1de7);
  const pick = (n) => Math.floor(random() * n);
  let freshCounter = 0;
  let fillCursor = 0n;
  let fillCalls = 0;

  const chainPath = join(outDir, 'chain.rlp');
  const fd = openSync(chainPath, 'w');
  let parent = genesisBlock;
  let totalGas = 0n;
  let totalTxs = 0;
  const counts = { eth: 0, token: 0, fill: 0 };
  const gasByKind = { eth: 0n, token: 0n, fill: 0n };
  try {
    for (let n = 1; n <= blocks; n++) {
      const number = BigInt(n);
      const timestamp = GENESIS_TIMESTAMP + number * BLOCK_TIME;
      common.setHardforkBy({ blockNumber: number, timestamp });
      const baseFee = parent.header.calcNextBaseFee();
      const builder = await buildBlock(vm, {
        parentBlock: parent,
        headerData: pow
          ? { number, timestamp, gasLimit, coinbase: hexToBytes(FEE_RECIPIENT), difficulty: POW_DIFFICULTY }
          : {
              number,
              timestamp,
              gasLimit,
              coinbase: hexToBytes(FEE_RECIPIENT),
              mixHash: keccak256(utf8ToBytes(`prevrandao-${n}`)),
              ...(cancun ? { parentBeaconBlockRoot: keccak256(utf8ToBytes(`beacon-${n}`)) } : {}),
            },
        withdrawals: pow
          ? undefined
          : [
              {
                index: BigInt(2 * n - 2),
                validatorIndex: BigInt(n % 97),
                address: addrs[n % accounts].toString(),
                amount: 1_000_000n,
              },
              {
                index: BigInt(2 * n - 1),
                validatorIndex: BigInt((n + 1) % 97),
                address: addrs[(n * 7) % accounts].toString(),
                amount: 2_000_000n,
              },
            ],
        blockOpts: { setHardfork: true, putBlockIntoBlockchain: true },
      });

      const tip = 1_000_000_000n;
      const maxFee = baseFee * 2n + tip;
      let txs = 0;
      for (;;) {
        if (txs >= txCap) break;
        const remaining = gasLimit - builder.gasUsed;
        if (remaining < 21_000n) break;
        const from = pick(accounts);
        const r = random();
        let kind = r < 0.45 ? 'eth' : r < 0.8 ? 'token' : 'fill';
        if (kind === 'fill' && remaining < 500_000n) kind = 'token';
        if (kind === 'token' && remaining < 80_000n) kind = 'eth';
        let to;
        let data;
        let value = 0n;
        let txGas;
        if (kind === 'eth') {
          to =
            random() < 0.8
              ? addrs[pick(accounts)]
              : new Address(keccak256(utf8ToBytes(`fresh-${freshCounter++}`)).subarray(12));
          value = BigInt(1 + pick(1_000_000)) * 1_000_000_000n;
          txGas = 21_000n;
        } else if (kind === 'token') {
          to = token;
          const recipient =
            random() < 0.8
              ? addrs[pick(accounts)].bytes
              : keccak256(utf8ToBytes(`holder-${freshCounter++}`)).subarray(12);
          data = concatBytes(
            SELECTORS.transfer,
            setLengthLeft(recipient, 32),
            setLengthLeft(bigIntToBytes(BigInt(1 + pick(1000))), 32),
          );
          txGas = 80_000n;
        } else {
          to = token;
          let start = fillCursor;
          if (fillCalls++ % 2 === 1 && fillCursor > 0n)
            start = BigInt(pick(Number(fillCursor / FILL_SLOTS))) * FILL_SLOTS;
          else fillCursor += FILL_SLOTS;
          data = concatBytes(
            SELECTORS.fill,
            setLengthLeft(bigIntToBytes(start), 32),
            setLengthLeft(bigIntToBytes(FILL_SLOTS), 32),
          );
          txGas = 500_000n;
        }
        const fields = { nonce: nonces[from], gasLimit: txGas, to, value, data };
        const tx =
          totalTxs % 10 === 9
            ? createLegacyTx({ ...fields, gasPrice: maxFee }, { common }).sign(keys[from])
            : createFeeMarket1559Tx(
                { ...fields, maxFeePerGas: maxFee, maxPriorityFeePerGas: tip, chainId: CHAIN_ID },
                { common },
              ).sign(keys[from]);
        const res = await addTransaction(builder, tx);
        if (res.execResult.exceptionError)
          throw new Error(`block ${n}: ${kind} tx failed: ${res.execResult.exceptionError.error}`);
        nonces[from]++;
        txs++;
        totalTxs++;
        counts[kind]++;
        gasByKind[kind] += res.totalGasSpent;
      }
      const { block } = await builder.build();
      writeSync(fd, block.serialize());
      totalGas += block.header.gasUsed;
      parent = block;
      if (n % 100 === 0)
        log(
          `block ${n}: ${txs} txs, ${block.header.gasUsed} gas, ${((performance.now() - t0) / 1000).toFixed(1)} s`,
        );
    }
  } finally {
    closeSync(fd);
  }
  const seconds = (performance.now() - t0) / 1000;
  return {
    genesisPath,
    chainPath,
    headHash: bytesToHex(parent.hash()),
    headNumber: Number(parent.header.number),
    genesisHash: bytesToHex(genesisBlock.hash()),
    gasUsed: totalGas,
    txCount: totalTxs,
    txKinds: counts,
    gasByKind,
    gasLimit,
    seconds,
  };
}

// ---------------------------------------------------------------------------------------------------
// Command line

function parseArgs(argv) {
  const args = {};
  for (const a of argv) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`unexpected argument ${a}`);
    args[m[1]] = m[2] ?? true;
  }
  return args;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/genchain.mjs')) {
  const args = parseArgs(process.argv.slice(2));
  if (args['genesis-only']) {
    const out = resolve(args.out ?? join(import.meta.dirname, '../test/fixtures/bench-genesis.json'));
    writeFileSync(out, `${JSON.stringify(benchGenesis(), null, 2)}\n`);
    console.log(`wrote ${out}`);
  } else {
    const r = await generateChain({
      blocks: Number(args.blocks ?? 1000),
      gasLimit: BigInt(args['gas-limit'] ?? DEFAULT_GAS_LIMIT),
      txsPerBlock: args.txs ? Number(args.txs) : undefined,
      outDir: args.out ?? join(tmpdir(), 'alder-bench-chain'),
      log: (m) => console.error(m),
    });
    console.log(
      JSON.stringify(
        r,
        (_, v) => (typeof v === 'bigint' ? v.toString() : typeof v === 'number' ? Number(v.toFixed(2)) : v),
        2,
      ),
    );
  }
}
