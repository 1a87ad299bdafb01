/**
 * `Database.commitAsync` over real LMDB: a batch is readable (get, has, range) from the moment it is
 * handed to the commit thread, later batches win over earlier ones on the same key, deletes hide
 * committed values, and after the promises resolve a reopened database holds every batch.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Database, WriteBatch } from '../../src/db/database.js';

const key = (n: number) => Uint8Array.of(0xaa, n);
const value = (n: number) => new Uint8Array(40).fill(n);
const hex = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('hex'));

const dir = mkdtempSync(join(tmpdir(), 'alder-commit-async-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Database.commitAsync', () => {
  it('is readable at once, in order, and durable once resolved', async () => {
    const path = join(dir, 'database');
    let db = Database.open(path);
    const committed = new WriteBatch();
    for (let n = 0; n < 10; n++) committed.put('trie', key(n), value(n));
    db.commit(committed);

    const first = new WriteBatch();
    first.put('trie', key(20), value(20));
    first.put('trie', key(3), value(33));
    first.del('trie', key(4));
    const second = new WriteBatch();
    second.put('trie', key(3), value(34));
    second.put('meta', key(1), value(1));
    const writes = [db.commitAsync(first), db.commitAsync(second)];

    // Before either commit has settled, reads see both batches, the later one winning.
    expect(hex(db.get('trie', key(20)))).toBe(hex(value(20)));
    expect(hex(db.get('trie', key(3)))).toBe(hex(value(34)));
    expect(db.get('trie', key(4))).toBeUndefined();
    expect(db.has('trie', key(4))).toBe(false);
    expect(db.has('meta', key(1))).toBe(true);
    const ranged = [...db.range('trie', key(2), key(21))].map((e) => [e.key[1], e.value[0]]);
    expect(ranged).toEqual([
      [2, 2],
      [3, 34],
      [5, 5],
      [6, 6],
      [7, 7],
      [8, 8],
      [9, 9],
      [20, 20],
    ]);

    await Promise.all(writes);
    expect(hex(db.get('trie', key(3)))).toBe(hex(value(34)));
    await db.close();

    db = Database.open(path);
    try {
      expect(hex(db.get('trie', key(3)))).toBe(hex(value(34)));
      expect(hex(db.get('trie', key(20)))).toBe(hex(value(20)));
      expect(db.get('trie', key(4))).toBeUndefined();
      expect(hex(db.get('meta', key(1)))).toBe(hex(value(1)));
      expect([...db.range('trie')].length).toBe(10);
    } finally {
      await db.close();
    }
  });
});

describe('Database.commitAsync grouping', () => {
  const dir = mkdtempSync(join(tmpdir(), 'alder-commit-group-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('commits batches handed over during a commit together, in order, each resolving once durable', async () => {
    const path = join(dir, 'grouped');
    let db = Database.open(path);
    const order: number[] = [];
    const writes: Promise<void>[] = [];
    // The first batch goes to the commit thread at once; the rest queue behind it.
    for (let n = 0; n < 40; n++) {
      const batch = new WriteBatch();
      batch.put('trie', key(n), value(n));
      batch.put('meta', key(0), value(n));
      if (n > 0) batch.del('trie', key(n - 1));
      writes.push(db.commitAsync(batch).then(() => void order.push(n)));
    }
    expect(hex(db.get('meta', key(0)))).toBe(hex(value(39)));
    await Promise.all(writes);
    expect(order).toEqual(Array.from({ length: 40 }, (_, n) => n));
    await db.close();
    db = Database.open(path);
    try {
      expect(hex(db.get('meta', key(0)))).toBe(hex(value(39)));
      expect([...db.range('trie')].map((e) => e.key[1])).toEqual([39]);
    } finally {
      await db.close();
    }
  });

  it('rejects a failed group, the batches behind it and later ones, and writes none of them', async () => {
    const path = join(dir, 'failing');
    const db = Database.open(path);
    try {
      const first = new WriteBatch();
      first.put('meta', key(1), value(1));
      // LMDB refuses a key this long: the transaction holding it fails.
      const bad = new WriteBatch();
      bad.put('trie', Uint8Array.of(1, 1), value(5));
      bad.put('trie', new Uint8Array(4000).fill(7), value(6));
      const behind = new WriteBatch();
      behind.put('meta', key(2), value(2));
      const results = await Promise.allSettled([
        db.commitAsync(first),
        db.commitAsync(bad),
        db.commitAsync(behind),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
      const reason = String((results[1] as PromiseRejectedResult).reason);
      expect(String((results[2] as PromiseRejectedResult).reason)).toBe(reason);
      const later = new WriteBatch();
      later.put('meta', key(3), value(3));
      await expect(db.commitAsync(later)).rejects.toThrow(reason.replace(/^Error: /, ''));
      // Nothing of the failed or refused batches is visible, here or on disk; the first one is.
      expect(hex(db.get('meta', key(1)))).toBe(hex(value(1)));
      expect(db.get('meta', key(2))).toBeUndefined();
      expect(db.get('meta', key(3))).toBeUndefined();
      expect(db.get('trie', Uint8Array.of(1, 1))).toBeUndefined();
    } finally {
      await db.close();
    }
    const reopened = Database.open(path);
    try {
      expect(hex(reopened.get('meta', key(1)))).toBe(hex(value(1)));
      expect(reopened.get('meta', key(2))).toBeUndefined();
      expect(reopened.get('trie', Uint8Array.of(1, 1))).toBeUndefined();
    } finally {
      await reopened.close();
    }
  });
});

describe('Database.commitDurable', () => {
  it('is readable only once durable, after the readable batches handed over before it', async () => {
    const path = join(dir, 'durable');
    let db = Database.open(path);
    const committed = new WriteBatch();
    committed.put('trie', key(1), value(1));
    committed.put('trie', key(2), value(2));
    db.commit(committed);

    const readable = new WriteBatch();
    readable.put('trie', key(1), value(11));
    const hidden = new WriteBatch();
    hidden.put('trie', key(1), value(21));
    hidden.put('trie', key(3), value(3));
    hidden.del('trie', key(2));
    const settled: string[] = [];
    const first = db.commitAsync(readable).then(() => void settled.push('readable'));
    const durable = db.commitDurable(hidden).then(() => void settled.push('durable'));

    // Until it settles, reads see the database without the hidden batch (the readable one included).
    expect(hex(db.get('trie', key(1)))).toBe(hex(value(11)));
    expect(hex(db.get('trie', key(2)))).toBe(hex(value(2)));
    expect(db.has('trie', key(3))).toBe(false);
    expect([...db.range('trie')].map((e) => e.key[1])).toEqual([1, 2]);

    await durable;
    await first;
    expect(settled).toEqual(['readable', 'durable']);
    expect(hex(db.get('trie', key(1)))).toBe(hex(value(21)));
    expect(db.get('trie', key(2))).toBeUndefined();
    expect(hex(db.get('trie', key(3)))).toBe(hex(value(3)));
    await db.close();

    db = Database.open(path);
    try {
      expect([...db.range('trie')].map((e) => [e.key[1], e.value[0]])).toEqual([
        [1, 21],
        [3, 3],
      ]);
    } finally {
      await db.close();
    }
  });
});
