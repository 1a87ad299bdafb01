/**
 * The call state (a private overlay over a shared, memoised snapshot of a block's state) against
 * the EthereumJS Merkle state manager over the real trie store in LMDB: the same operations give
 * the same reads and the same state root, and nothing a call writes or overrides is seen by a later
 * call at the same state root or reaches the shared snapshot.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBlockHeader } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import {
  Account,
  Address,
  bigIntToBytes,
  bytesToBigInt,
  bytesToHex,
  hexToBytes,
  setLengthLeft,
} from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainStore } from '../../src/chain/chainStore.js';
import { customCrypto } from '../../src/crypto/index.js';
import { Database } from '../../src/db/database.js';
import { CallState } from '../../src/execution/callState.js';
import { openOverlayState } from '../../src/execution/overlayStore.js';
import { CallSimulator } from '../../src/execution/simulator.js';
import { ContentCache, StateSnapshot } from '../../src/state/stateSnapshot.js';
import { TrieStore } from '../../src/state/trieStore.js';
import { WorldState } from '../../src/state/worldState.js';

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun, customCrypto: customCrypto() });

const addr = (n: number) => new Address(setLengthLeft(bigIntToBytes(BigInt(n)), 20));
const slot = (n: number) => setLengthLeft(bigIntToBytes(BigInt(n)), 32);
const word = (n: bigint) => setLengthLeft(bigIntToBytes(n), 32);

/**
 * Counter: calldata word n ≠ 0 → slot 0 += n (SSTORE), then return slot 0; no calldata → return
 * slot 0 (SLOAD only).
 */
const COUNTER = hexToBytes('0x6000358015600f57600054016000555b60005460005260206000f3');
const COUNTER_ADDRESS = addr(0xc0de);

/** A deterministic generator, so a failing sequence can be replayed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s;
  };
}

describe('CallState', () => {
  let dir: string;
  let db: Database;
  let world: WorldState;
  let root: Uint8Array;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'alder-callstate-'));
    db = Database.open(join(dir, 'database'));
    world = new WorldState(new TrieStore(db), common);
    const alloc = new Map<
      string,
      { balance: bigint; nonce: bigint; code?: Uint8Array; storage?: Array<[Uint8Array, Uint8Array]> }
    >();
    for (let i = 1; i <= 6; i++) {
      alloc.set(addr(i).toString(), {
        balance: BigInt(i) * 10n ** 18n,
        nonce: BigInt(i),
        code: i % 2 === 0 ? hexToBytes(`0x600${i}00`) : undefined,
        storage: i % 2 === 0 ? [1, 2, 3].map((k) => [slot(k), word(BigInt(k * i))]) : undefined,
      });
    }
    alloc.set(COUNTER_ADDRESS.toString(), {
      balance: 0n,
      nonce: 1n,
      code: COUNTER,
      storage: [[slot(0), word(42n)]],
    });
    root = await world.writeGenesis(alloc);
  });

  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads and roots as the Merkle state manager over a random sequence with checkpoints', async () => {
    const content = new ContentCache(world.store);
    for (const seed of [1, 2, 3, 4]) {
      const next = prng(seed);
      const mine = new CallState(new StateSnapshot(content, root));
      const theirs = openOverlayState(world, root, common);
      // The old simulator ran every call inside one outer checkpoint; compare against that.
      await theirs.checkpoint();
      let depth = 0;
      for (let step = 0; step < 150; step++) {
        const a = addr((next() % 8) + 1);
        const k = slot(next() % 5);
        const op = next() % 12;

        const both = async (f: (s: CallState | typeof theirs) => Promise<unknown>) => {
          let e1: unknown;
          let e2: unknown;
          await f(mine).catch((e) => (e1 = e));
          await f(theirs).catch((e) => (e2 = e));
          expect(e1 === undefined, `seed ${seed} step ${step} op ${op}`).toBe(e2 === undefined);
        };
        switch (op) {
          case 0:
          case 1: {
            const v = bigIntToBytes(BigInt(next() % 3));
            await both((s) => s.putStorage(a, k, v));
            break;
          }
          case 2: {
            const acc = (await mine.getAccount(a)) ?? new Account();
            acc.balance += BigInt(next() % 1000);
            acc.nonce += 1n;
            await both((s) =>
              s.putAccount(a, new Account(acc.nonce, acc.balance, acc.storageRoot, acc.codeHash)),
            );
            break;
          }
          case 3:
            if (next() % 4 === 0) await both((s) => s.deleteAccount(a));
            break;
          case 4:
            if (next() % 3 === 0) await both((s) => s.clearStorage(a));
            break;
          case 5:
            {
              const code = hexToBytes(`0x60${(next() % 256).toString(16).padStart(2, '0')}00`);
              await both((s) => s.putCode(a, code));
            }
            break;
          case 6:
            {
              const balance = BigInt(next() % 5);
              await both((s) => s.modifyAccountFields(a, { balance }));
            }
            break;
          case 7:
          case 8:
            await both((s) => s.checkpoint());
            depth++;
            break;
          case 9:
            if (depth > 0) {
              await both((s) => s.commit());
              depth--;
            }
            break;
          case 10:
            if (depth > 0) {
              await both((s) => s.revert());
              depth--;
            }
            break;
          default:
            break;
        }
        // Every address and slot reads the same on both after every step.
        for (let i = 1; i <= 8; i++) {
          const x = addr(i);
          const [m, t] = [await mine.getAccount(x), await theirs.getAccount(x)];
          expect(m?.serialize(), `seed ${seed} step ${step} account ${i}`).toEqual(t?.serialize());
          expect(bytesToHex(await mine.getCode(x))).toBe(bytesToHex(await theirs.getCode(x)));
          for (let j = 0; j < 5; j++) {
            expect(bytesToHex(await mine.getStorage(x, slot(j))), `seed ${seed} step ${step} ${i}/${j}`).toBe(
              bytesToHex(await theirs.getStorage(x, slot(j))),
            );
          }
        }
      }
      while (depth-- > 0) {
        await mine.commit();
        await theirs.commit();
      }
      expect(bytesToHex(await mine.getStateRoot()), `seed ${seed}`).toBe(
        bytesToHex(await theirs.getStateRoot()),
      );
    }
  });

  it('drops every write on reset, and the shared snapshot only ever holds committed state', async () => {
    const snapshot = new StateSnapshot(new ContentCache(world.store), root);
    const a = new CallState(snapshot);
    const b = new CallState(snapshot);
    const x = addr(2);
    await a.putStorage(x, slot(1), word(999n));
    await a.putCode(x, hexToBytes('0x00'));
    await a.putAccount(addr(77), new Account(0n, 5n));
    // Another call at the same root, at the same time, sees none of it.
    expect(bytesToBigInt(await b.getStorage(x, slot(1)))).toBe(2n);
    expect(bytesToHex(await b.getCode(x))).toBe('0x600200');
    expect(await b.getAccount(addr(77))).toBeUndefined();
    a.reset();
    expect(bytesToBigInt(await a.getStorage(x, slot(1)))).toBe(2n);
    expect(bytesToHex(await a.getCode(x))).toBe('0x600200');
    expect(await a.getAccount(addr(77))).toBeUndefined();
    // Accounts handed out are copies: changing one changes nothing else.
    const acc = await a.getAccount(x);
    if (!acc) throw new Error('missing account');
    acc.balance = 1n;
    expect((await b.getAccount(x))?.balance).toBe(2n * 10n ** 18n);
    expect(bytesToHex(await a.getStateRoot())).toBe(bytesToHex(root));
  });

  describe('through the simulator', () => {
    let simulator: CallSimulator;
    let chain: ChainStore;
    const header = (stateRoot: Uint8Array, number = 1n) =>
      createBlockHeader(
        { number, stateRoot, gasLimit: 30_000_000n, baseFeePerGas: 7n, timestamp: 1n },
        { common },
      );

    beforeAll(() => {
      chain = new ChainStore(db, common);
      simulator = new CallSimulator(chain, world, 0n);
    });

    const read = async (h: ReturnType<typeof header>, overrides?: Parameters<CallSimulator['simulate']>[2]) =>
      bytesToBigInt((await simulator.simulate(h, { to: COUNTER_ADDRESS.bytes }, overrides)).output);

    it('a call that writes storage leaves the block state unchanged for the next call', async () => {
      const h = header(root);
      expect(await read(h)).toBe(42n);
      const wrote = await simulator.simulate(h, { to: COUNTER_ADDRESS.bytes, data: word(8n) });
      expect(wrote.status).toBe('success');
      expect(bytesToBigInt(wrote.output)).toBe(50n);
      expect(await read(h)).toBe(42n);
      // Concurrent writers and readers at one block: readers always see the committed value.
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          i % 2 === 0
            ? simulator.simulate(h, { to: COUNTER_ADDRESS.bytes, data: word(BigInt(i + 1)) })
            : simulator.simulate(h, { to: COUNTER_ADDRESS.bytes }),
        ),
      );
      results.forEach((r, i) => {
        expect(bytesToBigInt(r.output)).toBe(i % 2 === 0 ? 42n + BigInt(i + 1) : 42n);
      });
    });

    it('overrides apply to their call only and do not leak into the shared cache', async () => {
      const h = header(root);
      const key = COUNTER_ADDRESS.toString();
      expect(await read(h, { overrides: new Map([[key, { stateDiff: [[slot(0), word(7n)]] }]]) })).toBe(7n);
      expect(await read(h)).toBe(42n);
      expect(await read(h, { overrides: new Map([[key, { state: [] }]]) })).toBe(0n);
      expect(await read(h)).toBe(42n);
      // New code that returns 5 at the counter's address, then the counter again.
      expect(
        await read(h, { overrides: new Map([[key, { code: hexToBytes('0x600560005260206000f3') }]]) }),
      ).toBe(5n);
      expect(await read(h)).toBe(42n);
      // The estimate of a writing call, probed at many gas limits, leaves the slot alone too.
      for (const gasLimit of [22_000n, 30_000n, 50_000n, 100_000n]) {
        await simulator.simulate(h, { to: COUNTER_ADDRESS.bytes, data: word(1n) }, { gasLimit });
      }
      expect(await read(h)).toBe(42n);
    });

    it('runs before Byzantium too, where the receipt needs the state root with the writes of the call', async () => {
      const homestead = new Common({
        chain: Mainnet,
        hardfork: Hardfork.Homestead,
        customCrypto: customCrypto(),
      });
      const h = createBlockHeader(
        { number: 1n, stateRoot: root, gasLimit: 30_000_000n, timestamp: 1n },
        { common: homestead },
      );
      const wrote = await simulator.simulate(h, { to: COUNTER_ADDRESS.bytes, data: word(8n) });
      expect(wrote.status).toBe('success');
      expect(bytesToBigInt(wrote.output)).toBe(50n);
      expect(bytesToBigInt((await simulator.simulate(h, { to: COUNTER_ADDRESS.bytes })).output)).toBe(42n);
    });

    it('each state root reads its own state', async () => {
      const sm = world.open(root, true);
      await sm.putStorage(COUNTER_ADDRESS, slot(0), word(43n));
      await sm.flush();
      const root2 = await sm.getStateRoot();
      expect(bytesToHex(root2)).not.toBe(bytesToHex(root));
      expect(await read(header(root2, 2n))).toBe(43n);
      expect(await read(header(root))).toBe(42n);
      expect(await read(header(root2, 2n))).toBe(43n);
    });
  });
});
