/**
 * Besu's Bonsai trie log of a simulated block (eth_simulateV1 `returnTrieLog`): every account the
 * block read or wrote with its value before and after the block, code that changed, and storage
 * slots written (or read with a value), as Besu serialises its trie log layer:
 *
 *   [blockHash, [address, accountChange | null, codeChange | null, [slotChange…] | null]…]
 *   accountChange = [prior | null, updated | null, null]   (accounts as in the state trie)
 *   codeChange    = [prior | null, updated | null, null]   (only when the code differs)
 *   slotChange    = [keccak(slot), prior, updated, null]   (values as minimal big-endian scalars)
 *
 * Entries are ordered by address, slots by their hash. "Before" is the state the block started
 * from, before its state overrides. Accounts absent before and after are left out, as are slots
 * only read while empty.
 */
import { RLP } from '@ethereumjs/rlp';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { type Account, type Address, bytesToHex, equalsBytes } from '@ethereumjs/util';
import { keccak256 } from '../crypto/index.js';

type AccountFields = Uint8Array[];

interface SlotRecord {
  key: Uint8Array;
  prior: Uint8Array;
  written: boolean;
}

interface AddressRecord {
  address: Address;
  prior: AccountFields | undefined;
  code?: Uint8Array;
  slots: Map<string, SlotRecord>;
}

const EMPTY = new Uint8Array();

function stripZeros(v: Uint8Array): Uint8Array {
  let i = 0;
  while (i < v.length && v[i] === 0) i++;
  return v.slice(i);
}

function fields(account: Account | undefined): AccountFields | undefined {
  return account?.raw().map((f) => f.slice());
}

type Patched = Pick<
  MerkleStateManager,
  | 'getAccount'
  | 'putAccount'
  | 'deleteAccount'
  | 'getCode'
  | 'putCode'
  | 'getStorage'
  | 'putStorage'
  | 'clearStorage'
>;
const PATCHED: ReadonlyArray<keyof Patched> = [
  'getAccount',
  'putAccount',
  'deleteAccount',
  'getCode',
  'putCode',
  'getStorage',
  'putStorage',
  'clearStorage',
];

/** Watches one block's state accesses on `state`, from `attach()` until `detach()`. */
export class TrieLogRecorder {
  private readonly records = new Map<string, AddressRecord>();
  private readonly original: Patched;

  constructor(private readonly state: MerkleStateManager) {
    const s = state as unknown as Record<string, (...args: never[]) => unknown>;
    const bound = {} as Record<string, unknown>;
    for (const name of PATCHED) bound[name] = s[name].bind(state);
    this.original = bound as unknown as Patched;
  }

  private async record(address: Address): Promise<AddressRecord> {
    const key = address.toString();
    let r = this.records.get(key);
    if (!r) {
      // Set before awaiting so re-entrant calls (the state manager calls itself) see the entry.
      r = { address, prior: undefined, slots: new Map() };
      this.records.set(key, r);
      r.prior = fields(await this.original.getAccount(address));
    }
    return r;
  }

  private async slot(address: Address, key: Uint8Array, written: boolean): Promise<void> {
    const r = await this.record(address);
    const k = bytesToHex(key);
    const s = r.slots.get(k);
    if (s) {
      s.written ||= written;
      return;
    }
    const entry: SlotRecord = { key: key.slice(), prior: EMPTY, written };
    r.slots.set(k, entry);
    entry.prior = stripZeros(await this.original.getStorage(address, key));
  }

  attach(): void {
    const o = this.original;
    const watched: Patched = {
      getAccount: async (a) => {
        await this.record(a);
        return o.getAccount(a);
      },
      putAccount: async (a, account) => {
        await this.record(a);
        return o.putAccount(a, account);
      },
      deleteAccount: async (a) => {
        await this.record(a);
        return o.deleteAccount(a);
      },
      getCode: async (a) => {
        await this.record(a);
        return o.getCode(a);
      },
      putCode: async (a, code) => {
        const r = await this.record(a);
        r.code ??= (await o.getCode(a)).slice();
        return o.putCode(a, code);
      },
      getStorage: async (a, key) => {
        await this.slot(a, key, false);
        return o.getStorage(a, key);
      },
      putStorage: async (a, key, value) => {
        await this.slot(a, key, true);
        return o.putStorage(a, key, value);
      },
      clearStorage: async (a) => {
        await this.record(a);
        return o.clearStorage(a);
      },
    };
    Object.assign(this.state, watched);
  }

  detach(): void {
    const s = this.state as unknown as Record<string, unknown>;
    for (const name of PATCHED) delete s[name];
  }

  /** The RLP trie log of the block `blockHash`; call after the block's state root was computed. */
  async encode(blockHash: Uint8Array): Promise<Uint8Array> {
    const o = this.original;
    const entries: Array<[string, unknown[]]> = [];
    for (const [key, r] of this.records) {
      const updated = fields(await o.getAccount(r.address));
      const accountChange =
        r.prior === undefined && updated === undefined
          ? undefined
          : [r.prior ?? EMPTY, updated ?? EMPTY, EMPTY];
      let codeChange: unknown[] | undefined;
      if (r.code !== undefined) {
        const now = await o.getCode(r.address);
        if (!equalsBytes(now, r.code)) codeChange = [r.code, now, EMPTY];
      }
      const slots: Array<[string, Uint8Array[]]> = [];
      for (const s of r.slots.values()) {
        if (!s.written && s.prior.length === 0) continue;
        const after = updated === undefined ? EMPTY : stripZeros(await o.getStorage(r.address, s.key));
        const hash = keccak256(s.key);
        slots.push([bytesToHex(hash), [hash, s.prior, after, EMPTY]]);
      }
      if (!accountChange && !codeChange && slots.length === 0) continue;
      slots.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      entries.push([
        key,
        [
          r.address.bytes,
          accountChange ?? EMPTY,
          codeChange ?? EMPTY,
          slots.length > 0 ? slots.map((s) => s[1]) : EMPTY,
        ],
      ]);
    }
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return RLP.encode([blockHash, ...entries.map((e) => e[1])] as never);
  }
}
