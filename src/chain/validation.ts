/**
 * Header validation against the parent: the consensus rules every engine shares (number, time,
 * gas limit, base fee, blob gas, difficulty and the post-merge constants). Proof-of-work seals
 * are checked by the ethash verifier unless the import was asked to skip them; under proof of
 * authority the engine's rules (`ConsensusHeaderRules`) own difficulty and extraData instead.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';

const ZERO_NONCE = new Uint8Array(8);
const EMPTY_UNCLE_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';

/** Returns a reason when the header is invalid, undefined when it is valid. */
export function checkHeader(
  header: BlockHeader,
  parent: BlockHeader,
  opts: { proofOfAuthority?: boolean; fixedDifficulty?: bigint } = {},
): string | undefined {
  const common = header.common;
  if (header.number !== parent.number + 1n)
    return `block number ${header.number} does not follow parent ${parent.number}`;
  if (header.timestamp <= parent.timestamp)
    return `timestamp ${header.timestamp} is not greater than parent timestamp ${parent.timestamp}`;
  if (header.gasUsed > header.gasLimit)
    return `gas used ${header.gasUsed} exceeds gas limit ${header.gasLimit}`;
  try {
    header.validateGasLimit(parent);
  } catch (err) {
    return `invalid gas limit ${header.gasLimit}: ${firstLine(err)}`;
  }
  const maxExtra = common.param('maxExtraDataSize');
  if (!opts.proofOfAuthority && BigInt(header.extraData.length) > maxExtra) {
    return `extra data is ${header.extraData.length} bytes, more than ${maxExtra}`;
  }
  if (common.isActivatedEIP(1559)) {
    const expected = parentIsLondon(parent) ? parent.calcNextBaseFee() : common.param('initialBaseFee');
    if (header.baseFeePerGas !== expected)
      return `base fee ${header.baseFeePerGas} does not match expected ${expected}`;
  }
  if (common.isActivatedEIP(4844)) {
    const expected = parent.common.isActivatedEIP(4844) ? parent.calcNextExcessBlobGas(common) : 0n;
    if (header.excessBlobGas !== expected)
      return `excess blob gas ${header.excessBlobGas} does not match expected ${expected}`;
  }
  const postMerge = common.gteHardfork('paris');
  if (postMerge) {
    if (header.difficulty !== 0n) return `difficulty ${header.difficulty} must be 0 after the merge`;
    if (bytesToHex(header.nonce) !== bytesToHex(ZERO_NONCE)) return 'nonce must be 0 after the merge';
    if (bytesToHex(header.uncleHash) !== EMPTY_UNCLE_HASH) return 'ommers must be empty after the merge';
  } else if (!opts.proofOfAuthority && common.consensusAlgorithm() === 'ethash') {
    const expected = opts.fixedDifficulty ?? header.ethashCanonicalDifficulty(parent);
    if (header.difficulty !== expected)
      return `difficulty ${header.difficulty} does not match expected ${expected}`;
  }
  return undefined;
}

function parentIsLondon(parent: BlockHeader): boolean {
  return parent.common.isActivatedEIP(1559);
}

function firstLine(err: unknown): string {
  return String(err instanceof Error ? err.message : err).split('\n')[0];
}
