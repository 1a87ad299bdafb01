/**
 * Full sync: take the chain of the peer with the most work, header batch by header batch, fetch the
 * bodies, check every body against its header and import the blocks in order through the node's
 * importer (each block one LMDB transaction, so a killed node resumes from its last imported block).
 * A peer whose headers do not link, whose bodies do not match, or whose blocks fail import is
 * disconnected. Fork choice stays the importer's: the heaviest chain becomes the head.
 */
import { EventEmitter } from 'node:events';
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { BlockDecoder } from '../chain/blockDecoder.js';
import type { ChainStore } from '../chain/chainStore.js';
import { InvalidBlockError, UnknownParentError } from '../chain/errors.js';
import { hashRawHeader } from '../chain/headerHash.js';
import type { BlockImporter } from '../execution/importer.js';
import { logger } from '../log.js';
import { formatDuration } from '../util/duration.js';
import { DisconnectReason } from './disconnect.js';
import { bytes, type Rlp, uint } from './eth/messages.js';
import type { EthPeer } from './eth/peer.js';

const log = logger('sync');

/** Headers asked for at once while following a chain. */
const HEADER_BATCH = 192;
/** Blocks behind the best peer within which the node counts as in sync (as Besu). */
export const SYNC_TOLERANCE = 5n;
/** A progress line every this many blocks (Besu's cadence) … */
const PROGRESS_BLOCKS = 200n;
/** … or after this long without one, whichever comes first. */
const PROGRESS_INTERVAL_MS = 10_000;

const EMPTY_TRIE = '56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
const EMPTY_UNCLES = '1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';

export interface SyncStatus {
  startingBlock: bigint;
  currentBlock: bigint;
  highestBlock: bigint;
}

class BadPeerDataError extends Error {}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/**
 * The periodic progress line of a running sync: every 200 blocks or 10 s, the block reached, the
 * target, the rate since the previous line (blocks/s and Mgas/s) and the time left at that rate.
 */
class ProgressReporter {
  private lastAt = 0;
  private lastNumber = 0n;
  private gas = 0n;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly peers: () => number = () => 0,
  ) {}

  /** A sync run starts (or resumes) at `number`. */
  reset(number: bigint): void {
    this.lastAt = this.now();
    this.lastNumber = number;
    this.gas = 0n;
  }

  /** A block was imported; logs a line when one is due. */
  imported(number: bigint, hash: Uint8Array, gasUsed: bigint, target: bigint): void {
    this.gas += gasUsed;
    const at = this.now();
    const elapsed = at - this.lastAt;
    if (number % PROGRESS_BLOCKS !== 0n && elapsed < PROGRESS_INTERVAL_MS && number !== target) return;
    const blocks = Number(number - this.lastNumber);
    if (blocks <= 0) return;
    const seconds = Math.max(elapsed, 1) / 1000;
    const rate = blocks / seconds;
    const mgas = Number(this.gas) / 1e6 / seconds;
    const left = target > number ? Number(target - number) / rate : 0;
    const line = {
      block: number.toString(),
      hash: `0x${hex(hash)}`,
      target: target.toString(),
      blocksPerSecond: Number(rate.toFixed(1)),
      mgasPerSecond: Number(mgas.toFixed(3)),
      eta: formatDuration(left),
      peers: this.peers(),
    };
    log.info(
      line,
      `Import reached block ${number} of ${target}, ${line.blocksPerSecond} blocks/s, ${line.mgasPerSecond} Mgas/s, ETA ${line.eta}, peers: ${line.peers}`,
    );
    this.lastAt = at;
    this.lastNumber = number;
    this.gas = 0n;
  }
}

export class FullSync extends EventEmitter<{ syncing: [SyncStatus | false] }> {
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private progress: SyncStatus | undefined;
  private reportedSyncing = false;
  /** Peers that failed to deliver the head they announced (by id → that head). */
  private readonly failed = new Map<string, string>();
  private readonly reporter: ProgressReporter;
  private readonly decoder: BlockDecoder;

  constructor(
    private readonly chain: ChainStore,
    private readonly importer: BlockImporter,
    private readonly common: Common,
    private readonly peers: () => EthPeer[],
  ) {
    super();
    this.reporter = new ProgressReporter(Date.now, () => this.peers().length);
    this.decoder = new BlockDecoder(common);
  }

  /** The eth_syncing status while the node is behind its best peer by more than the tolerance. */
  get status(): SyncStatus | undefined {
    return this.reportedSyncing ? this.progress : undefined;
  }

  get isSyncing(): boolean {
    return this.reportedSyncing;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** Starts a sync round unless one runs (then it runs once more when done). */
  trigger(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.trigger();
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    // A round waiting on a silent peer ends at its request timeout; shutdown does not wait that long.
    await Promise.race([this.running, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
  }

  /**
   * The peer with more work than the local head. Its work is its total difficulty where known (the
   * eth/68 status, a NewBlock on either version, or its head once imported here). An eth/69 peer's
   * status carries none: until it is known, a peer whose head is unknown here is a candidate (the
   * highest first) and the importer's fork choice judges its chain — on Clique an equal-height or
   * even shorter branch can be the heavier one. Past the merge total difficulty no longer grows: there
   * too a peer whose head is unknown here is a candidate, and its head header tells whether it is
   * ahead.
   */
  private bestPeer(): EthPeer | undefined {
    const head = this.chain.head();
    const localTd = this.chain.getTotalDifficulty(head.hash) ?? 0n;
    const postMerge = this.chain.headHeader().difficulty === 0n;
    const byHeight = (p: EthPeer) => p.version >= 69 && p.td === 0n;
    let best: EthPeer | undefined;
    for (const p of this.peers()) {
      if (p.isClosed || this.failed.get(p.id) === hex(p.headHash)) continue;
      if (this.chain.hasBlock(p.headHash)) continue;
      const ahead = byHeight(p) || postMerge || p.td > localTd;
      if (!ahead) continue;
      if (!best) best = p;
      else if (byHeight(p) || byHeight(best)) {
        if ((p.headNumber ?? 0n) > (best.headNumber ?? 0n)) best = p;
      } else if (p.td > best.td) best = p;
    }
    return best;
  }

  private async run(): Promise<void> {
    try {
      for (let round = 0; !this.stopped && round < 1000; round++) {
        const peer = this.bestPeer();
        if (!peer) break;
        const target = hex(peer.headHash);
        try {
          await this.syncFrom(peer);
          // Its chain is here now: its total difficulty is known from now on.
          const td = this.chain.getTotalDifficulty(peer.headHash);
          if (td !== undefined && td > peer.td) peer.td = td;
        } catch (err) {
          this.failed.set(peer.id, target);
          if (err instanceof BadPeerDataError) {
            log.info(
              { peer: peer.id.slice(0, 16), reason: err.message },
              'Disconnecting peer that sent bad chain data',
            );
            peer.conn.disconnect(DisconnectReason.BREACH_OF_PROTOCOL, err.message);
          } else {
            log.debug({ peer: peer.id.slice(0, 16), err: (err as Error).message }, 'Sync from peer failed');
          }
        }
        // A peer that served everything but whose head we still lack did not deliver its head.
        if (!this.chain.hasBlock(peer.headHash) && hex(peer.headHash) === target)
          this.failed.set(peer.id, target);
      }
    } finally {
      this.progress = undefined;
      this.setSyncing(false);
    }
  }

  private setSyncing(on: boolean): void {
    if (on === this.reportedSyncing) return;
    this.reportedSyncing = on;
    const p = this.progress;
    if (on && p)
      log.info(
        { current: p.currentBlock.toString(), highest: p.highestBlock.toString() },
        `Full sync started at block ${p.currentBlock}, target ${p.highestBlock}`,
      );
    else
      log.info({ head: this.chain.head().number.toString() }, `In sync at block ${this.chain.head().number}`);
    this.emit('syncing', on && this.progress ? { ...this.progress } : false);
  }

  private updateProgress(current: bigint, highest: bigint): void {
    if (!this.progress)
      this.progress = { startingBlock: current, currentBlock: current, highestBlock: highest };
    this.progress.currentBlock = current;
    if (highest > this.progress.highestBlock) this.progress.highestBlock = highest;
    if (this.progress.highestBlock - current > SYNC_TOLERANCE) this.setSyncing(true);
  }

  private async syncFrom(peer: EthPeer): Promise<void> {
    const [top] = await peer.getHeaders({ origin: peer.headHash, amount: 1, skip: 0, reverse: false });
    if (!top) throw new Error('peer does not serve its own head');
    const peerHead = uint(top[8], 'header number');
    if (hex(hashRawHeader(this.chain.common, top as Uint8Array[])) !== hex(peer.headHash))
      throw new BadPeerDataError('header does not hash to the requested head');
    peer.headNumber = peerHead;
    if (peerHead <= this.chain.head().number && this.chain.headHeader().difficulty === 0n) return;
    const ancestor = await this.commonAncestor(peer, peerHead);
    log.debug(
      { peer: peer.id.slice(0, 16), ancestor: ancestor.number.toString(), head: peerHead.toString() },
      'Syncing from peer',
    );
    this.updateProgress(this.chain.head().number, peerHead);
    this.reporter.reset(this.chain.head().number);
    let prevHash = ancestor.hash;
    let next = ancestor.number + 1n;
    let fetch = next <= peerHead ? this.fetchBatch(peer, next, prevHash) : undefined;
    while (fetch && !this.stopped && !peer.isClosed) {
      const blocks = await fetch;
      if (blocks.length === 0) break;
      const last = blocks[blocks.length - 1] as Block;
      prevHash = last.hash();
      next = last.header.number + 1n;
      // Fetch the next batch while this one imports.
      fetch = next <= peerHead ? this.fetchBatch(peer, next, prevHash) : undefined;
      fetch?.catch(() => undefined);
      for (const block of blocks) {
        if (this.stopped) return;
        try {
          await this.importer.importBlock(block);
        } catch (err) {
          if (err instanceof InvalidBlockError || err instanceof UnknownParentError)
            throw new BadPeerDataError(err.message);
          throw err;
        }
        this.updateProgress(this.chain.head().number, peerHead);
        if (this.reportedSyncing)
          this.reporter.imported(block.header.number, block.hash(), block.header.gasUsed, peerHead);
        // Let I/O (peer messages, JSON-RPC) through between blocks.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
  }

  /** The highest block the peer's chain shares with the local store. */
  private async commonAncestor(
    peer: EthPeer,
    peerHead: bigint,
  ): Promise<{ number: bigint; hash: Uint8Array }> {
    const localHead = this.chain.head().number;
    let top = localHead < peerHead ? localHead : peerHead;
    let span = BigInt(HEADER_BATCH);
    for (;;) {
      const from = top - span + 1n > 0n ? top - span + 1n : 0n;
      const count = Number(top - from + 1n);
      const step = count > HEADER_BATCH ? Math.ceil(count / HEADER_BATCH) : 1;
      const headers = await peer.getHeaders({
        origin: from,
        amount: Math.ceil(count / step),
        skip: step - 1,
        reverse: false,
      });
      for (let i = headers.length - 1; i >= 0; i--) {
        const h = headers[i] as Rlp[];
        const hash = hashRawHeader(this.chain.common, h as Uint8Array[]);
        const number = uint(h[8], 'header number');
        if (this.chain.hasBlock(hash)) return { number, hash };
      }
      if (from === 0n) throw new BadPeerDataError('no block in common, not even genesis');
      top = from - 1n;
      span *= 2n;
    }
  }

  /** Up to one batch of blocks from `from`, linked to `parentHash` and checked against their headers. */
  private async fetchBatch(peer: EthPeer, from: bigint, parentHash: Uint8Array): Promise<Block[]> {
    const headers = await peer.getHeaders({ origin: from, amount: HEADER_BATCH, skip: 0, reverse: false });
    let prev = parentHash;
    let expected = from;
    const needBody: number[] = [];
    const hashes: Uint8Array[] = [];
    headers.forEach((h, i) => {
      if (uint(h[8], 'header number') !== expected) throw new BadPeerDataError('headers out of sequence');
      if (hex(bytes(h[0], 'parent hash', 32)) !== hex(prev))
        throw new BadPeerDataError('headers do not link');
      const hash = hashRawHeader(this.chain.common, h as Uint8Array[]);
      hashes.push(hash);
      const txRoot = hex(bytes(h[4], 'transactions root', 32));
      const uncles = hex(bytes(h[1], 'uncles hash', 32));
      const withdrawals = h[16] instanceof Uint8Array ? hex(h[16]) : EMPTY_TRIE;
      if (txRoot !== EMPTY_TRIE || uncles !== EMPTY_UNCLES || withdrawals !== EMPTY_TRIE) needBody.push(i);
      prev = hash;
      expected++;
    });
    const bodies = new Map<number, Rlp[]>();
    let pending = needBody;
    while (pending.length > 0) {
      const ask = pending.slice(0, 128);
      const got = await peer.getBodies(ask.map((i) => hashes[i] as Uint8Array));
      if (got.length === 0) throw new Error('peer served no bodies');
      for (const [k, b] of got.entries()) bodies.set(ask[k] as number, b);
      pending = pending.slice(got.length);
    }
    const blocks: Block[] = [];
    for (let i = 0; i < headers.length; i++) {
      const h = headers[i] as Rlp[];
      const body = bodies.get(i) ?? (h.length > 16 ? [[], [], []] : [[], []]);
      let block: Block;
      try {
        block = this.decoder.fromValues([h, ...body] as never);
      } catch (err) {
        throw new BadPeerDataError(`undecodable block: ${(err as Error).message.split('\n')[0]}`);
      }
      if (!(await block.transactionsTrieIsValid()))
        throw new BadPeerDataError('body does not match its transactions root');
      if (!block.uncleHashIsValid()) throw new BadPeerDataError('body does not match its uncles hash');
      if (block.withdrawals && !(await block.withdrawalsTrieIsValid()))
        throw new BadPeerDataError('body does not match its withdrawals root');
      blocks.push(block);
    }
    return blocks;
  }
}
