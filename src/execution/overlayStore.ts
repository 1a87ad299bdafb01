/**
 * A trie node store for simulations: reads fall through to the shared trie store, writes stay in a
 * private map that is dropped with the simulation. A simulated call can therefore never put a node
 * into the store that block import drains into LMDB (storage tries of the EthereumJS state manager
 * write through to their store even inside checkpoints).
 */
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { type BatchDBOp, type DB, ValueEncoding } from '@ethereumjs/util';
import { keccak256 } from '../crypto/index.js';
import type { WorldState } from '../state/worldState.js';

export class OverlayStore implements DB<string, Uint8Array> {
  private readonly writes = new Map<string, Uint8Array>();

  constructor(private readonly base: DB<string, Uint8Array>) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.writes.get(key) ?? this.base.get(key);
  }

  async put(key: string, value: Uint8Array): Promise<void> {
    this.writes.set(key, value);
  }

  async del(_key: string): Promise<void> {
    // Nodes are content-addressed; a stale one is harmless and the overlay is short-lived.
  }

  async batch(ops: BatchDBOp<string, Uint8Array>[]): Promise<void> {
    for (const op of ops) if (op.type === 'put') this.writes.set(op.key, op.value);
  }

  shallowCopy(): DB<string, Uint8Array> {
    return this;
  }

  open(): Promise<void> {
    return Promise.resolve();
  }
}

/** A trie at `root` (account or storage: keys are hashed) over `db`. */
export function overlayTrie(
  db: DB<string, Uint8Array>,
  root: Uint8Array,
  common?: Common,
): MerklePatriciaTrie {
  return new MerklePatriciaTrie({
    db,
    useKeyHashing: true,
    useKeyHashingFunction: keccak256,
    valueEncoding: ValueEncoding.Bytes,
    root,
    common,
  });
}

/** A private state at `root`: reads fall through to the shared trie, writes stay in an overlay. */
export function openOverlayState(world: WorldState, root: Uint8Array, common: Common): MerkleStateManager {
  const trie = overlayTrie(new OverlayStore(world.store), root, common);
  return new MerkleStateManager({ trie, common, caches: new Caches() });
}
