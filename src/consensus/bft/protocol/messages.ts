/**
 * The BFT wire messages of IBFT 2.0 (`IBF`/1) and QBFT (`istanbul`/100), encoded as Besu encodes them.
 *
 * Every message carries a signed payload `[payload, signature]`; the signature covers
 * - IBFT 2.0: keccak256(message code byte ‖ RLP(payload)), the round identifier written as an 8-byte
 *   height and a 4-byte round inside the payload;
 * - QBFT: keccak256(RLP([code, payload])), height and round written as scalars.
 *
 * | message | IBFT 2.0 | QBFT |
 * |---|---|---|
 * | Proposal | `[[[h,r,digest],sig], block, RCC or null]` | `[[[h,r,block],sig], [[roundChanges],[prepares]]]` |
 * | Prepare | `[[h,r,digest],sig]` | same, scalars |
 * | Commit | `[[h,r,digest,seal],sig]` | same, scalars |
 * | RoundChange | `[[[h,r,preparedCertificate or null],sig], block or null]` | `[[[h,r,[preparedRound,hash] or []],sig], block or [], [prepares]]` |
 *
 * IBFT's prepared certificate is `[signedProposalPayload, [signedPrepares]]` and its round-change
 * certificate `[[signedRoundChangePayloads]]`. Signed items taken from other messages (certificates,
 * piggy-backed prepares) keep the RLP they arrived with, so they are forwarded byte for byte.
 *
 * Decoding checks shape and signatures only (a message that decodes has a known author); what the
 * message means for a round is the state machine's business.
 */
import type { Block } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { keccak256, publicKeyOf } from '../../../crypto/index.js';
import { addressOfKey, recoverAddress, sign } from './signing.js';

export type Rlp = Uint8Array | Rlp[];
export type BftVariant = 'ibft2' | 'qbft';

export class MalformedBftMessageError extends Error {
  constructor(detail: string) {
    super(`malformed BFT message: ${detail}`);
    this.name = 'MalformedBftMessageError';
  }
}

/** A height (block number) and a round within it. */
export interface RoundId {
  height: bigint;
  round: number;
}

export interface Signed<P> {
  payload: P;
  /** Lowercase `0x…` address the signature recovers to. */
  author: string;
  signature: Uint8Array;
  /** `[payload, signature]` as signed or received. */
  item: Rlp[];
}

export interface ProposalPayload {
  id: RoundId;
  /** IBFT: the digest the payload carries; QBFT: the commit-seal hash of the block it carries. */
  digest: Uint8Array;
}

export interface PreparePayload {
  id: RoundId;
  digest: Uint8Array;
}

export interface CommitPayload {
  id: RoundId;
  digest: Uint8Array;
  seal: Uint8Array;
}

export interface RoundChangePayload {
  id: RoundId;
  /** The round this validator last prepared in and the digest it prepared (QBFT metadata, IBFT certificate). */
  prepared?: { round: number; digest: Uint8Array };
  /** IBFT: the prepared certificate inside the signed payload. */
  certificate?: { proposal: Signed<ProposalPayload>; prepares: Signed<PreparePayload>[] };
}

export interface ProposalMessage {
  type: 'proposal';
  signed: Signed<ProposalPayload>;
  block: Block;
  /** The round changes that justify a proposal after round 0 (IBFT: its round-change certificate). */
  roundChanges: Signed<RoundChangePayload>[];
  /** QBFT: the prepares of the re-proposed block (IBFT carries them inside the round changes). */
  prepares: Signed<PreparePayload>[];
  /** IBFT: whether a round-change certificate was present (null on the wire otherwise). */
  hasCertificate: boolean;
}

export interface PrepareMessage {
  type: 'prepare';
  signed: Signed<PreparePayload>;
}

export interface CommitMessage {
  type: 'commit';
  signed: Signed<CommitPayload>;
}

export interface RoundChangeMessage {
  type: 'roundChange';
  signed: Signed<RoundChangePayload>;
  /** The prepared block, carried beside the signed payload. */
  block?: Block;
  /** The prepares proving the prepared block (QBFT: beside the payload; IBFT: its certificate's). */
  prepares: Signed<PreparePayload>[];
}

export type BftMessage = ProposalMessage | PrepareMessage | CommitMessage | RoundChangeMessage;

/** How blocks travel inside messages; the consensus core supplies the BFT hashing. */
export interface BlockCodec {
  /** Decodes `[header, transactions, ommers, …]`; throws on a malformed block. */
  decode(values: Rlp): Block;
  encode(block: Block): Rlp;
  /** The hash committed seals sign: the header with extraData encoded without seals, round included. */
  digest(block: Block): Uint8Array;
}

/** Message codes relative to the capability. */
export interface BftCodes {
  proposal: number;
  prepare: number;
  commit: number;
  roundChange: number;
}

export const IBFT_CODES: BftCodes = { proposal: 0, prepare: 1, commit: 2, roundChange: 3 };
export const QBFT_CODES: BftCodes = { proposal: 0x12, prepare: 0x13, commit: 0x14, roundChange: 0x15 };

// --- RLP helpers

const enc = (n: bigint): Uint8Array => {
  if (n === 0n) return new Uint8Array(0);
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
};

function fixed(n: bigint, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let v = n;
  for (let i = size - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function list(v: Rlp | undefined, what: string, length?: number): Rlp[] {
  if (!Array.isArray(v)) throw new MalformedBftMessageError(`${what} is not a list`);
  if (length !== undefined && v.length !== length)
    throw new MalformedBftMessageError(`${what} has ${v.length} items, not ${length}`);
  return v;
}

function bytes(v: Rlp | undefined, what: string, length?: number): Uint8Array {
  if (!(v instanceof Uint8Array)) throw new MalformedBftMessageError(`${what} is not a byte string`);
  if (length !== undefined && v.length !== length)
    throw new MalformedBftMessageError(`${what} has ${v.length} bytes, not ${length}`);
  return v;
}

function scalar(v: Rlp | undefined, what: string, maxBytes: number): bigint {
  const b = bytes(v, what);
  if (b.length > maxBytes) throw new MalformedBftMessageError(`${what} is too large`);
  if (b.length > 0 && b[0] === 0) throw new MalformedBftMessageError(`${what} has leading zeros`);
  let n = 0n;
  for (const x of b) n = (n << 8n) | BigInt(x);
  return n;
}

function fixedInt(v: Rlp | undefined, what: string, size: number): bigint {
  const b = bytes(v, what, size);
  let n = 0n;
  for (const x of b) n = (n << 8n) | BigInt(x);
  return n;
}

const isNull = (v: Rlp | undefined): boolean => v instanceof Uint8Array && v.length === 0;
const isEmptyList = (v: Rlp | undefined): boolean => Array.isArray(v) && v.length === 0;

const addresses = new WeakMap<Uint8Array, string>();
function localAddress(key: Uint8Array): string {
  let a = addresses.get(key);
  if (!a) {
    a = addressOfKey(publicKeyOf(key));
    addresses.set(key, a);
  }
  return a;
}

/** Besu's round numbers are Java ints. */
const MAX_ROUND = 0x7fffffff;

export function decodeRlp(data: Uint8Array): Rlp {
  try {
    return RLP.decode(data) as Rlp;
  } catch (err) {
    throw new MalformedBftMessageError((err as Error).message);
  }
}

/** The wire form of one BFT variant: decoding, encoding and creating signed messages. */
export class BftCodec {
  readonly codes: BftCodes;

  constructor(
    readonly variant: BftVariant,
    private readonly blocks: BlockCodec,
  ) {
    this.codes = variant === 'ibft2' ? IBFT_CODES : QBFT_CODES;
  }

  digest(block: Block): Uint8Array {
    return this.blocks.digest(block);
  }

  // --- round identifiers

  private writeId(id: RoundId): Rlp[] {
    return this.variant === 'ibft2'
      ? [fixed(id.height, 8), fixed(BigInt(id.round), 4)]
      : [enc(id.height), enc(BigInt(id.round))];
  }

  private readId(items: Rlp[], what: string): RoundId {
    const height =
      this.variant === 'ibft2'
        ? fixedInt(items[0], `${what} height`, 8)
        : scalar(items[0], `${what} height`, 8);
    const round =
      this.variant === 'ibft2'
        ? fixedInt(items[1], `${what} round`, 4)
        : scalar(items[1], `${what} round`, 4);
    if (height >= 1n << 63n) throw new MalformedBftMessageError(`${what} height out of range`);
    if (round > BigInt(MAX_ROUND)) throw new MalformedBftMessageError(`${what} round out of range`);
    return { height, round: Number(round) };
  }

  // --- signatures

  private signingHash(code: number, payload: Rlp[]): Uint8Array {
    if (this.variant === 'ibft2') {
      const body = RLP.encode(payload);
      const data = new Uint8Array(body.length + 1);
      data[0] = code;
      data.set(body, 1);
      return keccak256(data);
    }
    return keccak256(RLP.encode([enc(BigInt(code)), payload]));
  }

  private signed<P>(code: number, payload: P, items: Rlp[], key: Uint8Array): Signed<P> {
    const signature = sign(this.signingHash(code, items), key);
    return { payload, author: localAddress(key), signature, item: [items, signature] };
  }

  private readSigned<P>(
    v: Rlp | undefined,
    code: number,
    what: string,
    read: (items: Rlp[]) => P,
  ): Signed<P> {
    const outer = list(v, what, 2);
    const items = list(outer[0], `${what} payload`);
    const payload = read(items);
    const signature = bytes(outer[1], `${what} signature`, 65);
    const author = recoverAddress(signature, this.signingHash(code, items));
    return { payload, author, signature, item: outer };
  }

  // --- payload readers

  private readPrepare = (items: Rlp[]): PreparePayload => {
    if (items.length !== 3) throw new MalformedBftMessageError('prepare payload has the wrong length');
    return { id: this.readId(items, 'prepare'), digest: bytes(items[2], 'prepare digest', 32) };
  };

  private readCommit = (items: Rlp[]): CommitPayload => {
    if (items.length !== 4) throw new MalformedBftMessageError('commit payload has the wrong length');
    return {
      id: this.readId(items, 'commit'),
      digest: bytes(items[2], 'commit digest', 32),
      seal: bytes(items[3], 'commit seal', 65),
    };
  };

  private readIbftProposal = (items: Rlp[]): ProposalPayload => {
    if (items.length !== 3) throw new MalformedBftMessageError('proposal payload has the wrong length');
    return { id: this.readId(items, 'proposal'), digest: bytes(items[2], 'proposal digest', 32) };
  };

  private readRoundChange = (items: Rlp[]): RoundChangePayload => {
    if (items.length !== 3) throw new MalformedBftMessageError('round-change payload has the wrong length');
    const id = this.readId(items, 'round change');
    const third = items[2];
    if (this.variant === 'qbft') {
      const meta = list(third, 'prepared round metadata');
      if (meta.length === 0) return { id };
      if (meta.length !== 2)
        throw new MalformedBftMessageError('prepared round metadata has the wrong length');
      const round = scalar(meta[0], 'prepared round', 4);
      if (round > BigInt(MAX_ROUND)) throw new MalformedBftMessageError('prepared round out of range');
      return { id, prepared: { round: Number(round), digest: bytes(meta[1], 'prepared block hash', 32) } };
    }
    if (isNull(third)) return { id };
    const cert = list(third, 'prepared certificate', 2);
    const proposal = this.readSigned(
      cert[0],
      IBFT_CODES.proposal,
      'certificate proposal',
      this.readIbftProposal,
    );
    const prepares = list(cert[1], 'certificate prepares').map((p) =>
      this.readSigned(p, IBFT_CODES.prepare, 'certificate prepare', this.readPrepare),
    );
    return {
      id,
      prepared: { round: proposal.payload.id.round, digest: proposal.payload.digest },
      certificate: { proposal, prepares },
    };
  };

  private readBlock(v: Rlp | undefined, what: string): Block {
    const values = list(v, what);
    try {
      return this.blocks.decode(values);
    } catch (err) {
      throw new MalformedBftMessageError(`${what}: ${(err as Error).message}`);
    }
  }

  // --- decoding

  /** Decodes one message of this capability; throws `MalformedBftMessageError` or `BadSignatureError`. */
  decode(code: number, data: Uint8Array): BftMessage {
    const c = this.codes;
    const top = decodeRlp(data);
    switch (code) {
      case c.prepare:
        return { type: 'prepare', signed: this.readSigned(top, code, 'prepare', this.readPrepare) };
      case c.commit:
        return { type: 'commit', signed: this.readSigned(top, code, 'commit', this.readCommit) };
      case c.proposal:
        return this.variant === 'ibft2' ? this.decodeIbftProposal(top) : this.decodeQbftProposal(top);
      case c.roundChange:
        return this.variant === 'ibft2' ? this.decodeIbftRoundChange(top) : this.decodeQbftRoundChange(top);
      default:
        throw new MalformedBftMessageError(`unknown message code ${code}`);
    }
  }

  private decodeIbftProposal(top: Rlp): ProposalMessage {
    const items = list(top, 'proposal');
    // A trailing null (the block access list of later releases) is accepted and ignored.
    if (items.length !== 3 && !(items.length === 4 && isNull(items[3])))
      throw new MalformedBftMessageError('proposal has the wrong length');
    const signed = this.readSigned(items[0], IBFT_CODES.proposal, 'proposal', this.readIbftProposal);
    const block = this.readBlock(items[1], 'proposed block');
    let roundChanges: Signed<RoundChangePayload>[] = [];
    const hasCertificate = !isNull(items[2]);
    if (hasCertificate) {
      const rcc = list(items[2], 'round-change certificate', 1);
      roundChanges = list(rcc[0], 'round-change certificate payloads').map((p) =>
        this.readSigned(p, IBFT_CODES.roundChange, 'certificate round change', this.readRoundChange),
      );
    }
    return { type: 'proposal', signed, block, roundChanges, prepares: [], hasCertificate };
  }

  private decodeQbftProposal(top: Rlp): ProposalMessage {
    const items = list(top, 'proposal', 2);
    let block: Block | undefined;
    const signed = this.readSigned(items[0], QBFT_CODES.proposal, 'proposal', (payload) => {
      if (payload.length !== 3) throw new MalformedBftMessageError('proposal payload has the wrong length');
      const id = this.readId(payload, 'proposal');
      block = this.readBlock(payload[2], 'proposed block');
      return { id, digest: this.blocks.digest(block) };
    });
    const just = list(items[1], 'proposal justification', 2);
    const roundChanges = list(just[0], 'proposal round changes').map((p) =>
      this.readSigned(p, QBFT_CODES.roundChange, 'proposal round change', this.readRoundChange),
    );
    const prepares = list(just[1], 'proposal prepares').map((p) =>
      this.readSigned(p, QBFT_CODES.prepare, 'proposal prepare', this.readPrepare),
    );
    return { type: 'proposal', signed, block: block as Block, roundChanges, prepares, hasCertificate: false };
  }

  private decodeIbftRoundChange(top: Rlp): RoundChangeMessage {
    const items = list(top, 'round change');
    if (items.length !== 2 && !(items.length === 3 && isNull(items[2])))
      throw new MalformedBftMessageError('round change has the wrong length');
    const signed = this.readSigned(items[0], IBFT_CODES.roundChange, 'round change', this.readRoundChange);
    const block = isNull(items[1]) ? undefined : this.readBlock(items[1], 'prepared block');
    return { type: 'roundChange', signed, block, prepares: signed.payload.certificate?.prepares ?? [] };
  }

  private decodeQbftRoundChange(top: Rlp): RoundChangeMessage {
    const items = list(top, 'round change', 3);
    const signed = this.readSigned(items[0], QBFT_CODES.roundChange, 'round change', this.readRoundChange);
    const block = isEmptyList(items[1]) ? undefined : this.readBlock(items[1], 'prepared block');
    const prepares = list(items[2], 'round-change prepares').map((p) =>
      this.readSigned(p, QBFT_CODES.prepare, 'round-change prepare', this.readPrepare),
    );
    return { type: 'roundChange', signed, block, prepares };
  }

  // --- encoding

  codeOf(msg: BftMessage): number {
    return this.codes[msg.type];
  }

  encode(msg: BftMessage): Uint8Array {
    switch (msg.type) {
      case 'prepare':
      case 'commit':
        return RLP.encode(msg.signed.item);
      case 'proposal':
        if (this.variant === 'ibft2')
          return RLP.encode([
            msg.signed.item,
            this.blocks.encode(msg.block),
            msg.hasCertificate ? [msg.roundChanges.map((r) => r.item)] : new Uint8Array(0),
          ]);
        return RLP.encode([
          msg.signed.item,
          [msg.roundChanges.map((r) => r.item), msg.prepares.map((p) => p.item)],
        ]);
      case 'roundChange':
        if (this.variant === 'ibft2')
          return RLP.encode([msg.signed.item, msg.block ? this.blocks.encode(msg.block) : new Uint8Array(0)]);
        return RLP.encode([
          msg.signed.item,
          msg.block ? this.blocks.encode(msg.block) : [],
          msg.prepares.map((p) => p.item),
        ]);
    }
  }

  // --- creating signed messages

  createPrepare(key: Uint8Array, id: RoundId, digest: Uint8Array): PrepareMessage {
    const items = [...this.writeId(id), digest];
    return { type: 'prepare', signed: this.signed(this.codes.prepare, { id, digest }, items, key) };
  }

  createCommit(key: Uint8Array, id: RoundId, digest: Uint8Array, seal: Uint8Array): CommitMessage {
    const items = [...this.writeId(id), digest, seal];
    return { type: 'commit', signed: this.signed(this.codes.commit, { id, digest, seal }, items, key) };
  }

  /**
   * A proposal of `block` for `id`. After round 0 it carries the round changes that justify it; QBFT
   * also carries the prepares of a re-proposed block (IBFT's are inside the round changes).
   */
  createProposal(
    key: Uint8Array,
    id: RoundId,
    block: Block,
    justification?: { roundChanges: Signed<RoundChangePayload>[]; prepares: Signed<PreparePayload>[] },
  ): ProposalMessage {
    const digest = this.blocks.digest(block);
    const items =
      this.variant === 'ibft2'
        ? [...this.writeId(id), digest]
        : [...this.writeId(id), this.blocks.encode(block)];
    return {
      type: 'proposal',
      signed: this.signed(this.codes.proposal, { id, digest }, items, key),
      block,
      roundChanges: justification?.roundChanges ?? [],
      prepares: this.variant === 'qbft' ? (justification?.prepares ?? []) : [],
      hasCertificate: this.variant === 'ibft2' && justification !== undefined,
    };
  }

  /**
   * A round change to `id`, with the latest block this validator prepared: its round, the block as
   * proposed in that round, the prepares that prepared it and (IBFT) the signed proposal payload.
   */
  createRoundChange(
    key: Uint8Array,
    id: RoundId,
    prepared?: {
      round: number;
      block: Block;
      prepares: Signed<PreparePayload>[];
      proposal?: Signed<ProposalPayload>;
    },
  ): RoundChangeMessage {
    const base = this.writeId(id);
    if (!prepared) {
      const items = [...base, this.variant === 'ibft2' ? new Uint8Array(0) : []];
      return {
        type: 'roundChange',
        signed: this.signed(this.codes.roundChange, { id }, items, key),
        prepares: [],
      };
    }
    const digest = this.blocks.digest(prepared.block);
    if (this.variant === 'qbft') {
      const items = [...base, [enc(BigInt(prepared.round)), digest]];
      const payload: RoundChangePayload = { id, prepared: { round: prepared.round, digest } };
      return {
        type: 'roundChange',
        signed: this.signed(this.codes.roundChange, payload, items, key),
        block: prepared.block,
        prepares: prepared.prepares,
      };
    }
    const proposal = prepared.proposal;
    if (!proposal) throw new Error('an IBFT round change with a prepared block needs its proposal');
    const certificate = { proposal, prepares: prepared.prepares };
    const items = [...base, [proposal.item, prepared.prepares.map((p) => p.item)]];
    const payload: RoundChangePayload = {
      id,
      prepared: { round: proposal.payload.id.round, digest: proposal.payload.digest },
      certificate,
    };
    return {
      type: 'roundChange',
      signed: this.signed(this.codes.roundChange, payload, items, key),
      block: prepared.block,
      prepares: prepared.prepares,
    };
  }
}
