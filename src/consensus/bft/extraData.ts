/**
 * The extraData of IBFT 2.0 and QBFT blocks: RLP `[vanity(32), [validators], vote, round, [seals]]`.
 * The two differ in three places. No vote: IBFT 2.0 writes RLP null (0x80), QBFT an empty list (0xc0).
 * A drop vote: IBFT 2.0 writes the byte 0x00, QBFT empty bytes (an add is 0xff in both). The round:
 * IBFT 2.0 writes 4 big-endian bytes, QBFT a minimal scalar. The encodings the hashes are taken over
 * differ too (see `encodeExtraData`'s `form`).
 */
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';

export type BftVariant = 'ibft2' | 'qbft';

export const EXTRA_VANITY = 32;
export const SEAL_LENGTH = 65;
const ADDRESS_LENGTH = 20;
const ADD_BYTE = 0xff;

export interface BftVote {
  /** Lowercase `0x…` address voted on. */
  recipient: string;
  /** True: add it to the validators; false: drop it. */
  add: boolean;
}

export interface BftExtraData {
  vanity: Uint8Array;
  /** Lowercase `0x…` addresses, in the order written (sorted on valid blocks). */
  validators: string[];
  vote: BftVote | undefined;
  round: number;
  /** 65-byte committed seals r ‖ s ‖ recovery id. */
  seals: Uint8Array[];
}

/**
 * Which parts an encoding keeps. `all`: the block's extraData. `noSeals`: what committed seals sign
 * (IBFT 2.0 leaves the seal list out; QBFT writes it empty). `noSealsNoRound`: what the block hash is
 * taken over (IBFT 2.0 leaves round and seals out; QBFT writes round 0 and no seals).
 */
export type ExtraDataForm = 'all' | 'noSeals' | 'noSealsNoRound';

/** Thrown for extraData that is not a well-formed BFT structure. */
export class BftExtraDataError extends Error {
  override name = 'BftExtraDataError';
}

function fail(reason: string): never {
  throw new BftExtraDataError(`extraData is not a valid BFT structure: ${reason}`);
}

function bytesItem(item: unknown, what: string): Uint8Array {
  if (!(item instanceof Uint8Array)) fail(`${what} is a list, not bytes`);
  return item;
}

function listItem(item: unknown, what: string): unknown[] {
  if (!Array.isArray(item)) fail(`${what} is bytes, not a list`);
  return item;
}

function addressItem(item: unknown, what: string): string {
  const b = bytesItem(item, what);
  if (b.length !== ADDRESS_LENGTH) fail(`${what} is ${b.length} bytes, not 20`);
  return bytesToHex(b);
}

/** Decodes extraData of the given variant; throws `BftExtraDataError` when malformed. */
export function decodeExtraData(variant: BftVariant, extra: Uint8Array): BftExtraData {
  if (extra.length === 0) fail('it is empty');
  let decoded: unknown;
  try {
    decoded = RLP.decode(extra);
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const top = listItem(decoded, 'the top level');
  // QBFT reads the five items and tolerates more; IBFT 2.0 requires exactly five.
  if (top.length < 5 || (variant === 'ibft2' && top.length !== 5)) fail(`${top.length} items instead of 5`);
  const vanity = bytesItem(top[0], 'vanity');
  const validators = listItem(top[1], 'validator list').map((v, i) => addressItem(v, `validator ${i}`));
  const vote = decodeVote(variant, top[2]);
  const round = decodeRound(variant, bytesItem(top[3], 'round'));
  const seals = listItem(top[4], 'seal list').map((s, i) => {
    const seal = bytesItem(s, `seal ${i}`);
    if (seal.length !== SEAL_LENGTH) fail(`seal ${i} is ${seal.length} bytes, not 65`);
    return seal;
  });
  return { vanity, validators, vote, round, seals };
}

function decodeVote(variant: BftVariant, item: unknown): BftVote | undefined {
  if (variant === 'ibft2') {
    if (item instanceof Uint8Array) {
      if (item.length !== 0) fail('vote is bytes, neither RLP null nor a list');
      return undefined;
    }
  } else if (Array.isArray(item) && item.length === 0) return undefined;
  const parts = listItem(item, 'vote');
  if (parts.length !== 2) fail(`vote has ${parts.length} items instead of 2`);
  const recipient = addressItem(parts[0], 'vote recipient');
  const type = bytesItem(parts[1], 'vote type');
  if (type.length === 1 && type[0] === ADD_BYTE) return { recipient, add: true };
  if (type.length === 1 && type[0] === 0) return { recipient, add: false };
  if (variant === 'qbft' && type.length === 0) return { recipient, add: false };
  fail(`vote type ${bytesToHex(type)} is neither add (0xff) nor drop`);
}

function decodeRound(variant: BftVariant, b: Uint8Array): number {
  if (variant === 'ibft2') {
    if (b.length !== 4) fail(`round is ${b.length} bytes, not 4`);
    return new DataView(b.buffer, b.byteOffset, 4).getUint32(0) | 0;
  }
  if (b.length > 4) fail(`round is ${b.length} bytes, more than an int`);
  if (b.length > 0 && b[0] === 0) fail('round scalar has a leading zero');
  let round = 0;
  for (const x of b) round = round * 256 + x;
  if (round > 0x7fffffff) fail(`round ${round} exceeds an int`);
  return round;
}

/** Encodes extraData of the given variant in one of the forms. */
export function encodeExtraData(
  variant: BftVariant,
  data: BftExtraData,
  form: ExtraDataForm = 'all',
): Uint8Array {
  const items: Array<Uint8Array | Uint8Array[] | Array<Uint8Array | Uint8Array[]>> = [
    data.vanity,
    data.validators.map((v) => hexToBytes(v as `0x${string}`)),
  ];
  items.push(encodeVote(variant, data.vote));
  if (variant === 'ibft2') {
    if (form !== 'noSealsNoRound') {
      const round = new Uint8Array(4);
      new DataView(round.buffer).setUint32(0, data.round >>> 0);
      items.push(round);
      if (form === 'all') items.push(data.seals);
    }
  } else {
    items.push(scalar(form === 'noSealsNoRound' ? 0 : data.round));
    items.push(form === 'all' ? data.seals : []);
  }
  return RLP.encode(items);
}

function encodeVote(variant: BftVariant, vote: BftVote | undefined): Uint8Array | Uint8Array[] {
  if (vote === undefined) return variant === 'ibft2' ? new Uint8Array() : [];
  const recipient = hexToBytes(vote.recipient as `0x${string}`);
  if (vote.add) return [recipient, Uint8Array.of(ADD_BYTE)];
  return [recipient, variant === 'ibft2' ? Uint8Array.of(0) : new Uint8Array()];
}

function scalar(n: number): Uint8Array {
  if (n === 0) return new Uint8Array();
  const out: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v % 256);
  return Uint8Array.from(out);
}

/**
 * The extraData a BFT genesis carries: 32 zero bytes of vanity, the validators in the order given, no
 * vote, round 0, no seals (what Besu's `rlp encode` and `generate-blockchain-config` write). The
 * validator set the chain starts from is that list, sorted.
 */
export function genesisExtraData(variant: BftVariant, validators: readonly string[]): Uint8Array {
  return encodeExtraData(variant, {
    vanity: new Uint8Array(EXTRA_VANITY),
    validators: validators.map((v) => v.toLowerCase()),
    vote: undefined,
    round: 0,
    seals: [],
  });
}

/** `--miner-extra-data` bytes zero-padded on the left to the 32-byte vanity. */
export function vanityOf(extra: Uint8Array): Uint8Array {
  if (extra.length > EXTRA_VANITY) throw new RangeError('BFT vanity is at most 32 bytes');
  const out = new Uint8Array(EXTRA_VANITY);
  out.set(extra, EXTRA_VANITY - extra.length);
  return out;
}
