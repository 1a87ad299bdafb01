/**
 * Signer snapshots. The signers after a block come from the last checkpoint at or before it (its
 * extraData lists them) and the votes of the blocks since; votes reset at each checkpoint. Tallies
 * are immutable and cached by block hash, so validating or sealing on the head costs one vote
 * application per block. Who sealed recent blocks is read from the headers themselves, so the
 * recency rule also holds across checkpoints.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import { Lru } from '../../util/lru.js';
import { decodeExtraData } from './extraData.js';
import { recoverSigner, ZERO_ADDRESS } from './seal.js';

/** Where headers come from (the chain store). */
export interface HeaderSource {
  getHeader(hash: Uint8Array): BlockHeader | undefined;
}

export interface Vote {
  /** Lowercase `0x…` address. */
  candidate: string;
  /** True: authorise the candidate; false: drop it. */
  add: boolean;
}

const ADD_NONCE = 'ffffffffffffffff';
const DROP_NONCE = '0000000000000000';

/**
 * The vote a header carries: coinbase is the candidate, nonce all ones adds, all zeros drops, a zero
 * coinbase is no vote. Undefined for no vote; a string reason for a nonce that is neither.
 */
export function voteOf(header: BlockHeader): Vote | undefined | string {
  const nonce = bytesToHex(header.nonce).slice(2);
  if (nonce !== ADD_NONCE && nonce !== DROP_NONCE) {
    return `nonce 0x${nonce} is neither an add vote (0xffffffffffffffff) nor a drop vote (0x0000000000000000)`;
  }
  const candidate = header.coinbase.toString();
  if (candidate === ZERO_ADDRESS) return undefined;
  return { candidate, add: nonce === ADD_NONCE };
}

type VoteSets = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * The signer set with the votes pending on it. A vote for a candidate replaces the voter's earlier vote
 * on the same candidate; when the votes one way reach a majority of the signers (floor(N/2) + 1), the
 * candidate is added or dropped and every vote on it is discarded, as are the votes a dropped signer cast.
 */
export class SignerTally {
  private readonly members: ReadonlySet<string>;

  private constructor(
    /** Ascending (byte order of the addresses), the order checkpoints list them in. */
    readonly signers: readonly string[],
    private readonly addVotes: VoteSets,
    private readonly dropVotes: VoteSets,
  ) {
    this.members = new Set(signers);
  }

  static checkpoint(signers: readonly string[]): SignerTally {
    return new SignerTally([...new Set(signers)].sort(), new Map(), new Map());
  }

  isSigner(address: string): boolean {
    return this.members.has(address);
  }

  /** The tally after `voter` cast `vote`. */
  withVote(voter: string, vote: Vote): SignerTally {
    const add = copySets(this.addVotes);
    const drop = copySets(this.dropVotes);
    setOf(vote.add ? add : drop, vote.candidate).add(voter);
    (vote.add ? drop : add).get(vote.candidate)?.delete(voter);

    const limit = Math.floor(this.signers.length / 2) + 1;
    let signers = this.signers;
    if ((add.get(vote.candidate)?.size ?? 0) >= limit) {
      if (!this.members.has(vote.candidate)) signers = [...signers, vote.candidate].sort();
      add.delete(vote.candidate);
      drop.delete(vote.candidate);
    }
    if ((drop.get(vote.candidate)?.size ?? 0) >= limit) {
      signers = signers.filter((s) => s !== vote.candidate);
      add.delete(vote.candidate);
      drop.delete(vote.candidate);
      for (const voters of add.values()) voters.delete(vote.candidate);
      for (const voters of drop.values()) voters.delete(vote.candidate);
    }
    return new SignerTally(signers, add, drop);
  }
}

function copySets(sets: VoteSets): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [k, v] of sets) if (v.size > 0) out.set(k, new Set(v));
  return out;
}

function setOf(map: Map<string, Set<string>>, key: string): Set<string> {
  let s = map.get(key);
  if (!s) {
    s = new Set();
    map.set(key, s);
  }
  return s;
}

export class CliqueSnapshots {
  private readonly tallies = new Lru<string, SignerTally>(1024);
  private readonly signersByHash = new Lru<string, string>(4096);

  constructor(
    private readonly headers: HeaderSource,
    readonly epochLength: bigint,
  ) {}

  isCheckpoint(number: bigint): boolean {
    return number % this.epochLength === 0n;
  }

  /** The address that sealed `header` (cached by hash). */
  signerOf(header: BlockHeader): string {
    const key = bytesToHex(header.hash());
    let signer = this.signersByHash.get(key);
    if (signer === undefined) {
      signer = recoverSigner(header);
      this.signersByHash.set(key, signer);
    }
    return signer;
  }

  /** The signers and pending votes in force after `header` (the ones that may seal its child). */
  tallyAfter(header: BlockHeader): SignerTally {
    const pending: BlockHeader[] = [];
    let base: SignerTally | undefined;
    let h: BlockHeader = header;
    for (;;) {
      const cached = this.tallies.get(bytesToHex(h.hash()));
      if (cached) {
        base = cached;
        break;
      }
      if (this.isCheckpoint(h.number)) {
        const extra = decodeExtraData(h.extraData);
        if (typeof extra === 'string') throw new Error(`Clique checkpoint block ${h.number}: ${extra}`);
        base = SignerTally.checkpoint(extra.signers);
        this.tallies.set(bytesToHex(h.hash()), base);
        break;
      }
      pending.push(h);
      const parent = this.headers.getHeader(h.parentHash);
      if (!parent) throw new Error(`block ${h.number - 1n} (${bytesToHex(h.parentHash)}) is missing`);
      h = parent;
    }
    for (let i = pending.length - 1; i >= 0; i--) {
      const block = pending[i] as BlockHeader;
      const vote = voteOf(block);
      if (vote !== undefined && typeof vote !== 'string') base = base.withVote(this.signerOf(block), vote);
      this.tallies.set(bytesToHex(block.hash()), base);
    }
    return base;
  }

  /**
   * True when `signer` sealed one of the last floor(N/2) blocks up to `parent` (N: the signers after
   * `parent`), so it may not seal the child: a signer seals at most one of any floor(N/2)+1
   * consecutive blocks. The genesis block has no signer.
   */
  signedRecently(signer: string, parent: BlockHeader, signerCount: number): boolean {
    let h: BlockHeader | undefined = parent;
    for (let seen = 0; seen < Math.floor(signerCount / 2) && h && h.number > 0n; seen++) {
      if (this.signerOf(h) === signer) return true;
      h = this.headers.getHeader(h.parentHash);
    }
    return false;
  }

  /** In turn: the signer at index (child number mod N) of the sorted signers. */
  static inTurn(tally: SignerTally, signer: string, childNumber: bigint): boolean {
    const n = BigInt(tally.signers.length);
    return n > 0n && tally.signers[Number(childNumber % n)] === signer;
  }
}
