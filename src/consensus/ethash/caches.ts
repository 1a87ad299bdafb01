/**
 * Epoch caches of Ethash, computed once and kept under `<data-path>/ethash/` so a restart reads them
 * back instead of spending seconds regenerating. The two most recent epochs stay in memory.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from '@ethereumjs/util';
import { allocateCache, cacheSize, datasetSize, Hashimoto, makeCache, seedHash } from './algorithm.js';

export interface EpochCache {
  epoch: number;
  seed: Uint8Array;
  fullSize: number;
  /** The light cache, 16 little-endian words per item: the start of `hashimoto.memory` (allocateCache). */
  cache: Uint32Array;
  hashimoto: Hashimoto;
}

export class EthashCaches {
  private readonly epochs = new Map<number, Promise<EpochCache>>();

  /** `dir` undefined keeps caches in memory only. */
  constructor(private readonly dir: string | undefined) {}

  get(epoch: number): Promise<EpochCache> {
    let entry = this.epochs.get(epoch);
    if (!entry) {
      entry = this.load(epoch);
      this.epochs.set(epoch, entry);
      entry.catch(() => this.epochs.delete(epoch));
      while (this.epochs.size > 2) this.epochs.delete(this.epochs.keys().next().value as number);
    }
    return entry;
  }

  private async load(epoch: number): Promise<EpochCache> {
    const seed = seedHash(epoch);
    const bytes = cacheSize(epoch);
    const fullSize = datasetSize(epoch);
    const file = this.dir ? join(this.dir, `cache-R23-${epoch}-${bytesToHex(seed).slice(2, 18)}`) : undefined;
    let cache: Uint32Array | undefined;
    if (file) {
      try {
        const raw = readFileSync(file);
        if (raw.length === bytes) {
          cache = allocateCache(bytes);
          new Uint8Array(cache.buffer, 0, bytes).set(raw);
        }
      } catch {
        // not computed yet
      }
    }
    if (!cache) {
      cache = await makeCache(bytes, seed);
      if (file && this.dir) {
        mkdirSync(this.dir, { recursive: true });
        const tmp = `${file}.tmp`;
        writeFileSync(tmp, new Uint8Array(cache.buffer, cache.byteOffset, cache.byteLength));
        renameSync(tmp, file);
      }
    }
    return { epoch, seed, fullSize, cache, hashimoto: new Hashimoto(cache, fullSize) };
  }
}
