/**
 * The node's networking service: the devp2p host with the `eth` capability, full sync, and gossip of
 * transactions (eth/68 announcements, full bodies to a few peers) and of new blocks on pre-merge
 * chains (NewBlock to a few peers, NewBlockHashes to the rest). Admin and net methods read it.
 */
import { EventEmitter } from 'node:events';
import { type Block, createBlockFromBytesArray } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { ChainStore, NewHeadEvent } from '../chain/chainStore.js';
import { InvalidBlockError, UnknownParentError } from '../chain/errors.js';
import type { ForkIdService } from '../chain/forkId.js';
import { keccak256 } from '../crypto/index.js';
import type { BlockImporter } from '../execution/importer.js';
import { logger } from '../log.js';
import type { PooledTx, TxPool } from '../txpool/pool.js';
import type { PeerConnection } from './capability.js';
import { DisconnectReason } from './disconnect.js';
import type { Enode } from './enode.js';
import { EthCapability } from './eth/capability.js';
import type { Rlp } from './eth/messages.js';
import type { EthHandlers, EthPeer } from './eth/peer.js';
import { type HostOptions, P2PHost } from './host.js';
import { FullSync, type SyncStatus } from './sync.js';

const log = logger('network');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
/** Transactions asked for per GetPooledTransactions. */
const TX_FETCH_BATCH = 256;
/** How long transaction announcements gather before they go out. */
const TX_GOSSIP_DELAY_MS = 20;
/** How often eth/69 peers are sent a BlockRangeUpdate (Besu: every 120 s). */
const BLOCK_RANGE_INTERVAL_MS = 120_000;

export interface NetworkOptions extends HostOptions {
  chain: ChainStore;
  importer: BlockImporter;
  common: Common;
  forkIds: ForkIdService;
  networkId: bigint;
  pool?: TxPool;
  /** eth versions offered, preferred first. */
  ethVersions: readonly number[];
  /** Whether blocks are announced with NewBlock/NewBlockHashes (pre-merge consensus). */
  propagateBlocks: boolean;
  staticNodes: Enode[];
}

export interface PeerInfo {
  conn: PeerConnection;
  eth?: EthPeer;
}

export class NetworkService extends EventEmitter<{ syncing: [SyncStatus | false] }> {
  readonly host: P2PHost;
  readonly sync: FullSync;
  private readonly ethPeers = new Map<string, EthPeer>();
  private readonly fetchingTxs = new Set<string>();
  private pendingAnnounce: PooledTx[] = [];
  private announceTimer: NodeJS.Timeout | undefined;
  private syncTimer: NodeJS.Timeout | undefined;
  private rangeTimer: NodeJS.Timeout | undefined;
  private readonly onHead = (e: NewHeadEvent) => this.announceHead(e);
  private readonly onPoolAdded = (entry: PooledTx) => this.queueTxAnnouncement(entry);

  constructor(private readonly opts: NetworkOptions) {
    super();
    this.host = new P2PHost(opts);
    const handlers: EthHandlers = {
      ready: (p) => this.onReady(p),
      closed: (p) => this.ethPeers.delete(p.id),
      newBlock: (p, block, td) => this.onNewBlock(p, block, td),
      newBlockHashes: (p, items) => this.onNewBlockHashes(p, items),
      transactions: (p, txs) => void this.addRemoteTxs(p, txs),
      announcement: (p, types, sizes, hashes) => this.onAnnouncement(p, types, sizes, hashes),
    };
    this.host.register(
      new EthCapability(opts.ethVersions, {
        chain: opts.chain,
        forkIds: opts.forkIds,
        networkId: opts.networkId,
        pooledTx: (h) => opts.pool?.get(h)?.tx.serialize(),
        handlers,
      }),
    );
    this.sync = new FullSync(opts.chain, opts.importer, opts.common, () => [...this.ethPeers.values()]);
    this.sync.on('syncing', (s) => this.emit('syncing', s));
  }

  async start(): Promise<void> {
    await this.host.start();
    for (const e of this.opts.staticNodes) this.host.addStatic(e);
    this.opts.chain.on('newHead', this.onHead);
    this.opts.pool?.on('added', this.onPoolAdded);
    this.syncTimer = setInterval(() => this.sync.trigger(), 5_000);
    this.syncTimer.unref();
    this.rangeTimer = setInterval(() => this.broadcastBlockRange(), BLOCK_RANGE_INTERVAL_MS);
    this.rangeTimer.unref();
    log.info({ enode: this.host.enode }, 'P2P network started');
  }

  async stop(): Promise<void> {
    if (this.syncTimer) clearInterval(this.syncTimer);
    if (this.rangeTimer) clearInterval(this.rangeTimer);
    if (this.announceTimer) clearTimeout(this.announceTimer);
    this.opts.chain.off('newHead', this.onHead);
    this.opts.pool?.off('added', this.onPoolAdded);
    await this.sync.stop();
    await this.host.stop();
  }

  get isSyncing(): boolean {
    return this.sync.isSyncing;
  }

  peers(): PeerInfo[] {
    return this.host.peers().map((conn) => ({ conn, eth: this.ethPeers.get(conn.id) }));
  }

  get peerCount(): number {
    return this.host.peers().length;
  }

  addPeer(e: Enode): boolean {
    return this.host.addStatic(e);
  }

  removePeer(e: Enode): boolean {
    return this.host.removeStatic(e);
  }

  // --- peers and blocks

  private onReady(peer: EthPeer): void {
    this.ethPeers.set(peer.id, peer);
    log.debug({ peer: peer.id.slice(0, 16), version: peer.version }, 'eth peer ready');
    // Tell the new peer what the pool holds, then look for a better chain.
    const pool = this.opts.pool;
    if (pool && pool.size > 0) this.announceTo(peer, pool.all());
    this.sync.trigger();
  }

  private onNewBlockHashes(peer: EthPeer, items: Array<{ hash: Uint8Array; number: bigint }>): void {
    let highest: { hash: Uint8Array; number: bigint } | undefined;
    for (const i of items)
      if (!this.opts.chain.hasBlock(i.hash) && (!highest || i.number > highest.number)) highest = i;
    if (!highest) return;
    if (peer.headNumber === undefined || highest.number > peer.headNumber) {
      peer.headHash = highest.hash;
      peer.headNumber = highest.number;
      // Its work is unknown until its headers arrive: count it as just ahead of ours.
      const localTd = this.opts.chain.getTotalDifficulty(this.opts.chain.head().hash) ?? 0n;
      if (peer.td <= localTd) peer.td = localTd + 1n;
    }
    this.sync.trigger();
  }

  private onNewBlock(peer: EthPeer, values: Rlp[], td: bigint): void {
    let block: Block;
    try {
      block = createBlockFromBytesArray(values as never, { common: this.opts.common, setHardfork: true });
    } catch (err) {
      peer.conn.disconnect(
        DisconnectReason.BREACH_OF_PROTOCOL,
        `undecodable block: ${(err as Error).message}`,
      );
      return;
    }
    const hash = block.hash();
    peer.knownBlocks.add(hex(hash));
    // A post-merge block is not gossiped: only the consensus layer makes it head.
    if (block.header.difficulty === 0n && this.opts.propagateBlocks) return;
    if (td > peer.td) {
      peer.td = td;
      peer.headHash = hash;
      peer.headNumber = block.header.number;
    }
    const chain = this.opts.chain;
    if (chain.hasBlock(hash)) return;
    if (!chain.hasBlock(block.header.parentHash)) {
      this.sync.trigger();
      return;
    }
    void (async () => {
      if (!(await block.transactionsTrieIsValid()) || !block.uncleHashIsValid()) {
        peer.conn.disconnect(DisconnectReason.BREACH_OF_PROTOCOL, 'block body does not match its header');
        return;
      }
      try {
        await this.opts.importer.importBlock(block);
      } catch (err) {
        if (err instanceof InvalidBlockError) {
          log.info(
            { peer: peer.id.slice(0, 16), reason: err.message },
            'Disconnecting peer that sent an invalid block',
          );
          peer.conn.disconnect(DisconnectReason.BREACH_OF_PROTOCOL, err.message);
        } else if (err instanceof UnknownParentError) {
          this.sync.trigger();
        } else {
          log.warn({ err }, 'Importing a propagated block failed');
        }
      }
    })();
  }

  /** eth/69 peers hear the served block range on a timer, as Besu sends it (not with every block). */
  private broadcastBlockRange(): void {
    const head = this.opts.chain.head();
    for (const p of this.ethPeers.values()) p.sendBlockRange(head.number, head.hash);
  }

  /**
   * New canonical blocks go out as NewBlock to √n peers and NewBlockHashes to the others. */
  private announceHead(e: NewHeadEvent): void {
    // While far behind (a real sync), blocks are not news to anyone.
    if (this.sync.isSyncing) return;
    const head = e.head;
    const hash = head.hash();
    const key = hex(hash);
    const peers = [...this.ethPeers.values()].filter((p) => !p.knownBlocks.has(key));
    // After the merge (difficulty 0 on a proof-of-work chain) blocks come from the consensus layer:
    // nothing is announced over devp2p any more.
    if (!this.opts.propagateBlocks || head.header.difficulty === 0n || peers.length === 0) return;
    const raw = this.opts.chain.getRawBlock(hash);
    const td = this.opts.chain.getTotalDifficulty(hash);
    if (!raw || td === undefined) return;
    const full = Math.max(1, Math.floor(Math.sqrt(peers.length)));
    peers.forEach((p, i) => {
      if (i < full) p.sendNewBlock(raw, td, hash);
      else p.sendNewBlockHashes([{ hash, number: head.header.number }]);
    });
  }

  // --- transactions

  private queueTxAnnouncement(entry: PooledTx): void {
    this.pendingAnnounce.push(entry);
    this.announceTimer ??= setTimeout(() => {
      this.announceTimer = undefined;
      const batch = this.pendingAnnounce;
      this.pendingAnnounce = [];
      const peers = [...this.ethPeers.values()];
      // Full transactions to √n peers, announcements to the rest (none re-sent to a peer that knows it).
      const full = Math.max(1, Math.floor(Math.sqrt(peers.length)));
      peers.forEach((p, i) => {
        const fresh = batch.filter((t) => !p.knownTxs.has(t.hashHex.slice(2)));
        if (fresh.length === 0) return;
        if (i < full) {
          p.sendTransactions(
            fresh.map((t) => t.tx.serialize()),
            fresh.map((t) => t.hash),
          );
        } else {
          this.announceTo(p, fresh);
        }
      });
    }, TX_GOSSIP_DELAY_MS);
  }

  private announceTo(peer: EthPeer, txs: PooledTx[]): void {
    const fresh = txs.filter((t) => !peer.knownTxs.has(t.hashHex.slice(2)));
    for (let i = 0; i < fresh.length; i += 4096) {
      const part = fresh.slice(i, i + 4096);
      peer.announceTransactions(
        part.map((t) => t.tx.type),
        part.map((t) => t.size),
        part.map((t) => t.hash),
      );
    }
  }

  private onAnnouncement(peer: EthPeer, types: Uint8Array, sizes: number[], hashes: Uint8Array[]): void {
    const pool = this.opts.pool;
    if (!pool) return;
    const wanted: Uint8Array[] = [];
    const expected = new Map<string, { type: number; size: number }>();
    hashes.forEach((h, i) => {
      const key = hex(h);
      if (pool.get(h) || this.fetchingTxs.has(key)) return;
      this.fetchingTxs.add(key);
      wanted.push(h);
      expected.set(key, { type: types[i] as number, size: sizes[i] as number });
    });
    for (let i = 0; i < wanted.length; i += TX_FETCH_BATCH) {
      const batch = wanted.slice(i, i + TX_FETCH_BATCH);
      void peer
        .getPooledTransactions(batch)
        .then(async (raws) => {
          for (const raw of raws) {
            const key = hex(keccak256(raw));
            const e = expected.get(key);
            if (!e) {
              peer.conn.disconnect(DisconnectReason.BREACH_OF_PROTOCOL, 'unrequested transaction');
              return;
            }
            const type = (raw[0] as number) >= 0xc0 ? 0 : (raw[0] as number);
            if (e.type !== type || (e.size !== raw.length && type !== 3)) {
              peer.conn.disconnect(
                DisconnectReason.BREACH_OF_PROTOCOL,
                'transaction differs from its announcement',
              );
              return;
            }
          }
          await this.addRemoteTxs(peer, raws);
        })
        .catch((err) => log.debug({ err: (err as Error).message }, 'Fetching pooled transactions failed'))
        .finally(() => {
          for (const h of batch) this.fetchingTxs.delete(hex(h));
        });
    }
  }

  private async addRemoteTxs(peer: EthPeer, raws: Uint8Array[]): Promise<void> {
    const pool = this.opts.pool;
    if (!pool) return;
    for (const raw of raws) {
      let tx: ReturnType<TxPool['decode']>;
      try {
        tx = pool.decode(raw);
      } catch {
        peer.conn.disconnect(DisconnectReason.BREACH_OF_PROTOCOL, 'undecodable transaction');
        return;
      }
      peer.knownTxs.add(hex(tx.hash()));
      try {
        await pool.add(tx, false, raw.length);
      } catch {
        // Known, underpriced, nonce too low …: the pool's verdict, not the peer's fault.
      }
    }
  }

  nodeEnode(): string {
    return this.host.enode;
  }
}
