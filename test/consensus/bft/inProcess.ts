/**
 * In-process BFT networks for the round state machine: each node has its own chain of headers in
 * memory, extraData in QBFT's layout (vanity, validators, vote, round, seals), BFT hashing, and an
 * in-memory transport that delivers messages between the nodes' controllers (with the wire encoding,
 * so every message is decoded and its signature recovered on arrival).
 */
import { type Block, type BlockHeader, createBlock, createBlockFromBytesArray } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import {
  BftCodec,
  type BftVariant,
  type BlockCodec,
  type Rlp,
} from '../../../src/consensus/bft/protocol/messages.js';
import { addressOfKey, recoverAddress } from '../../../src/consensus/bft/protocol/signing.js';
import { BFT_QUEUE_DEFAULTS, BftController } from '../../../src/consensus/bft/round/controller.js';
import { type BftChainOps, quorumOf } from '../../../src/consensus/bft/round/ops.js';
import { keccak256, publicKeyOf } from '../../../src/crypto/index.js';

export { until } from '../../helpers/poll.js';

export const common = new Common({ chain: Mainnet, hardfork: Hardfork.London });
const opts = { common, skipConsensusFormatValidation: true };

export function keyOf(i: number): Uint8Array {
  const k = new Uint8Array(32);
  k[31] = i + 1;
  k[0] = 0x42;
  return k;
}

export const addressOf = (key: Uint8Array): string => addressOfKey(publicKeyOf(key));

interface Extra {
  vanity: Uint8Array;
  validators: Uint8Array[];
  vote: Rlp;
  round: number;
  seals: Uint8Array[];
}

const enc = (n: number) =>
  n === 0
    ? new Uint8Array(0)
    : Uint8Array.from(
        Buffer.from(n.toString(16).padStart(2 * Math.ceil(n.toString(16).length / 2), '0'), 'hex'),
      );

export function decodeExtra(extra: Uint8Array): Extra {
  const v = RLP.decode(extra) as Rlp[];
  const r = v[3] as Uint8Array;
  return {
    vanity: v[0] as Uint8Array,
    validators: v[1] as Uint8Array[],
    vote: v[2] as Rlp,
    round: r.length === 0 ? 0 : Number.parseInt(Buffer.from(r).toString('hex'), 16),
    seals: v[4] as Uint8Array[],
  };
}

export function encodeExtra(e: Extra, withSeals = true): Uint8Array {
  const items: Rlp[] = [e.vanity, e.validators, e.vote, enc(e.round)];
  if (withSeals) items.push(e.seals);
  return RLP.encode(items);
}

function withExtra(block: Block, extra: Uint8Array): Block {
  const raw = block.raw();
  (raw[0] as Uint8Array[])[12] = extra;
  return createBlockFromBytesArray(raw as never, opts);
}

export function commitHash(header: BlockHeader): Uint8Array {
  const raw = header.raw();
  raw[12] = encodeExtra(decodeExtra(header.extraData), false);
  return keccak256(RLP.encode(raw));
}

export function chainHash(header: BlockHeader): string {
  const raw = header.raw();
  const e = decodeExtra(header.extraData);
  raw[12] = RLP.encode([e.vanity, e.validators, e.vote]);
  return Buffer.from(keccak256(RLP.encode(raw))).toString('hex');
}

export const blockCodec: BlockCodec = {
  decode: (values) => createBlockFromBytesArray(values as never, opts),
  encode: (block) => block.raw() as Rlp,
  digest: (block) => commitHash(block.header),
};

export interface Node {
  key: Uint8Array;
  address: string;
  chain: Block[];
  controller: BftController;
  up: boolean;
  /** Blocks the proposer failed to import or validation rejected. */
  failures: string[];
  /** Makes proposals from this node invalid (a proposer that misbehaves). */
  inbox: Array<{ code: number; data: Uint8Array; from: string }>;
}

export interface InProcessNetwork {
  nodes: Node[];
  codec: BftCodec;
  validators: string[];
  /** Delivers a raw message to a node as if a peer sent it. */
  inject(to: Node, code: number, data: Uint8Array, from: string): void;
  stop(): Promise<void>;
  start(node: Node): void;
  halt(node: Node): Promise<void>;
}

export function createNetwork(
  variant: BftVariant,
  n: number,
  timing: {
    blockPeriodMilliseconds: number;
    requestTimeoutSeconds: number;
    emptyBlockPeriodSeconds?: number;
  },
): InProcessNetwork {
  const codec = new BftCodec(variant, blockCodec);
  const keys = Array.from({ length: n }, (_, i) => keyOf(i));
  const validators = keys.map(addressOf).sort();
  const genesis = createBlock(
    {
      header: {
        number: 0n,
        gasLimit: 30_000_000n,
        difficulty: 1n,
        timestamp: BigInt(Math.floor(Date.now() / 1000) - 10),
        baseFeePerGas: 7n,
        extraData: encodeExtra({
          vanity: new Uint8Array(32),
          validators: validators.map((v) => Uint8Array.from(Buffer.from(v.slice(2), 'hex'))),
          vote: [],
          round: 0,
          seals: [],
        }),
      },
    },
    opts,
  );
  const nodes: Node[] = [];
  const deliver = (from: Node, code: number, data: Uint8Array, exclude: readonly string[]) => {
    for (const to of nodes) {
      if (to === from || !to.up || !from.up || exclude.includes(to.address)) continue;
      // Delivery is asynchronous, like a socket.
      setImmediate(() => to.up && to.controller.receive(code, data, from.address));
    }
  };
  for (const key of keys) {
    const address = addressOf(key);
    const node = { key, address, chain: [genesis], up: true, failures: [], inbox: [] } as unknown as Node;
    const head = () => (node.chain[node.chain.length - 1] as Block).header;
    const ops: BftChainOps = {
      validatorsAfter: async () => validators,
      proposerOf: (h) => h.coinbase.toString().toLowerCase(),
      timing: () => ({ emptyBlockPeriodSeconds: 0, ...timing, blockPeriodSeconds: 1 }),
      async createBlock(parent, round, timestamp) {
        return createBlock(
          {
            header: {
              number: parent.number + 1n,
              parentHash: Uint8Array.from(Buffer.from(chainHash(parent), 'hex')),
              gasLimit: parent.gasLimit,
              difficulty: 1n,
              timestamp: timestamp > parent.timestamp ? timestamp : parent.timestamp,
              baseFeePerGas: 7n,
              coinbase: address,
              extraData: encodeExtra({ ...decodeExtra(parent.extraData), vote: [], round, seals: [] }),
            },
          },
          opts,
        );
      },
      async validateBlock(block, parent) {
        if (block.header.number !== parent.number + 1n) return 'wrong number';
        if (Buffer.from(block.header.parentHash).toString('hex') !== chainHash(parent)) return 'wrong parent';
        if (!validators.includes(block.header.coinbase.toString().toLowerCase()))
          return 'coinbase not a validator';
        return undefined;
      },
      roundOf: (block) => decodeExtra(block.header.extraData).round,
      replaceRound: (block, round) =>
        withExtra(block, encodeExtra({ ...decodeExtra(block.header.extraData), round })),
      digest: (block) => commitHash(block.header),
      seal: (block, round, seals) =>
        withExtra(block, encodeExtra({ ...decodeExtra(block.header.extraData), round, seals: [...seals] })),
      async importBlock(block) {
        const parent = head();
        if (block.header.number !== parent.number + 1n) return 'not the next block';
        const e = decodeExtra(block.header.extraData);
        const hash = commitHash(block.header);
        const signers = new Set(e.seals.map((s) => recoverAddress(s, hash)));
        if (signers.size < quorumOf(validators.length)) return 'too few seals';
        for (const s of signers) if (!validators.includes(s)) return 'seal by a non-validator';
        node.chain.push(block);
        // The chain's new-head event, and NewBlock to the peers (they import what they lack).
        setImmediate(() => {
          node.controller.newHead(block.header);
          for (const other of nodes) if (other !== node && other.up) void importFromPeer(other, block);
        });
        return undefined;
      },
    };
    node.controller = new BftController({
      codec,
      ops,
      nodeKey: key,
      localAddress: address,
      limits: { ...BFT_QUEUE_DEFAULTS },
      head,
      transport: { send: (code, data, exclude) => deliver(node, code, data, exclude) },
    });
    (node as { ops?: BftChainOps }).ops = ops;
    nodes.push(node);
  }
  async function importFromPeer(node: Node, block: Block) {
    const ops = (node as unknown as { ops: BftChainOps }).ops;
    const last = node.chain[node.chain.length - 1] as Block;
    if (block.header.number !== last.header.number + 1n) return;
    await ops.importBlock(block);
  }
  return {
    nodes,
    codec,
    validators,
    inject: (to, code, data, from) => to.controller.receive(code, data, from),
    start(node) {
      // Catch up from the longest chain first (what full sync does for a real node).
      const longest = nodes.reduce((a, b) => (b.chain.length > a.chain.length ? b : a));
      node.chain.push(...longest.chain.slice(node.chain.length));
      node.up = true;
      node.controller.start();
    },
    async halt(node) {
      node.up = false;
      await node.controller.stop();
    },
    async stop() {
      for (const node of nodes) {
        node.up = false;
        await node.controller.stop();
      }
    },
  };
}

export function heads(net: InProcessNetwork): bigint[] {
  return net.nodes.map((n) => (n.chain[n.chain.length - 1] as Block).header.number);
}
