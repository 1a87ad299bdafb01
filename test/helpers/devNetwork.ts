/**
 * The dev network as a dapp developer meets it: the built CLI with `--network=dev` and mining on, the
 * prefunded test keys, and a small contract assembled here (no compiler) that the library tests deploy.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { type NodeProcess, removeDir, startNode, tempDir } from './node.js';

/** Besu's public dev-network test keys (never use outside a local development chain). */
export const DEV_KEYS = {
  a: '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63',
  b: '0xc87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3',
  c: '0xae6ae8e5ccbfb04590405997ee2d52d2b330726137b875053c36d94e974d162f',
} as const;
export const DEV_ADDRESSES = {
  a: '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73',
  b: '0x627306090abab3a6e1400e9345bc60c78a8bef57',
  c: '0xf17f52151ebef6c7334fad080c5704d77216b732',
} as const;
export const DEV_CHAIN_ID = 1337;
/** Receives the block rewards, so the senders' balances move only by what they spend. */
export const COINBASE = '0x00000000000000000000000000000000000c0ffe';

export interface DevNode extends NodeProcess {
  close(): Promise<void>;
}

export async function startDevNode(extra: string[] = []): Promise<DevNode> {
  const dir = tempDir('alder-dev-');
  try {
    const node = await startNode([
      '--network=dev',
      `--data-path=${dir}`,
      '--miner-enabled',
      `--miner-coinbase=${COINBASE}`,
      ...extra,
    ]);
    return {
      ...node,
      async close() {
        await node.stop();
        removeDir(dir);
      },
    };
  } catch (err) {
    removeDir(dir);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------------
// The Store contract
//
//   constructor()                   value = 7
//   value() view returns (uint256)  the stored value
//   set(uint256 v)                  stores v and emits ValueSet(msg.sender, v); reverts Error("zero") on 0
//   event ValueSet(address indexed by, uint256 value)
//
// London has no PUSH0, so every constant is a PUSH1 or wider.

export const STORE_ABI = [
  {
    type: 'function',
    name: 'value',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ name: '', type: 'uint256' }],
  },
  {
    type: 'function',
    name: 'set',
    stateMutability: 'nonpayable',
    inputs: [{ name: 'v', type: 'uint256' }],
    outputs: [],
  },
  {
    type: 'event',
    name: 'ValueSet',
    anonymous: false,
    inputs: [
      { name: 'by', type: 'address', indexed: true },
      { name: 'value', type: 'uint256', indexed: false },
    ],
  },
] as const;

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const keccak = (s: string) => keccak_256(new TextEncoder().encode(s));
export const VALUE_SET_TOPIC = `0x${hex(keccak('ValueSet(address,uint256)'))}`;

type Item = string | ['push', string] | ['label', string] | ['ref', string];

// biome-ignore format: an opcode table
const OPS: Record<string, number> = {
  STOP: 0x00, SHL: 0x1b, SHR: 0x1c, ISZERO: 0x15, EQ: 0x14, CALLER: 0x33, CALLDATALOAD: 0x35, CODECOPY: 0x39,
  MSTORE: 0x52, SLOAD: 0x54, SSTORE: 0x55, JUMPI: 0x57, DUP1: 0x80, LOG2: 0xa2, RETURN: 0xf3, REVERT: 0xfd,
};

/** Op names, `['push', hex]` (PUSH1..PUSH32 by length), labels (JUMPDEST) and 2-byte label references. */
function assemble(items: Item[]): string {
  const out: number[] = [];
  const labels = new Map<string, number>();
  const fixups: Array<[number, string]> = [];
  for (const item of items) {
    if (typeof item === 'string') {
      const op = OPS[item];
      if (op === undefined) throw new Error(`unknown op ${item}`);
      out.push(op);
    } else if (item[0] === 'push') {
      const bytes = Buffer.from(item[1].length % 2 ? `0${item[1]}` : item[1], 'hex');
      out.push(0x5f + bytes.length, ...bytes);
    } else if (item[0] === 'label') {
      labels.set(item[1], out.length);
      out.push(0x5b);
    } else {
      out.push(0x61, 0, 0);
      fixups.push([out.length - 2, item[1]]);
    }
  }
  for (const [at, name] of fixups) {
    const dest = labels.get(name);
    if (dest === undefined) throw new Error(`unknown label ${name}`);
    out[at] = dest >> 8;
    out[at + 1] = dest & 0xff;
  }
  return hex(new Uint8Array(out));
}

const selector = (sig: string) => hex(keccak(sig).subarray(0, 4));
const word = (s: string) => Buffer.from(s).toString('hex').padEnd(64, '0');

function storeRuntime(): string {
  // biome-ignore format: an assembly listing
  return assemble([
    ['push', '00'], 'CALLDATALOAD', ['push', 'e0'], 'SHR',
    'DUP1', ['push', selector('value()')], 'EQ', ['ref', 'value'], 'JUMPI',
    'DUP1', ['push', selector('set(uint256)')], 'EQ', ['ref', 'set'], 'JUMPI',
    ['push', '00'], 'DUP1', 'REVERT',

    ['label', 'value'],
    ['push', '00'], 'SLOAD', ['push', '00'], 'MSTORE', ['push', '20'], ['push', '00'], 'RETURN',

    ['label', 'set'],
    ['push', '04'], 'CALLDATALOAD', 'DUP1', 'ISZERO', ['ref', 'zero'], 'JUMPI',
    'DUP1', ['push', '00'], 'SSTORE',
    ['push', '00'], 'MSTORE',
    'CALLER', ['push', VALUE_SET_TOPIC.slice(2)], ['push', '20'], ['push', '00'], 'LOG2',
    'STOP',

    // revert Error("zero"): selector, offset 0x20, length 4, the padded string
    ['label', 'zero'],
    ['push', '08c379a0'], ['push', 'e0'], 'SHL', ['push', '00'], 'MSTORE',
    ['push', '20'], ['push', '04'], 'MSTORE',
    ['push', '04'], ['push', '24'], 'MSTORE',
    ['push', word('zero')], ['push', '44'], 'MSTORE',
    ['push', '64'], ['push', '00'], 'REVERT',
  ]);
}

/** Creation code: stores 7, then returns the runtime (copied from behind this prefix). */
export function storeBytecode(): `0x${string}` {
  const runtime = storeRuntime();
  const size = (runtime.length / 2).toString(16).padStart(4, '0');
  const prefix = (offset: number) =>
    // biome-ignore format: an assembly listing
    assemble([
      ['push', '07'], ['push', '00'], 'SSTORE',
      ['push', size], ['push', offset.toString(16).padStart(4, '0')], ['push', '00'], 'CODECOPY',
      ['push', size], ['push', '00'], 'RETURN',
    ]);
  const length = prefix(0).length / 2;
  return `0x${prefix(length)}${runtime}`;
}
