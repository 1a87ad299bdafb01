/**
 * Clique's extraData layout (EIP-225): 32 bytes of signer vanity, then — on checkpoint blocks only —
 * the sorted signer addresses (20 bytes each), then the 65-byte seal r ‖ s ‖ recovery id.
 */
import { bytesToHex, hexToBytes } from '@ethereumjs/util';

export const EXTRA_VANITY = 32;
export const EXTRA_SEAL = 65;
const ADDRESS_LENGTH = 20;

export interface CliqueExtraData {
  vanity: Uint8Array;
  /** Lowercase `0x…` addresses in the order they are written. */
  signers: string[];
  seal: Uint8Array;
}

/** Splits extraData into its parts; a reason string when the layout is wrong. */
export function decodeExtraData(extra: Uint8Array): CliqueExtraData | string {
  if (extra.length < EXTRA_VANITY + EXTRA_SEAL) {
    return `extraData is ${extra.length} bytes, fewer than the ${EXTRA_VANITY + EXTRA_SEAL} of vanity and seal`;
  }
  const listLength = extra.length - EXTRA_VANITY - EXTRA_SEAL;
  if (listLength % ADDRESS_LENGTH !== 0) {
    return `extraData signer list is ${listLength} bytes, not a multiple of ${ADDRESS_LENGTH}`;
  }
  const signers: string[] = [];
  for (let at = EXTRA_VANITY; at < EXTRA_VANITY + listLength; at += ADDRESS_LENGTH) {
    signers.push(bytesToHex(extra.subarray(at, at + ADDRESS_LENGTH)));
  }
  return {
    vanity: extra.subarray(0, EXTRA_VANITY),
    signers,
    seal: extra.subarray(extra.length - EXTRA_SEAL),
  };
}

/**
 * Builds extraData. A vanity shorter than 32 bytes is padded with zeros on the left, as Besu pads
 * `--miner-extra-data`; a missing seal is written as 65 zero bytes (the unsealed form).
 */
export function encodeExtraData(
  vanity: Uint8Array,
  signers: readonly string[],
  seal?: Uint8Array,
): Uint8Array {
  if (vanity.length > EXTRA_VANITY)
    throw new RangeError(`vanity is ${vanity.length} bytes, at most 32 allowed`);
  if (seal !== undefined && seal.length !== EXTRA_SEAL) throw new RangeError('a Clique seal is 65 bytes');
  const out = new Uint8Array(EXTRA_VANITY + signers.length * ADDRESS_LENGTH + EXTRA_SEAL);
  out.set(vanity, EXTRA_VANITY - vanity.length);
  signers.forEach((s, i) => {
    out.set(hexToBytes(s as `0x${string}`), EXTRA_VANITY + i * ADDRESS_LENGTH);
  });
  if (seal) out.set(seal, out.length - EXTRA_SEAL);
  return out;
}

/** extraData with its last 65 bytes replaced by `seal`. */
export function withSeal(extra: Uint8Array, seal: Uint8Array): Uint8Array {
  const out = extra.slice();
  out.set(seal, out.length - EXTRA_SEAL);
  return out;
}
