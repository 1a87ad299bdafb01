/**
 * The address key (unprefixed hex) and numeric value of the senders and recipients that calls name.
 * View calls name the same few addresses again and again (a dapp's contracts, the zero sender): the
 * last few are found by comparing their 20 bytes, instead of building the hex text and parsing it
 * back call after call. A pure function of the bytes, so the memo can never be stale.
 */
import { bytesToHexKey } from '../../state/trieStore.js';

export interface AddressKey {
  key: string;
  value: bigint;
}

interface Entry extends AddressKey {
  bytes: Uint8Array;
}

const MAX_RECENT = 16;
const recent: Entry[] = [];
/** The next slot to overwrite once `recent` is full. */
let nextSlot = 0;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  // From the end: addresses that differ mostly differ in their last bytes.
  for (let i = a.length - 1; i >= 0; i--) if (a[i] !== b[i]) return false;
  return true;
}

export function addressKeyOf(bytes: Uint8Array): AddressKey {
  for (let i = 0; i < recent.length; i++) {
    const entry = recent[i] as Entry;
    if (sameBytes(entry.bytes, bytes)) return entry;
  }
  const key = bytesToHexKey(bytes);
  const entry: Entry = { bytes: bytes.slice(), key, value: BigInt(`0x${key}`) };
  if (recent.length < MAX_RECENT) recent.push(entry);
  else {
    recent[nextSlot] = entry;
    nextSlot = (nextSlot + 1) % MAX_RECENT;
  }
  return entry;
}
