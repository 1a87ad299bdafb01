/**
 * Who the validators are. Block-header mode: every block lists the validators it was made by, and
 * carries at most one vote (proposer = coinbase, recipient and add/drop in extraData); votes for a
 * recipient reaching a majority of the validators (floor(n/2) + 1) add or drop it, votes reset at
 * epoch blocks, and a transition may impose a set from a block on. Contract mode (QBFT): the set is
 * what the validator contract's `getValidators()` returns on the parent's state. Transitions switch
 * between the two by block number.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { Lru } from '../../util/lru.js';
import type { BftConfigSchedule } from './config.js';
import { type BftVariant, decodeExtraData } from './extraData.js';

/** Where headers come from (the chain store). */
export interface HeaderSource {
  getHeader(hash: Uint8Array): BlockHeader | undefined;
}

/** Runs `getValidators()` of `contract` on the state after `header`; resolves with the return data. */
export type ContractCaller = (header: BlockHeader, contract: string, data: Uint8Array) => Promise<Uint8Array>;

/** Thrown when the validator set of a block cannot be worked out. */
export class ValidatorSetError extends Error {
  override name = 'ValidatorSetError';
}

type VoteSets = ReadonlyMap<string, ReadonlySet<string>>;

/** A validator set with the votes pending on it; immutable. */
export class VoteTally {
  private readonly members: ReadonlySet<string>;

  private constructor(
    /** Ascending. */
    readonly validators: readonly string[],
    private readonly addVotes: VoteSets,
    private readonly dropVotes: VoteSets,
  ) {
    this.members = new Set(validators);
  }

  static of(validators: readonly string[]): VoteTally {
    return new VoteTally([...new Set(validators)].sort(), new Map(), new Map());
  }

  isValidator(address: string): boolean {
    return this.members.has(address);
  }

  /** Voters with an outstanding add (or drop) vote for `recipient`. */
  votersFor(recipient: string, add: boolean): ReadonlySet<string> {
    return (add ? this.addVotes : this.dropVotes).get(recipient) ?? new Set();
  }

  withoutVotes(): VoteTally {
    return new VoteTally(this.validators, new Map(), new Map());
  }

  /** The tally after `proposer` voted to add or drop `recipient`. */
  withVote(proposer: string, recipient: string, add: boolean): VoteTally {
    const adds = copy(this.addVotes);
    const drops = copy(this.dropVotes);
    setOf(add ? adds : drops, recipient).add(proposer);
    setOf(add ? drops : adds, recipient).delete(proposer);
    const limit = Math.floor(this.validators.length / 2) + 1;
    let validators = this.validators;
    if ((adds.get(recipient)?.size ?? 0) >= limit) {
      if (!this.members.has(recipient)) validators = [...validators, recipient].sort();
      adds.delete(recipient);
      drops.delete(recipient);
    }
    if ((drops.get(recipient)?.size ?? 0) >= limit) {
      validators = validators.filter((v) => v !== recipient);
      adds.delete(recipient);
      drops.delete(recipient);
      for (const voters of adds.values()) voters.delete(recipient);
      for (const voters of drops.values()) voters.delete(recipient);
    }
    return new VoteTally(validators, prune(adds), prune(drops));
  }
}

function copy(sets: VoteSets): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [k, v] of sets) out.set(k, new Set(v));
  return out;
}

function prune(sets: Map<string, Set<string>>): Map<string, Set<string>> {
  for (const [k, v] of sets) if (v.size === 0) sets.delete(k);
  return sets;
}

function setOf(map: Map<string, Set<string>>, key: string): Set<string> {
  let s = map.get(key);
  if (!s) {
    s = new Set();
    map.set(key, s);
  }
  return s;
}

/** Validator sets and votes carried in block headers. */
export class HeaderValidators {
  private readonly tallies = new Lru<string, VoteTally>(1024);

  constructor(
    private readonly variant: BftVariant,
    private readonly headers: HeaderSource,
    private readonly schedule: BftConfigSchedule,
  ) {}

  /** The validators a header lists, ascending. */
  listedIn(header: BlockHeader): string[] {
    return this.written(header).sort();
  }

  /** The validators a header lists, in the order written. */
  written(header: BlockHeader): string[] {
    return [...decodeExtraData(this.variant, header.extraData).validators];
  }

  /** The tally in force after `header` (validators of its child, votes pending). */
  tallyAfter(header: BlockHeader): VoteTally {
    const pending: BlockHeader[] = [];
    let h: BlockHeader = header;
    let base: VoteTally;
    for (;;) {
      pending.push(h);
      const start = this.startingTally(h);
      if (start) {
        base = start;
        break;
      }
      const parent = this.headers.getHeader(h.parentHash);
      if (!parent)
        throw new ValidatorSetError(`block ${h.number - 1n} (${bytesToHex(h.parentHash)}) is missing`);
      h = parent;
    }
    for (let i = pending.length - 1; i >= 0; i--) {
      const block = pending[i] as BlockHeader;
      base = this.applyBlock(base, block);
      this.tallies.set(bytesToHex(block.hash()), base);
    }
    return base;
  }

  /** A tally that does not need the parent's: an imposed set, an epoch block's list, or a cached one. */
  private startingTally(h: BlockHeader): VoteTally | undefined {
    const imposed = this.schedule.validatorOverride(h.number + 1n);
    if (imposed) return VoteTally.of(imposed);
    if (this.schedule.isEpochBlock(h.number)) return VoteTally.of(this.listedIn(h));
    return this.tallies.get(bytesToHex(h.parentHash));
  }

  private applyBlock(tally: VoteTally, header: BlockHeader): VoteTally {
    if (this.schedule.isEpochBlock(header.number)) return tally.withoutVotes();
    const vote = decodeExtraData(this.variant, header.extraData).vote;
    if (!vote) return tally;
    return tally.withVote(header.coinbase.toString(), vote.recipient, vote.add);
  }
}

/** keccak-256("getValidators()")[0..4]. */
const GET_VALIDATORS = hexToBytes('0xb7ab4db5');

/** Decodes an ABI `address[]` return value; throws on a malformed one. */
export function decodeAddressArray(out: Uint8Array): string[] {
  const word = (at: number): bigint => {
    if (at + 32 > out.length) throw new ValidatorSetError('validator contract returned too little data');
    return BigInt(bytesToHex(out.subarray(at, at + 32)));
  };
  const offset = word(0);
  if (offset > BigInt(out.length)) throw new ValidatorSetError('validator contract returned a bad offset');
  const at = Number(offset);
  const count = word(at);
  if (count > BigInt((out.length - at - 32) / 32))
    throw new ValidatorSetError('validator contract returned a bad array length');
  const list: string[] = [];
  for (let i = 0; i < Number(count); i++) {
    const w = out.subarray(at + 32 + i * 32, at + 64 + i * 32);
    if (w.subarray(0, 12).some((b) => b !== 0))
      throw new ValidatorSetError('validator contract returned a value that is not an address');
    list.push(bytesToHex(w.subarray(12)));
  }
  return list;
}

/** Validator sets read from a validator contract. */
export class ContractValidators {
  private readonly cache = new Lru<string, string[]>(256);

  constructor(private readonly call: ContractCaller | undefined) {}

  /** The contract's validators on the state after `header`, ascending. */
  async at(header: BlockHeader, contract: string): Promise<string[]> {
    const key = `${bytesToHex(header.hash())}:${contract}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    if (!this.call) throw new ValidatorSetError('validator contract calls are not available here');
    let out: Uint8Array;
    try {
      out = await this.call(header, contract, GET_VALIDATORS);
    } catch (err) {
      throw new ValidatorSetError(
        `Failed validator smart contract call: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const validators = [...new Set(decodeAddressArray(out))].sort();
    this.cache.set(key, validators);
    return validators;
  }
}

/** The validator provider of a BFT chain: header votes or the contract, as the schedule says. */
export class BftValidators {
  readonly headerMode: HeaderValidators;
  readonly contractMode: ContractValidators;

  constructor(
    private readonly variant: BftVariant,
    headers: HeaderSource,
    readonly schedule: BftConfigSchedule,
    call: ContractCaller | undefined,
  ) {
    this.headerMode = new HeaderValidators(variant, headers, schedule);
    this.contractMode = new ContractValidators(call);
  }

  /** True when block `number`'s validators come from a contract. */
  isContractMode(number: bigint): boolean {
    return this.schedule.at(number).validatorSelection.mode === 'contract';
  }

  /** The validators of the child of `parent` (who may propose and seal it), ascending. */
  async validatorsAfter(parent: BlockHeader): Promise<readonly string[]> {
    const sel = this.schedule.at(parent.number + 1n).validatorSelection;
    if (sel.mode === 'contract') return this.contractMode.at(parent, sel.contractAddress);
    return this.headerMode.tallyAfter(parent).validators;
  }

  /**
   * The validators of `header` itself (what ibft_/qbft_getValidatorsByBlock* report): those its
   * extraData lists in block-header mode (IBFT 2.0 in the order written, as Besu reads them from the
   * header; QBFT sorted, as its validator provider answers), the contract's on its own state in
   * contract mode.
   */
  async validatorsOf(header: BlockHeader): Promise<readonly string[]> {
    const sel = this.schedule.at(header.number).validatorSelection;
    if (sel.mode === 'contract') return this.contractMode.at(header, sel.contractAddress);
    return this.variant === 'ibft2' ? this.headerMode.written(header) : this.headerMode.listedIn(header);
  }

  /** The vote tally after `parent` when the next block is in block-header mode; undefined otherwise. */
  tallyAfter(parent: BlockHeader): VoteTally | undefined {
    if (this.isContractMode(parent.number + 1n)) return undefined;
    return this.headerMode.tallyAfter(parent);
  }
}
