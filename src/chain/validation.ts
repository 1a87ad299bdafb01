/**
 * The header rules every engine shares, split by what they need: a header alone (gas used within the
 * limit, extraData size, the post-merge constants) and a header against its parent (number, time, gas
 * limit, base fee, blob gas, proof-of-work difficulty). Engines call these from their
 * `ConsensusRules.verifyHeaderAlone`/`verifyHeader` and add their own; under proof of authority the
 * engine owns difficulty and extraData instead.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';

const ZERO_NONCE = new Uint8Array(8);
const EMPTY_UNCLE_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';

export interface SharedHeaderRules {
  /** Proof of authority: the engine owns difficulty and extraData. */
  proofOfAuthority?: boolean;
  /** `config.ethash.fixeddifficulty`: every proof-of-work block carries it. */
  fixedDifficulty?: bigint;
}

/** The shared rules on a header alone; a reason when broken. */
export function checkHeaderAlone(header: BlockHeader, opts: SharedHeaderRules = {}): string | undefined {
  const common = header.common;
  if (header.gasUsed > header.gasLimit)
    return `gas used ${header.gasUsed} exceeds gas limit ${header.gasLimit}`;
  const maxExtra = common.param('maxExtraDataSize');
  if (!opts.proofOfAuthority && BigInt(header.extraData.length) > maxExtra) {
    return `extra data is ${header.extraData.length} bytes, more than ${maxExtra}`;
  }
  if (isPostMerge(header)) {
    if (header.difficulty !== 0n) return `difficulty ${header.difficulty} must be 0 after the merge`;
    if (bytesToHex(header.nonce) !== bytesToHex(ZERO_NONCE)) return 'nonce must be 0 after the merge';
    if (bytesToHex(header.uncleHash) !== EMPTY_UNCLE_HASH) return 'ommers must be empty after the merge';
  }
  return undefined;
}

/** The shared rules on a header against its parent; a reason when broken. */
export function checkHeaderAgainstParent(
  header: BlockHeader,
  parent: BlockHeader,
  opts: SharedHeaderRules = {},
): string | undefined {
  const common = header.common;
  if (header.number !== parent.number + 1n)
    return `block number ${header.number} does not follow parent ${parent.number}`;
  if (header.timestamp <= parent.timestamp)
    return `timestamp ${header.timestamp} is not greater than parent timestamp ${parent.timestamp}`;
  try {
    header.validateGasLimit(parent);
  } catch (err) {
    return `invalid gas limit ${header.gasLimit}: ${firstLine(err)}`;
  }
  if (common.isActivatedEIP(1559)) {
    const expected = parent.common.isActivatedEIP(1559)
      ? parent.calcNextBaseFee()
      : common.param('initialBaseFee');
    if (header.baseFeePerGas !== expected)
      return `base fee ${header.baseFeePerGas} does not match expected ${expected}`;
  }
  if (common.isActivatedEIP(4844)) {
    const expected = parent.common.isActivatedEIP(4844) ? parent.calcNextExcessBlobGas(common) : 0n;
    if (header.excessBlobGas !== expected)
      return `excess blob gas ${header.excessBlobGas} does not match expected ${expected}`;
  }
  if (!isPostMerge(header) && !opts.proofOfAuthority && common.consensusAlgorithm() === 'ethash') {
    const expected = opts.fixedDifficulty ?? header.ethashCanonicalDifficulty(parent);
    if (header.difficulty !== expected)
      return `difficulty ${header.difficulty} does not match expected ${expected}`;
  }
  return undefined;
}

/**
 * True when the header's own fork rules are the merge's: its Common is at Paris or later under proof
 * of stake (BFT chains reach Shanghai and later forks without ever leaving proof of authority).
 */
export function isPostMerge(header: BlockHeader): boolean {
  return header.common.gteHardfork('paris') && header.common.consensusType() === 'pos';
}

function firstLine(err: unknown): string {
  return String(err instanceof Error ? err.message : err).split('\n')[0];
}
