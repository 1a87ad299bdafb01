/**
 * Three of the EVM journal's per-transaction steps, answered the same way with less work. `runTx`
 * marks every precompile warm for each transaction through `addAlwaysWarmAddress`, whose prefix strip
 * tests the whole string against a regular expression (ten or more times a transaction); every
 * account write goes through `touchAddress`, which spells the address out in hex with a JavaScript
 * loop; and the EIP-161 clean-up at a transaction's end parses each touched address back from hex
 * with the same regular-expression check. Here: the same maps and sets, the same order of writes,
 * the same reads of the state manager, with the native hex codec and a prefix test. The callers pass
 * addresses as hex (`0x`-prefixed or not), as the library's own code does.
 */
import type { EVM } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { addressKey, hexKeyToBytes } from '../state/trieStore.js';

interface JournalInternals {
  alwaysWarmJournal: Map<string, Set<string>>;
  accessList?: Map<string, Set<string>>;
  touched: Set<string>;
  preimages?: Map<string, Uint8Array>;
  common: { gteHardfork(hardfork: string): boolean };
  stateManager: { getAccount(address: Address): Promise<{ isEmpty(): boolean } | undefined> };
  touchAccount(address: string): void;
  deleteAccount(address: Address): Promise<void>;
  cleanJournal(): void;
  addAlwaysWarmAddress(addressStr: string, addToAccessList?: boolean): void;
  touchAddress(address: Address): void;
  cleanup(): Promise<void>;
}

const unprefixed = (s: string): string =>
  s.charCodeAt(0) === 48 && s.charCodeAt(1) === 120 ? s.slice(2) : s;

/** Installs the shortcuts on `evm`'s journal (this instance only). */
export function useJournalShortcuts(evm: EVM): void {
  const journal = evm.journal as unknown as JournalInternals;
  journal.addAlwaysWarmAddress = function (this: JournalInternals, addressStr, addToAccessList = false) {
    const address = unprefixed(addressStr);
    if (!this.alwaysWarmJournal.has(address)) this.alwaysWarmJournal.set(address, new Set());
    if (addToAccessList && this.accessList !== undefined && !this.accessList.has(address))
      this.accessList.set(address, new Set());
  };
  journal.touchAddress = function (this: JournalInternals, address) {
    this.touchAccount(addressKey(address));
  };
  journal.cleanup = async function (this: JournalInternals) {
    if (this.common.gteHardfork('spuriousDragon')) {
      for (const addressHex of this.touched) {
        const address = new Address(hexKeyToBytes(addressHex));
        const account = await this.stateManager.getAccount(address);
        if (account === undefined || account.isEmpty()) await this.deleteAccount(address);
      }
    }
    this.cleanJournal();
    delete this.accessList;
    delete this.preimages;
  };
}
