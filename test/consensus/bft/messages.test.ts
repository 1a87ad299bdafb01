import { RLP } from '@ethereumjs/rlp';
import { describe, expect, it } from 'vitest';
import { FutureMessageBuffer } from '../../../src/consensus/bft/protocol/futureBuffer.js';
import {
  BftCodec,
  type BftMessage,
  MalformedBftMessageError,
  type Rlp,
} from '../../../src/consensus/bft/protocol/messages.js';
import { BadSignatureError, recoverAddress } from '../../../src/consensus/bft/protocol/signing.js';
import { MessageTracker } from '../../../src/consensus/bft/protocol/tracker.js';
import { keccak256 } from '../../../src/crypto/index.js';
import { addressOf, blockCodec, createNetwork, keyOf } from './inProcess.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const digest = keccak256(new Uint8Array([1, 2, 3]));

function sampleBlock(variant: 'ibft2' | 'qbft', round: number) {
  const net = createNetwork(variant, 4, { blockPeriodMilliseconds: 50, requestTimeoutSeconds: 1 });
  const node = net.nodes[0] as (typeof net.nodes)[0];
  const ops = (node as unknown as { ops: import('../../../src/consensus/bft/round/ops.js').BftChainOps }).ops;
  return ops.createBlock((node.chain[0] as (typeof node.chain)[0]).header, round, 1_000n);
}

describe.each(['ibft2', 'qbft'] as const)('%s messages', (variant) => {
  const codec = new BftCodec(variant, blockCodec);
  const key = keyOf(0);
  const me = addressOf(key);
  const id = { height: 5n, round: 2 };

  const roundTrip = (msg: BftMessage) => {
    const data = codec.encode(msg);
    const back = codec.decode(codec.codeOf(msg), data);
    expect(back.type).toBe(msg.type);
    expect(back.signed.author).toBe(me);
    expect(back.signed.payload.id).toEqual(msg.signed.payload.id);
    expect(hex(codec.encode(back))).toBe(hex(data));
    return back;
  };

  it('encodes every message as it decodes it, signed by its author', async () => {
    const prepare = codec.createPrepare(key, id, digest);
    expect(hex((roundTrip(prepare).signed.payload as { digest: Uint8Array }).digest)).toBe(hex(digest));
    const seal = new Uint8Array(65).fill(7);
    const commit = roundTrip(codec.createCommit(key, id, digest, seal));
    expect(hex((commit.signed.payload as { seal: Uint8Array }).seal)).toBe(hex(seal));

    const block = await sampleBlock(variant, 1);
    const rc = codec.createRoundChange(key, id, {
      round: 1,
      block,
      prepares: [codec.createPrepare(keyOf(1), { height: 5n, round: 1 }, blockCodec.digest(block)).signed],
      proposal: codec.createProposal(keyOf(2), { height: 5n, round: 1 }, block).signed,
    });
    const rcBack = roundTrip(rc);
    expect(rcBack.type === 'roundChange' && rcBack.signed.payload.prepared?.round).toBe(1);
    expect(rcBack.type === 'roundChange' && rcBack.prepares.map((p) => p.author)).toEqual([
      addressOf(keyOf(1)),
    ]);
    expect(rcBack.type === 'roundChange' && hex(rcBack.block?.serialize() ?? new Uint8Array())).toBe(
      hex(block.serialize()),
    );
    roundTrip(codec.createRoundChange(key, id));

    const proposal = codec.createProposal(key, id, block, {
      roundChanges: [rc.signed],
      prepares: rc.prepares,
    });
    const pBack = roundTrip(proposal);
    expect(pBack.type === 'proposal' && pBack.roundChanges.map((r) => r.author)).toEqual([me]);
    expect(hex(pBack.signed.payload.digest)).toBe(hex(blockCodec.digest(block)));
  });

  it("lays payloads out and signs them as Besu's codecs do", () => {
    const prepare = codec.createPrepare(key, id, digest);
    const top = RLP.decode(codec.encode(prepare)) as Rlp[];
    const payload = top[0] as Uint8Array[];
    if (variant === 'ibft2') {
      expect(payload.map(hex)).toEqual(['0000000000000005', '00000002', hex(digest)]);
      const body = RLP.encode(payload);
      expect(recoverAddress(top[1] as Uint8Array, keccak256(Uint8Array.from([1, ...body])))).toBe(me);
    } else {
      expect(payload.map(hex)).toEqual(['05', '02', hex(digest)]);
      const signed = keccak256(RLP.encode([Uint8Array.from([0x13]), payload]));
      expect(recoverAddress(top[1] as Uint8Array, signed)).toBe(me);
    }
    const rc = RLP.decode(codec.encode(codec.createRoundChange(key, id))) as Rlp[];
    // No prepared round: IBFT writes null, QBFT an empty list (and an empty list for the block).
    if (variant === 'ibft2') {
      expect(((rc[0] as Rlp[])[0] as Rlp[])[2]).toEqual(new Uint8Array(0));
      expect(rc[1]).toEqual(new Uint8Array(0));
    } else {
      expect(((rc[0] as Rlp[])[0] as Rlp[])[2]).toEqual([]);
      expect(rc[1]).toEqual([]);
      expect(rc[2]).toEqual([]);
    }
  });

  it('refuses a forged, tampered or malformed message', () => {
    const data = codec.encode(codec.createPrepare(key, id, digest));
    const top = RLP.decode(data) as Rlp[];
    const sig = Uint8Array.from(top[1] as Uint8Array);
    // A changed payload recovers to someone else; a broken signature recovers to no one.
    const forged = RLP.encode([[...(top[0] as Rlp[]).slice(0, 2), keccak256(digest)], sig]);
    expect(codec.decode(codec.codes.prepare, forged).signed.author).not.toBe(me);
    const badV = Uint8Array.from(sig);
    badV[64] = 5;
    expect(() => codec.decode(codec.codes.prepare, RLP.encode([top[0] as Rlp[], badV]))).toThrow(
      BadSignatureError,
    );
    // The same signature with s in the upper half (malleated) is refused, as Besu refuses it.
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const s = BigInt(`0x${hex(sig.subarray(32, 64))}`);
    const high = Uint8Array.from(sig);
    high.set(Buffer.from((n - s).toString(16).padStart(64, '0'), 'hex'), 32);
    high[64] = 1 - (sig[64] as number);
    expect(() => codec.decode(codec.codes.prepare, RLP.encode([top[0] as Rlp[], high]))).toThrow(
      /upper half/,
    );
    expect(() => codec.decode(codec.codes.prepare, new Uint8Array([0xc1]))).toThrow(MalformedBftMessageError);
    expect(() => codec.decode(codec.codes.prepare, RLP.encode([[1, 2], sig]))).toThrow(
      MalformedBftMessageError,
    );
    expect(() => codec.decode(codec.codes.commit, data)).toThrow(MalformedBftMessageError);
    expect(() => codec.decode(7, data)).toThrow(MalformedBftMessageError);
  });
});

describe('message bounds', () => {
  it('remembers at most the limit of seen messages, forgetting the oldest', () => {
    const t = new MessageTracker(3);
    for (let i = 0; i < 5; i++) expect(t.add(Uint8Array.of(i))).toBe(true);
    expect(t.add(Uint8Array.of(4))).toBe(false);
    expect(t.has(Uint8Array.of(0))).toBe(false);
    expect(t.size).toBe(3);
  });

  it('keeps future messages within the distance and the limit, dropping the highest heights first', () => {
    const b = new FutureMessageBuffer<string>(10n, 4, 1n);
    b.add(1n, 'current');
    b.add(12n, 'too far');
    b.add(2n, 'a');
    b.add(2n, 'b');
    b.add(3n, 'c');
    b.add(11n, 'd');
    b.add(4n, 'e');
    expect(b.size).toBe(4);
    expect(b.take(2n)).toEqual(['a', 'b']);
    expect(b.take(4n)).toEqual(['e']);
    expect(b.size).toBe(0);
    const none = new FutureMessageBuffer<string>(10n, 0, 1n);
    none.add(2n, 'x');
    expect(none.size).toBe(0);
  });
});
