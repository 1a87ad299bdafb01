/**
 * The eth/68 session of a real `bin/alder` as a devp2p client on 127.0.0.1 sees it: the status checks
 * (network id, fork id, genesis hash → disconnect with SUBPROTOCOL_TRIGGERED), answers to requests, and
 * the disconnects (BREACH_OF_PROTOCOL) for messages before status, malformed RLP, unrequested
 * responses and messages over 10 MB.
 */
import { createHash } from 'node:crypto';
import { type Peer, RLPx } from '@ethereumjs/devp2p';
import { RLP } from '@ethereumjs/rlp';
import * as snappy from 'snappyjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkIdService } from '../../src/chain/forkId.js';
import { createCommon, parseGenesis } from '../../src/config/genesis.js';
import { customCrypto } from '../../src/crypto/index.js';
import { nodePublicKey } from '../../src/crypto/nodeKey.js';
import { cliqueGenesis, testKey } from '../clique/helpers.js';
import { rpc } from '../helpers/node.js';
import { type NetNode, TestNetwork, until } from './helpers.js';

const genesis = cliqueGenesis([testKey('protocol-signer').address]);
const spec = parseGenesis(genesis);
const common = createCommon(spec, { customCrypto: customCrypto() });
const net = new TestNetwork(genesis);
let node: NetNode;
let genesisHash: Uint8Array;

beforeAll(async () => {
  node = await net.add(testKey('protocol-node').key);
  await net.start(node);
  const g = await rpc<{ hash: string }>(node.proc?.url as string, 'eth_getBlockByNumber', ['0x0', false]);
  genesisHash = Uint8Array.from(Buffer.from(g.hash.slice(2), 'hex'));
}, 60_000);
afterAll(() => net.stopAll(), 60_000);

const u = (n: number | bigint) => {
  const b = BigInt(n);
  return b === 0n
    ? new Uint8Array()
    : Uint8Array.from(
        Buffer.from(b.toString(16).padStart(Math.ceil(b.toString(16).length / 2) * 2, '0'), 'hex'),
      );
};

interface Session {
  messages: Array<[number, Uint8Array]>;
  send(code: number, payload: Uint8Array): void;
  closed: Promise<number | undefined>;
  close(): void;
}

/** A devp2p client offering eth/68 whose messages the test writes by hand. */
async function connect(seed: string): Promise<Session> {
  const messages: Array<[number, Uint8Array]> = [];
  let sendRaw: ((code: number, data: Uint8Array) => void) | undefined;
  class Raw {
    constructor(_version: number, _peer: Peer, send: (code: number, data: Uint8Array) => void) {
      sendRaw = send;
    }
    _handleMessage(code: number, payload: Uint8Array) {
      messages.push([code, payload]);
    }
  }
  const key = createHash('sha256').update(seed).digest();
  const rlpx = new RLPx(new Uint8Array(key), {
    capabilities: [{ name: 'eth', version: 68, length: 17, constructor: Raw as never }],
    common,
    maxPeers: 2,
  });
  let resolveClosed: (r: number | undefined) => void = () => undefined;
  const closed = new Promise<number | undefined>((r) => {
    resolveClosed = r;
  });
  const added = new Promise<void>((r) => rlpx.events.once('peer:added', () => r()));
  rlpx.events.on('peer:removed', (_p, reason) => resolveClosed(reason as number | undefined));
  rlpx.events.on('peer:error', () => undefined);
  await rlpx.connect({ id: nodePublicKey(node.key), address: '127.0.0.1', tcpPort: node.p2pPort });
  await added;
  return {
    messages,
    send: (code, payload) => sendRaw?.(code, snappy.compress(payload)),
    closed,
    close: () => rlpx.destroy(),
  };
}

function status(over: { network?: bigint; genesis?: Uint8Array; forkHash?: Uint8Array } = {}): Uint8Array {
  const fork = ForkIdService.of(genesisHash, spec).forkIdAt(0n, 0n);
  return RLP.encode([
    u(68),
    u(over.network ?? 4242n),
    u(1),
    genesisHash,
    over.genesis ?? genesisHash,
    [over.forkHash ?? fork.hash, u(fork.next)],
  ]);
}

const SUBPROTOCOL_TRIGGERED = 0x10;
const BREACH_OF_PROTOCOL = 0x02;

describe('eth/68 status checks', () => {
  it('answers a matching status and serves headers', async () => {
    const s = await connect('good');
    s.send(0, status());
    await until('status', async () => (s.messages.some(([c]) => c === 0) ? true : undefined), 10_000);
    const theirs = RLP.decode(s.messages.find(([c]) => c === 0)?.[1] as Uint8Array) as Uint8Array[];
    expect(Buffer.from(theirs[4] as Uint8Array).equals(Buffer.from(genesisHash))).toBe(true);
    s.send(3, RLP.encode([u(7), [u(0), u(1000), u(0), u(0)]]));
    const reply = await until('headers', async () => s.messages.find(([c]) => c === 4)?.[1], 10_000);
    const [id, headers] = RLP.decode(reply) as [Uint8Array, Uint8Array[][]];
    expect(Buffer.from(id).toString('hex')).toBe('07');
    expect(headers).toHaveLength(1);
    s.close();
  });

  it.each([
    ['network id', { network: 1n }],
    ['fork id', { forkHash: Uint8Array.from([1, 2, 3, 4]) }],
    ['genesis hash', { genesis: new Uint8Array(32).fill(7) }],
  ])('disconnects a peer with another %s', async (_what, over) => {
    const s = await connect(`bad-${_what}`);
    s.send(0, status(over));
    expect(await s.closed).toBe(SUBPROTOCOL_TRIGGERED);
    s.close();
  });
});

describe('misbehaving peers', () => {
  it.each([
    ['a request before status', (s: Session) => s.send(3, RLP.encode([u(1), [u(0), u(1), u(0), u(0)]]))],
    [
      'malformed RLP',
      (s: Session) => {
        s.send(0, status());
        s.send(3, Uint8Array.from([0xf9, 0xff]));
      },
    ],
    [
      'an unrequested response',
      (s: Session) => {
        s.send(0, status());
        s.send(4, RLP.encode([u(99), []]));
      },
    ],
    [
      'a message over 10 MB',
      (s: Session) => {
        s.send(0, status());
        s.send(2, RLP.encode([new Uint8Array(10 * 1024 * 1024 + 1)]));
      },
    ],
  ])('disconnects on %s', async (_what, misbehave) => {
    const s = await connect(`misbehave-${_what}`);
    misbehave(s);
    expect(await s.closed).toBe(BREACH_OF_PROTOCOL);
    s.close();
    // The node is unharmed.
    expect(await rpc(node.proc?.url as string, 'net_listening')).toBe(true);
  });
});
