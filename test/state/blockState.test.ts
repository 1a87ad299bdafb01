/**
 * The execution state (BlockState) and the head's flat tables over real LMDB, against the library's
 * Merkle state manager: a random sequence of blocks of account, code and storage writes with nested
 * checkpoints, reverts and storage wipes gives the same state root after every block and at points
 * inside blocks (later writes, reverts and wipes then build on the tries brought up to there), the flat tables
 * that follow the blocks read every value the trie holds, and a rebuild from an older root (a
 * reorganisation) gives that root's values. Part of the root's work is also done ahead at random points
 * (`settle`, in steps cut short by a deadline already past or run to the end), as the block builder
 * does while arrivals pause.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Common, Mainnet } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, bytesToHex, KECCAK256_RLP } from '@ethereumjs/util';
import { afterAll, describe, expect, it } from 'vitest';
import { keccak256 } from '../../src/crypto/index.js';
import { Database, WriteBatch } from '../../src/db/database.js';
import { accountLeaf } from '../../src/state/blockState.js';
import { FlatState } from '../../src/state/flatState.js';
import { TrieStore } from '../../src/state/trieStore.js';
import { WorldState } from '../../src/state/worldState.js';
import { seededBytes, seededRandom } from '../helpers/seeded.js';

describe('BlockState and the flat tables', () => {
  const dir = mkdtempSync(join(tmpdir(), 'alder-blockstate-'));
  const db = Database.open(join(dir, 'database'));
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('match the Merkle state manager block by block, and the flat tables match the trie', async () => {
    const r = seededRandom(11);
    // Where a root is also taken inside a block (its own draws: the operations stay the same).
    const midRoot = seededRandom(5);
    // Where the tries are brought up ahead (settle), and how far: its own draws too.
    const settleAt = seededRandom(9);
    let settledSteps = 0;
    let settledFully = 0;
    const common = new Common({ chain: Mainnet });
    const store = new TrieStore(db);
    const world = new WorldState(store, common);
    const reference = new MerkleStateManager({
      trie: new MerklePatriciaTrie({
        useKeyHashing: true,
        useKeyHashingFunction: keccak256,
      }),
      common,
    });
    const addresses = Array.from(
      { length: 12 },
      (_, i) => new Address(Uint8Array.from({ length: 20 }, () => i * 7 + 1)),
    );
    const slot = () => {
      const s = new Uint8Array(32);
      s[31] = Math.floor(r() * 24);
      if (r() < 0.3) s[0] = Math.floor(r() * 256);
      return s;
    };
    let root = KECCAK256_RLP;
    world.flat.rebuild(root);
    const state = world.openBlockState(root);
    const roots: Uint8Array[] = [];
    const keys: Uint8Array[] = [];
    for (let block = 0; block < 30; block++) {
      let depth = 0;
      for (const sm of [state, reference]) await sm.checkpoint();
      for (let op = 0; op < 25; op++) {
        const a = addresses[Math.floor(r() * addresses.length)];
        const roll = r();
        const exists = (await reference.getAccount(a)) !== undefined;
        // The same operation on both, with the same random draws.
        if (roll < 0.25) {
          const acc = new Account(BigInt(Math.floor(r() * 5)), BigInt(Math.floor(r() * 1e9)));
          const prior = await reference.getAccount(a);
          if (prior) {
            acc.codeHash = prior.codeHash;
            acc.storageRoot = prior.storageRoot;
          }
          for (const sm of [state, reference]) await sm.putAccount(a, acc);
        } else if (roll < 0.55 && exists) {
          const key = slot();
          const value = r() < 0.25 ? new Uint8Array(0) : Uint8Array.of(0, Math.floor(r() * 256) + 1);
          for (const sm of [state, reference]) await sm.putStorage(a, key, value);
        } else if (roll < 0.6 && exists) {
          const code = Uint8Array.from({ length: 1 + Math.floor(r() * 40) }, () => Math.floor(r() * 256));
          for (const sm of [state, reference]) await sm.putCode(a, code);
        } else if (roll < 0.64 && exists) {
          for (const sm of [state, reference]) await sm.clearStorage(a);
        } else if (roll < 0.67) {
          for (const sm of [state, reference]) await sm.deleteAccount(a);
        } else if (roll < 0.8) {
          for (const sm of [state, reference]) await sm.checkpoint();
          depth++;
        } else if (depth > 0) {
          const revert = r() < 0.5;
          for (const sm of [state, reference]) await (revert ? sm.revert() : sm.commit());
          depth--;
        }
        // Reads agree at every point.
        const probe = addresses[Math.floor(r() * addresses.length)];
        const key = slot();
        expect(bytesToHex(await state.getStorage(probe, key))).toBe(
          bytesToHex(await reference.getStorage(probe, key)),
        );
        expect((await state.getAccount(probe))?.balance).toBe((await reference.getAccount(probe))?.balance);
        expect(bytesToHex(await state.getCode(probe))).toBe(bytesToHex(await reference.getCode(probe)));
        if (midRoot() < 0.15)
          expect(bytesToHex(await state.getStateRoot()), `block ${block} op ${op}`).toBe(
            bytesToHex(await reference.getStateRoot()),
          );
        if (settleAt() < 0.3) {
          // A deadline already past still does one step (up to 32 slots or accounts, or one subtree).
          const done = state.settle(settleAt() < 0.7 ? performance.now() - 1 : Number.POSITIVE_INFINITY);
          if (done) settledFully++;
          else settledSteps++;
        }
      }
      while (depth-- > 0) for (const sm of [state, reference]) await sm.commit();
      for (const sm of [state, reference]) await sm.commit();
      const expected = await reference.getStateRoot();
      expect(bytesToHex(await state.getStateRoot())).toBe(bytesToHex(expected));
      const { root: next, changes } = state.commitBlock();
      const writes = new WriteBatch();
      store.drainInto(writes);
      world.flat.apply(writes, changes, next);
      keys.push(FlatState.encodeKeys(changes));
      db.commit(writes);
      world.flat.moved(next);
      root = next;
      roots.push(root);
    }
    // Both ways of settling happened: cut short, and to the end.
    expect(settledSteps).toBeGreaterThan(10);
    expect(settledFully).toBeGreaterThan(10);
    // The flat tables hold what the trie holds at the head, for every account and probed slot.
    const fromFlat = world.at(root);
    expect(world.flat.isAt(root)).toBe(true);
    const check = async (at: Uint8Array) => {
      const trie = world.at(at);
      for (const a of addresses) {
        const account = trie.account(a.bytes);
        expect(world.flat.account(a.bytes)?.serialize()).toEqual(account?.serialize());
        for (let i = 0; i < 24; i++) {
          const key = new Uint8Array(32);
          key[31] = i;
          const viaTrie =
            account === undefined || bytesToHex(account.storageRoot) === bytesToHex(KECCAK256_RLP)
              ? new Uint8Array(0)
              : trie.storageSync(account.storageRoot, key);
          expect(bytesToHex(world.flat.storage(a.bytes, key))).toBe(bytesToHex(viaTrie));
        }
      }
    };
    expect(fromFlat.balance(addresses[0].bytes)).toBe(
      (await reference.getAccount(addresses[0]))?.balance ?? 0n,
    );
    await check(root);
    // A reorganisation back to an older state moves the tables by the keys of the blocks between the
    // two states, in either direction; a rebuild from the trie gives the same tables.
    const older = roots[10];
    world.flat.catchUp(older, keys.slice(11));
    expect(world.flat.isAt(older)).toBe(true);
    await check(older);
    world.flat.catchUp(root, keys.slice(11));
    await check(root);
    world.flat.rebuild(older);
    expect(world.flat.isAt(older)).toBe(true);
    await check(older);
  });

  it('writes account leaves as the library serialises accounts, and refuses what it refuses', () => {
    const r = seededRandom(17);
    const bytes = seededBytes(19);
    const big = (length: number) => {
      let v = 0n;
      for (const b of bytes(length)) v = (v << 8n) | BigInt(b);
      return v;
    };
    const values = [0n, 1n, 127n, 128n, 255n, 256n, (1n << 64n) - 1n, (1n << 256n) - 1n];
    for (let i = 0; i < 200; i++) values.push(big(1 + Math.floor(r() * 32)));
    const root = bytes(32);
    for (const balance of values) {
      const nonce = balance & ((1n << 64n) - 1n);
      const want = new Account(nonce, balance, root, KECCAK256_RLP).serialize();
      expect(bytesToHex(accountLeaf(nonce, balance, root, KECCAK256_RLP))).toBe(bytesToHex(want));
    }
    expect(() => accountLeaf(-1n, 0n, root, KECCAK256_RLP)).toThrow();
    expect(() => accountLeaf(0n, -1n, root, KECCAK256_RLP)).toThrow();
    expect(() => accountLeaf(0n, 0n, root.subarray(1), KECCAK256_RLP)).toThrow();
  });
});
