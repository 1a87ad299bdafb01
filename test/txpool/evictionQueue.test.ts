/** The eviction order the pool keeps incrementally agrees with a scan of every sender's last nonce. */
import { describe, expect, it } from 'vitest';
import { EvictionQueue } from '../../src/txpool/evictionQueue.js';
import type { PooledTx } from '../../src/txpool/pool.js';

interface Fake {
  entry: PooledTx;
  fee: bigint;
}

/** A deterministic pseudo-random sequence (the test must not depend on the run). */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 2 ** 32;
  };
}

describe('EvictionQueue', () => {
  it('yields the cheapest last-nonce transaction, the newest among equal fees, as a full scan does', () => {
    const rand = rng(7);
    const q = new EvictionQueue();
    const senders = new Map<string, Fake[]>();
    let seq = 0;
    const isLast = (e: PooledTx) => senders.get(e.senderHex)?.at(-1)?.entry === e;
    const add = (sender: string) => {
      const lane = senders.get(sender) ?? [];
      const fee = BigInt(1 + Math.floor(rand() * 5));
      const entry = { senderHex: sender, seq: seq++, hashHex: `h${seq}` } as unknown as PooledTx;
      lane.push({ entry, fee });
      senders.set(sender, lane);
      q.offer(entry, fee);
    };
    const scan = (): PooledTx | undefined => {
      let best: Fake | undefined;
      for (const lane of senders.values()) {
        const last = lane.at(-1) as Fake;
        if (!best || last.fee < best.fee || (last.fee === best.fee && last.entry.seq > best.entry.seq))
          best = last;
      }
      return best?.entry;
    };
    for (let round = 0; round < 4000; round++) {
      add(`s${Math.floor(rand() * 20)}`);
      if (rand() < 0.4) {
        const victim = q.next(isLast);
        expect(victim).toBe(scan());
        if (!victim) continue;
        const lane = senders.get(victim.senderHex) as Fake[];
        lane.pop();
        if (lane.length === 0) senders.delete(victim.senderHex);
        else {
          const last = lane.at(-1) as Fake;
          q.offer(last.entry, last.fee);
        }
      }
      q.compact(senders.size, isLast);
      expect(q.length).toBeLessThanOrEqual(4 * senders.size + 1025);
    }
  });
});
