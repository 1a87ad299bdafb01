/**
 * The BFT extraData codecs against Besu's vectors (its QBFT codec test encoding, the genesis extraData
 * of Besu's IBFT 2.0 documentation and of its QBFT validator-contract test genesis), the IBFT/QBFT
 * differences, malformed inputs, the block hash and committed seals (Besu's block-hashing test header,
 * sealed by the keys 1–4), and the quorum, proposer rotation and round timer arithmetic.
 */
import { createBlockHeader } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { createCommon, parseGenesis } from '../../src/config/genesis.js';
import {
  type BftExtraData,
  BftExtraDataError,
  decodeExtraData,
  encodeExtraData,
  genesisExtraData,
} from '../../src/consensus/bft/extraData.js';
import {
  addressOfPrivateKey,
  commitSealDigest,
  recoverCommitters,
  signCommitSeal,
} from '../../src/consensus/bft/hashing.js';
import { proposerForRound, quorum, roundTimeoutMs } from '../../src/consensus/bft/rules.js';
import { VoteTally } from '../../src/consensus/bft/validators.js';
import { VoteProposals } from '../../src/consensus/bft/votes.js';
import { customCrypto, keccak256 } from '../../src/crypto/index.js';

const hex = (s: string) => hexToBytes(s as `0x${string}`);
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const VANITY = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const word = (n: number) => n.toString(16).padStart(64, '0');
const seal = (r: number, s: number, v: number) =>
  hex(`0x${word(r)}${word(s)}${v.toString(16).padStart(2, '0')}`);

// Besu's QbftExtraDataCodecTest: vanity 01..20, validators 1 and 2, an add vote for 1, round
// 0xFEDCBA, seals (r=1, s=10, v=0) and (r=10, s=1, v=0).
const QBFT_VECTOR =
  '0xf8f0a00102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20ea940000000000000000' +
  '000000000000000000000001940000000000000000000000000000000000000002d7940000000000000000' +
  '00000000000000000000000181ff83fedcbaf886b841000000000000000000000000000000000000000000' +
  '0000000000000000000001000000000000000000000000000000000000000000000000000000000000000a' +
  '00b841000000000000000000000000000000000000000000000000000000000000000a0000000000000000' +
  '00000000000000000000000000000000000000000000000100';
const VECTOR_DATA: BftExtraData = {
  vanity: VANITY,
  validators: [addr(1), addr(2)],
  vote: { recipient: addr(1), add: true },
  round: 0xfedcba,
  seals: [seal(1, 10, 0), seal(10, 1, 0)],
};

describe('BFT extraData codecs', () => {
  it("decodes and re-encodes Besu's QBFT vector", () => {
    expect(decodeExtraData('qbft', hex(QBFT_VECTOR))).toEqual(VECTOR_DATA);
    expect(bytesToHex(encodeExtraData('qbft', VECTOR_DATA))).toBe(QBFT_VECTOR);
  });

  it("writes Besu's genesis extraData for IBFT 2.0 and QBFT", () => {
    // Besu's IBFT 2.0 documentation genesis: one validator, RLP null vote, 4-byte round 0, no seals.
    const ibft =
      '0xf83ea00000000000000000000000000000000000000000000000000000000000000000d5949811ebc35d7b06b3fa8dc5809a1f9c52751e1deb808400000000c0';
    expect(bytesToHex(genesisExtraData('ibft2', ['0x9811ebc35d7b06b3fa8dc5809a1f9c52751e1deb']))).toBe(ibft);
    // Besu's QBFT validator-contract test genesis: empty-list vote, scalar round 0.
    const qbft =
      '0xf83aa00000000000000000000000000000000000000000000000000000000000000000d594eac51e3fe1afc9894f0dfeab8ceb471899b932dfc080c0';
    expect(bytesToHex(genesisExtraData('qbft', ['0xeac51e3fe1afc9894f0dfeab8ceb471899b932df']))).toBe(qbft);
    expect(decodeExtraData('qbft', hex(qbft))).toMatchObject({ vote: undefined, round: 0, seals: [] });
  });

  it('differs between IBFT 2.0 and QBFT in vote, drop vote and round', () => {
    const drop: BftExtraData = { ...VECTOR_DATA, vote: { recipient: addr(3), add: false }, round: 1 };
    const ibft = RLP.decode(encodeExtraData('ibft2', drop)) as Uint8Array[][];
    const qbft = RLP.decode(encodeExtraData('qbft', drop)) as Uint8Array[][];
    expect(bytesToHex(ibft[2]?.[1] as Uint8Array)).toBe('0x00');
    expect(bytesToHex(qbft[2]?.[1] as Uint8Array)).toBe('0x');
    expect(bytesToHex(ibft[3] as unknown as Uint8Array)).toBe('0x00000001');
    expect(bytesToHex(qbft[3] as unknown as Uint8Array)).toBe('0x01');
    expect(decodeExtraData('ibft2', encodeExtraData('ibft2', drop))).toEqual(drop);
    expect(decodeExtraData('qbft', encodeExtraData('qbft', drop))).toEqual(drop);
    const none = { ...VECTOR_DATA, vote: undefined };
    expect(bytesToHex(RLP.encode((RLP.decode(encodeExtraData('ibft2', none)) as Uint8Array[])[2]))).toBe(
      '0x80',
    );
    expect(bytesToHex(RLP.encode((RLP.decode(encodeExtraData('qbft', none)) as Uint8Array[])[2]))).toBe(
      '0xc0',
    );
    // The forms hashes are taken over: IBFT 2.0 drops items, QBFT zeroes them.
    expect((RLP.decode(encodeExtraData('ibft2', drop, 'noSeals')) as unknown[]).length).toBe(4);
    expect((RLP.decode(encodeExtraData('ibft2', drop, 'noSealsNoRound')) as unknown[]).length).toBe(3);
    const q = RLP.decode(encodeExtraData('qbft', drop, 'noSealsNoRound')) as unknown[];
    expect(q.length).toBe(5);
    expect(q[3]).toEqual(new Uint8Array());
    expect(q[4]).toEqual([]);
  });

  it('reads a QBFT round of any minimal length and refuses a leading zero or a short IBFT round', () => {
    const items = (round: Uint8Array) => [
      new Uint8Array(32),
      [],
      [hex(addr(1)), Uint8Array.of(0xff)],
      round,
      [],
    ];
    expect(decodeExtraData('qbft', RLP.encode(items(Uint8Array.of(0xdc, 0xba)))).round).toBe(0xdcba);
    expect(() => decodeExtraData('qbft', RLP.encode(items(Uint8Array.of(0, 0xdc, 0xba))))).toThrow(
      BftExtraDataError,
    );
    expect(() => decodeExtraData('ibft2', RLP.encode(items(Uint8Array.of(0xdc, 0xba))))).toThrow(
      'round is 2 bytes',
    );
  });

  it('refuses malformed extraData', () => {
    const bad = [
      '0x',
      '0x80',
      '0xc0',
      bytesToHex(RLP.encode([new Uint8Array(32), [Uint8Array.of(1)], [], new Uint8Array(), []])),
      bytesToHex(
        RLP.encode([new Uint8Array(32), [], [hex(addr(1)), Uint8Array.of(7)], new Uint8Array(), []]),
      ),
      bytesToHex(RLP.encode([new Uint8Array(32), [], [], new Uint8Array(), [new Uint8Array(64)]])),
      `${QBFT_VECTOR}00`,
    ];
    for (const b of bad) expect(() => decodeExtraData('qbft', hex(b)), b).toThrow(BftExtraDataError);
    expect(() => decodeExtraData('ibft2', hex(QBFT_VECTOR.replace('83fedcba', '84fedcba')))).toThrow();
  });
});

describe('BFT block hash and committed seals', () => {
  // Besu's BftBlockHashingTest header (IBFT 2.0), validators 1 and 2, an add vote for 3.
  const spec = parseGenesis({
    config: { chainId: 1, byzantiumBlock: 0, ibft2: {} },
    gasLimit: '0x47c94c',
    difficulty: '0x1',
    extraData: bytesToHex(genesisExtraData('ibft2', [addr(1), addr(2)])),
    alloc: {},
  });
  const common = createCommon(spec, { customCrypto: customCrypto() });
  const keys = [1, 2, 3, 4].map((i) => hex(`0x${word(i)}`));
  const data: BftExtraData = {
    vanity: Uint8Array.from({ length: 32 }, (_, i) => i),
    validators: [addr(1), addr(2)],
    vote: { recipient: addr(3), add: true },
    round: 0x00fedcba,
    seals: [],
  };
  const headerWith = (extraData: Uint8Array) =>
    createBlockHeader(
      {
        parentHash: '0xa7762d3307dbf2ae6a1ae1b09cf61c7603722b2379731b6b90409cdb8c8288a0',
        stateRoot: '0xca07595b82f908822971b7e848398e3395e59ee52565c7ef3603df1a1fa7bc80',
        difficulty: 1n,
        number: 1n,
        gasLimit: 4704588n,
        timestamp: 1530674616n,
        mixHash: '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365',
        extraData,
      },
      { common, skipConsensusFormatValidation: true },
    );

  it('hashes the header without seals and round, and recovers the committers', () => {
    const unsealed = headerWith(encodeExtraData('ibft2', data));
    const digest = commitSealDigest('ibft2', unsealed);
    const expectedDigest = keccak256(RLP.encode(headerWith(encodeExtraData('ibft2', data, 'noSeals')).raw()));
    expect(bytesToHex(digest)).toBe(bytesToHex(expectedDigest));
    const seals = keys.map((k) => signCommitSeal(digest, k));
    const sealed = headerWith(encodeExtraData('ibft2', { ...data, seals }));
    expect(recoverCommitters('ibft2', sealed)).toEqual([
      '0x7e5f4552091a69125d5dfcb7b8c2659029395bdf',
      '0x2b5ad5c4795c026514f8317c7a215e218dccd6cf',
      '0x6813eb9362372eef6200f3b1dbc3f819671cba69',
      '0x1eff47bc3a10a45d4b230b5d10e37751fe6aa718',
    ]);
    expect(keys.map((k) => addressOfPrivateKey(k))).toEqual(recoverCommitters('ibft2', sealed));
    const onchain = keccak256(RLP.encode(headerWith(encodeExtraData('ibft2', data, 'noSealsNoRound')).raw()));
    expect(bytesToHex(sealed.hash())).toBe(bytesToHex(onchain));
    expect(bytesToHex(unsealed.hash())).toBe(bytesToHex(onchain));
    // Another round: another commit digest, the same block hash.
    const later = headerWith(encodeExtraData('ibft2', { ...data, round: 7 }));
    expect(bytesToHex(later.hash())).toBe(bytesToHex(onchain));
    expect(bytesToHex(commitSealDigest('ibft2', later))).not.toBe(bytesToHex(digest));
  });
});

describe('BFT arithmetic', () => {
  it('needs ceil(2n/3) seals', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 10].map(quorum)).toEqual([1, 2, 2, 3, 4, 4, 5, 7]);
  });

  it('rotates the proposer from the previous one, one step per block and per round', () => {
    const v = [addr(2), addr(4), addr(6), addr(8)];
    expect(proposerForRound(addr(4), v, 0)).toBe(addr(6));
    expect(proposerForRound(addr(4), v, 1)).toBe(addr(8));
    expect(proposerForRound(addr(8), v, 0)).toBe(addr(2));
    expect(proposerForRound(addr(8), v, 6)).toBe(addr(6));
    // A previous proposer that left (or the genesis zero address): the next validator above it.
    expect(proposerForRound(addr(0), v, 0)).toBe(addr(2));
    expect(proposerForRound(addr(5), v, 0)).toBe(addr(6));
    expect(proposerForRound(addr(5), v, 2)).toBe(addr(2));
    expect(proposerForRound(addr(9), v, 0)).toBe(addr(2));
  });

  it('doubles the round timer each round', () => {
    expect([0, 1, 2, 3].map((r) => roundTimeoutMs(4, r))).toEqual([4000, 8000, 16000, 32000]);
  });

  it('casts each pending vote not yet cast, rotating, and none already cast', () => {
    const proposals = new VoteProposals();
    const tally = VoteTally.of([addr(1), addr(2), addr(3)]);
    proposals.propose(addr(7), true);
    proposals.propose(addr(2), false);
    proposals.propose(addr(3), true); // already a validator: nothing to cast
    const cast = [0, 1, 2, 3].map(() => proposals.nextVote(addr(1), tally));
    expect(new Set(cast.map((v) => v?.recipient))).toEqual(new Set([addr(7), addr(2)]));
    expect(cast[0]).not.toEqual(cast[1]);
    expect(cast[0]).toEqual(cast[2]);
    // Once addr(1)'s add vote for addr(7) is in the tally, only the drop remains.
    const voted = tally.withVote(addr(1), addr(7), true);
    expect(proposals.nextVote(addr(1), voted)).toEqual({ recipient: addr(2), add: false });
    expect(proposals.nextVote(addr(2), voted)?.recipient).toBeDefined();
  });
});
