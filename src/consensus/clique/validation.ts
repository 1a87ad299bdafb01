/**
 * Clique header rules on import, on top of the checks every engine shares (number, gas, base fee).
 * On a header alone: extraData layout, zero coinbase on checkpoints, vote nonce, zero mixHash, no
 * ommers. Against its parent: minimum block period, checkpoint signer list, an authorised signer that
 * has not sealed too recently, and the difficulty of its turn.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { type Address, bytesToHex, createAddressFromString } from '@ethereumjs/util';
import { decodeExtraData } from './extraData.js';
import { ZERO_ADDRESS } from './seal.js';
import { CliqueSnapshots, voteOf } from './snapshot.js';

export const DIFF_IN_TURN = 2n;
export const DIFF_NO_TURN = 1n;
const EMPTY_UNCLE_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';

export class CliqueHeaderRules {
  constructor(
    private readonly snapshots: CliqueSnapshots,
    private readonly periodSeconds: number,
  ) {}

  /** The signer: Clique's COINBASE opcode and fee recipient. */
  beneficiary(header: BlockHeader): Address {
    return createAddressFromString(this.snapshots.signerOf(header));
  }

  /** The Clique rules on a header alone (extraData layout, vote, mixHash, ommers); a reason when broken. */
  checkHeaderAlone(header: BlockHeader): string | undefined {
    const extra = decodeExtraData(header.extraData);
    if (typeof extra === 'string') return extra;
    const checkpoint = this.snapshots.isCheckpoint(header.number);
    if (!checkpoint && extra.signers.length > 0) {
      return `extraData of a non-checkpoint block lists ${extra.signers.length} signers; the list must be empty`;
    }
    if (checkpoint && header.coinbase.toString() !== ZERO_ADDRESS) {
      return `coinbase of checkpoint block is ${header.coinbase.toString()}; checkpoints carry no vote`;
    }
    const vote = voteOf(header);
    if (typeof vote === 'string') return vote;
    if (header.mixHash.some((b) => b !== 0)) return `mixHash ${bytesToHex(header.mixHash)} must be zero`;
    if (bytesToHex(header.uncleHash) !== EMPTY_UNCLE_HASH) return 'Clique blocks have no ommers';
    return undefined;
  }

  /**
   * The Clique rules on a header against its parent (block period, checkpoint signer list, an authorised
   * signer that has not sealed too recently, the difficulty of its turn); a reason when broken. Expects
   * `checkHeaderAlone` to have passed.
   */
  checkHeader(header: BlockHeader, parent: BlockHeader): string | undefined {
    const earliest = parent.timestamp + BigInt(this.periodSeconds);
    if (header.timestamp < earliest) {
      return `timestamp ${header.timestamp} is less than parent timestamp ${parent.timestamp} + block period ${this.periodSeconds}`;
    }
    const checkpoint = this.snapshots.isCheckpoint(header.number);
    const extra = decodeExtraData(header.extraData);
    if (typeof extra === 'string') return extra;

    const tally = this.snapshots.tallyAfter(parent);
    if (checkpoint && !sameList(extra.signers, tally.signers)) {
      return `checkpoint signers [${extra.signers.join(', ')}] do not match the signers [${tally.signers.join(', ')}]`;
    }
    let signer: string;
    try {
      signer = this.snapshots.signerOf(header);
    } catch (err) {
      return `invalid seal: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (!tally.isSigner(signer)) return `sealer ${signer} is not an authorised signer`;
    if (this.snapshots.signedRecently(signer, parent, tally.signers.length)) {
      return `signer ${signer} sealed one of the last ${Math.floor(tally.signers.length / 2)} blocks`;
    }
    const expected = CliqueSnapshots.inTurn(tally, signer, header.number) ? DIFF_IN_TURN : DIFF_NO_TURN;
    if (header.difficulty !== expected) {
      return `difficulty ${header.difficulty} does not match expected ${expected} (signer ${signer} is ${expected === DIFF_IN_TURN ? 'in turn' : 'out of turn'})`;
    }
    return undefined;
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
