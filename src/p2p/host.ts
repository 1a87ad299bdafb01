/**
 * The devp2p host: RLPx connections (EIP-8 handshake, framing, snappy) and the `p2p` base protocol
 * (hello, ping, disconnect) from `@ethereumjs/devp2p`, discovery v4 from the same package, and the
 * capability registry. Sub-protocols plug in through `Capability`; the host never looks inside their
 * messages beyond the size limit.
 */

import type { Socket as DgramSocket } from 'node:dgram';
import { EventEmitter } from 'node:events';
import type { Server, Socket } from 'node:net';
import type { Common } from '@ethereumjs/common';
import { DPT, type PeerInfo, RLPx, type RLPxOptions, type Peer as RlpxPeer } from '@ethereumjs/devp2p';
import * as snappy from 'snappyjs';
import { nodePublicKey } from '../crypto/nodeKey.js';
import { logger } from '../log.js';
import type { Capability, CapabilitySession, PeerConnection, SendMessage } from './capability.js';
import { DisconnectReason, disconnectReasonName } from './disconnect.js';
import { type Enode, formatEnode, parseEnode } from './enode.js';

/** Besu's limit on a single message, compressed or not. */
export const MAX_MESSAGE_SIZE = 10 * 1024 * 1024;
/** How often static nodes that are not connected are dialled again. */
const STATIC_REDIAL_MS = 3_000;

const log = logger('p2p');

export interface HostOptions {
  privateKey: Uint8Array;
  /** The client id sent in hello (web3_clientVersion). */
  clientId: string;
  /** Interface the TCP listener and discovery bind to. */
  listenHost: string;
  listenPort: number;
  /** Host written into the node's enode. */
  advertisedHost: string;
  maxPeers: number;
  discovery: boolean;
  bootnodes: Enode[];
  common?: Common;
}

export interface HostEvents {
  'peer:added': [PeerConnection];
  'peer:removed': [PeerConnection, number | undefined];
}

interface Pending {
  name: string;
  version: number;
  send: (code: number, data: Uint8Array) => void;
  queue: Array<[number, Uint8Array]>;
  session?: CapabilitySession;
  conn?: Connection;
}

class Connection implements PeerConnection {
  readonly sessions = new Map<string, CapabilitySession>();
  closed = false;
  constructor(
    private readonly lib: RlpxPeer,
    readonly id: string,
    readonly clientId: string,
    readonly inbound: boolean,
    readonly localAddress: string,
    readonly remoteAddress: string,
    readonly listenPort: number,
    readonly p2pVersion: number,
    readonly capabilities: string[],
    readonly enode: string,
  ) {}

  disconnect(reason: DisconnectReason, detail?: string): void {
    if (this.closed) return;
    log.debug(
      { peer: this.id.slice(0, 16), reason: disconnectReasonName(reason), detail },
      'Disconnecting peer',
    );
    this.closed = true;
    this.lib.disconnect(reason as never);
  }

  session<T extends CapabilitySession>(name: string): T | undefined {
    return this.sessions.get(name) as T | undefined;
  }
}

/** The length a snappy block declares for its decompressed data (its leading varint). */
export function snappyDeclaredLength(block: Uint8Array): number | undefined {
  let length = 0;
  for (let i = 0, shift = 0; i < 5 && i < block.length; i++, shift += 7) {
    const b = block[i] as number;
    length += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return length;
  }
  return undefined;
}

const guarded = new WeakSet<RlpxPeer>();

/**
 * The library decompresses a frame before any sub-protocol sees it, allocating what the frame declares.
 * Each decrypted frame is looked at first: one declaring more than 10 MB disconnects the peer
 * (BREACH_OF_PROTOCOL) before anything is allocated.
 */
function guardDecompression(peer: RlpxPeer): void {
  if (guarded.has(peer)) return;
  guarded.add(peer);
  const internals = peer as unknown as {
    _eciesSession: { parseBody(data: Uint8Array): Uint8Array | undefined };
    _hello: { protocolVersion: number } | null;
  };
  const session = internals._eciesSession;
  const parseBody = session.parseBody.bind(session);
  session.parseBody = (data) => {
    const body = parseBody(data);
    if (!body || (internals._hello?.protocolVersion ?? 0) < 5) return body;
    // A frame is the message code (one RLP byte for every code in use) and the snappy block.
    const declared = snappyDeclaredLength(body.subarray(1));
    if (declared !== undefined && declared > MAX_MESSAGE_SIZE) {
      log.debug({ peer: toHex(peer.getId() ?? new Uint8Array()).slice(0, 16), declared }, 'Oversize message');
      peer.disconnect(DisconnectReason.BREACH_OF_PROTOCOL as never);
      throw new Error(`message of ${declared} bytes is over the limit`);
    }
    return body;
  };
}

const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const fromHex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));

export class P2PHost extends EventEmitter<HostEvents> {
  private readonly capabilities: Capability[] = [];
  private rlpx: RLPx | undefined;
  private dpt: DPT | undefined;
  private readonly pending = new WeakMap<RlpxPeer, Pending[]>();
  private readonly connections = new Map<string, Connection>();
  private readonly statics = new Map<string, Enode>();
  private staticTimer: NodeJS.Timeout | undefined;
  readonly nodeId: string;
  private tcpPort = 0;
  private udpPort = 0;

  constructor(private readonly opts: HostOptions) {
    super();
    this.nodeId = toHex(nodePublicKey(opts.privateKey));
  }

  /** Adds a sub-protocol; only before `start`. */
  register(capability: Capability): void {
    if (this.rlpx) throw new Error('capabilities are registered before the host starts');
    this.capabilities.push(capability);
  }

  get advertisedHost(): string {
    return this.opts.advertisedHost;
  }

  get listening(): boolean {
    return this.rlpx !== undefined;
  }

  get ports(): { listener: number; discovery: number } {
    return { listener: this.tcpPort, discovery: this.udpPort };
  }

  get enode(): string {
    return formatEnode({
      id: this.nodeId,
      host: this.opts.advertisedHost,
      tcpPort: this.tcpPort,
      udpPort: this.udpPort || this.tcpPort,
    });
  }

  async start(): Promise<void> {
    const libCaps = this.capabilities.flatMap((cap) =>
      cap.versions.map((version) => ({
        name: cap.name,
        version,
        length: cap.messageCount(version),
        constructor: this.adapterFor(cap),
      })),
    );
    if (this.opts.discovery) {
      this.dpt = new DPT(this.opts.privateKey, {
        endpoint: {
          address: this.opts.advertisedHost,
          udpPort: this.opts.listenPort,
          tcpPort: this.opts.listenPort,
        },
        shouldFindNeighbours: true,
        shouldGetDnsPeers: false,
        refreshInterval: 30_000,
        timeout: 2_000,
      });
      this.dpt.events.on('error', (err) => log.debug({ err: err.message }, 'Discovery error'));
    }
    const rlpx = new RLPx(this.opts.privateKey, {
      clientId: new TextEncoder().encode(this.opts.clientId),
      // The library types its sub-protocols as its own Protocol class; it only calls the constructor
      // and `_handleMessage`, which the adapters provide.
      capabilities: libCaps as unknown as RLPxOptions['capabilities'],
      common: this.opts.common as Common,
      maxPeers: this.opts.maxPeers,
      dpt: this.dpt ?? null,
      listenPort: this.opts.listenPort,
      timeout: 10_000,
    });
    rlpx.events.on('peer:added', (peer) => this.onPeerAdded(peer));
    rlpx.events.on('peer:removed', (peer, reason) => this.onPeerRemoved(peer, reason as number | undefined));
    rlpx.events.on('peer:error', (peer, err) => {
      log.debug(
        { peer: toHex(peer.getId() ?? new Uint8Array()).slice(0, 16), err: String(err?.message ?? err) },
        'Peer error',
      );
    });
    rlpx.events.on('error', (err) => log.warn({ err: err.message }, 'P2P listener error'));
    const server = (rlpx as unknown as { _server: Server })._server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.once('listening', () => {
        server.off('error', reject);
        resolve();
      });
      rlpx.listen(this.opts.listenPort, this.opts.listenHost);
    });
    this.tcpPort = (server.address() as { port: number }).port;
    (rlpx as unknown as { _listenPort: number })._listenPort = this.tcpPort;
    this.rlpx = rlpx;
    this.applyPeerLimit();
    if (this.dpt) {
      const dpt = this.dpt;
      const socket = (dpt as unknown as { _server: { _socket: DgramSocket } })._server._socket;
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.once('listening', () => {
          socket.off('error', reject);
          resolve();
        });
        dpt.bind(this.opts.listenPort === 0 ? this.tcpPort : this.opts.listenPort, this.opts.listenHost);
      });
      this.udpPort = socket.address().port;
      const endpoint = (dpt as unknown as { _server: { _endpoint: PeerInfo } })._server._endpoint;
      endpoint.tcpPort = this.tcpPort;
      endpoint.udpPort = this.udpPort;
      for (const b of this.opts.bootnodes) {
        dpt
          .bootstrap({ id: fromHex(b.id), address: b.host, udpPort: b.udpPort, tcpPort: b.tcpPort })
          .catch((err) =>
            log.debug({ bootnode: formatEnode(b), err: (err as Error).message }, 'Bootnode unreachable'),
          );
      }
    }
    this.staticTimer = setInterval(() => this.dialStatics(), STATIC_REDIAL_MS);
    this.staticTimer.unref();
    this.dialStatics();
  }

  async stop(): Promise<void> {
    if (this.staticTimer) clearInterval(this.staticTimer);
    const rlpx = this.rlpx;
    this.rlpx = undefined;
    if (!rlpx) return;
    for (const c of this.connections.values()) c.disconnect(DisconnectReason.CLIENT_QUITTING);
    await new Promise<void>((resolve) => {
      rlpx.destroy(() => resolve());
      setTimeout(resolve, 1000).unref();
    });
    this.dpt?.destroy();
    // Sockets still open after the goodbye are closed by force.
    for (const peer of rlpx.getPeers()) (peer as unknown as { _socket: Socket })._socket.destroy();
  }

  peers(): PeerConnection[] {
    return [...this.connections.values()];
  }

  peer(id: string): PeerConnection | undefined {
    return this.connections.get(id);
  }

  /** Adds a static node (kept connected); false when it was one already. */
  addStatic(enode: Enode): boolean {
    if (this.statics.has(enode.id)) return false;
    this.statics.set(enode.id, enode);
    this.applyPeerLimit();
    this.dial(enode);
    return true;
  }

  /** Removes a static node and drops its connection; false when it was not one. */
  removeStatic(enode: Enode): boolean {
    if (!this.statics.delete(enode.id)) return false;
    this.applyPeerLimit();
    this.connections.get(enode.id)?.disconnect(DisconnectReason.REQUESTED, 'removed');
    return true;
  }

  /**
   * Static peers do not count against --max-peers (as Besu's maintained peers): the library's own
   * limit, which counts every connection, is raised by their number, and `onPeerAdded` holds the
   * other peers to --max-peers.
   */
  private applyPeerLimit(): void {
    if (this.rlpx)
      (this.rlpx as unknown as { _maxPeers: number })._maxPeers = this.opts.maxPeers + this.statics.size;
  }

  private dialStatics(): void {
    for (const e of this.statics.values()) if (!this.connections.has(e.id)) this.dial(e);
  }

  private dial(e: Enode): void {
    const rlpx = this.rlpx;
    if (!rlpx || e.id === this.nodeId) return;
    rlpx
      .connect({ id: fromHex(e.id), address: e.host, tcpPort: e.tcpPort, udpPort: e.udpPort })
      .catch((err) => {
        log.debug({ enode: formatEnode(e), err: (err as Error).message }, 'Dial failed');
      });
  }

  /** The class `@ethereumjs/devp2p` instantiates per peer for `cap`; it hands messages to the session. */
  private adapterFor(cap: Capability) {
    const host = this;
    return class CapabilityAdapter {
      private readonly entry: Pending;
      constructor(version: number, peer: RlpxPeer, send: SendMessage) {
        guardDecompression(peer);
        this.entry = { name: cap.name, version, send, queue: [] };
        const list = host.pending.get(peer) ?? [];
        list.push(this.entry);
        host.pending.set(peer, list);
      }
      _handleMessage(code: number, payload: Uint8Array): void {
        const { entry } = this;
        if (payload.length > MAX_MESSAGE_SIZE) {
          entry.conn?.disconnect(DisconnectReason.BREACH_OF_PROTOCOL, `message of ${payload.length} bytes`);
          return;
        }
        if (entry.session) host.deliver(entry, code, payload);
        else entry.queue.push([code, payload]);
      }
    };
  }

  private deliver(entry: Pending, code: number, payload: Uint8Array): void {
    try {
      entry.session?.onMessage(code, payload);
    } catch (err) {
      entry.conn?.disconnect(DisconnectReason.BREACH_OF_PROTOCOL, (err as Error).message);
    }
  }

  private onPeerAdded(lib: RlpxPeer): void {
    const id = toHex(lib.getId() ?? new Uint8Array());
    const socket = (lib as unknown as { _socket: Socket })._socket;
    const hello = lib.getHelloMessage();
    // Only the side that accepted the connection parsed an auth message.
    const inbound = Boolean(
      (lib as unknown as { _eciesSession: { _remoteInitMsg: unknown } })._eciesSession._remoteInitMsg,
    );
    const entries = this.pending.get(lib) ?? [];
    if (!this.statics.has(id)) {
      let others = 0;
      for (const c of this.connections.keys()) if (!this.statics.has(c)) others++;
      if (others >= this.opts.maxPeers) {
        log.debug({ peer: id.slice(0, 16) }, 'Refusing peer: --max-peers reached');
        lib.disconnect(DisconnectReason.TOO_MANY_PEERS as never);
        return;
      }
    }
    const remoteHost = socket.remoteAddress ?? '';
    const listenPort = hello?.port ?? 0;
    const conn = new Connection(
      lib,
      id,
      hello?.clientId ?? '',
      inbound,
      `${socket.localAddress}:${socket.localPort}`,
      `${remoteHost}:${socket.remotePort}`,
      listenPort,
      hello?.protocolVersion ?? 5,
      entries.map((e) => `${e.name}/${e.version}`),
      formatEnode({
        id,
        host: remoteHost.replace(/^::ffff:/, ''),
        tcpPort: listenPort || (socket.remotePort ?? 0),
        udpPort: listenPort || (socket.remotePort ?? 0),
      }),
    );
    this.connections.set(id, conn);
    log.debug({ peer: id.slice(0, 16), client: conn.clientId, caps: conn.capabilities }, 'Peer connected');
    const compress = conn.p2pVersion >= 5;
    for (const entry of entries) {
      const cap = this.capabilities.find((c) => c.name === entry.name);
      if (!cap) continue;
      entry.conn = conn;
      const send: SendMessage = (code, payload) => {
        if (conn.closed) return;
        if (payload.length > MAX_MESSAGE_SIZE)
          throw new Error(`message of ${payload.length} bytes is over the limit`);
        entry.send(code, compress ? snappy.compress(payload) : payload);
      };
      const session = cap.open(conn, entry.version, send);
      entry.session = session;
      conn.sessions.set(entry.name, session);
    }
    this.emit('peer:added', conn);
    for (const entry of entries) {
      for (const [code, payload] of entry.queue.splice(0)) this.deliver(entry, code, payload);
    }
  }

  private onPeerRemoved(lib: RlpxPeer, reason: number | undefined): void {
    const id = toHex(lib.getId() ?? new Uint8Array());
    const conn = this.connections.get(id);
    if (!conn) return;
    // The library reports a duplicate connection's removal under the same id: keep the live one.
    const entries = this.pending.get(lib) ?? [];
    if (entries.length > 0 && entries[0]?.conn !== conn) return;
    conn.closed = true;
    this.connections.delete(id);
    log.debug({ peer: id.slice(0, 16), reason: disconnectReasonName(reason) }, 'Peer disconnected');
    for (const s of conn.sessions.values()) {
      try {
        s.onClose();
      } catch (err) {
        log.warn({ err }, 'Session close failed');
      }
    }
    this.emit('peer:removed', conn, reason);
    if (this.statics.has(id)) setTimeout(() => this.dialStatics(), 500).unref();
    else if (reason === DisconnectReason.ALREADY_CONNECTED && this.nodeId < id) {
      // Both nodes dialled at once (discovery finds both ways): each kept its own connection and
      // dropped the other's as a duplicate, so none is left. The node with the lower id dials again;
      // the other waits, so the two dials cannot cross a second time.
      const enode = parseEnode(conn.enode);
      setTimeout(() => {
        if (!this.connections.has(id)) this.dial(enode);
      }, 300).unref();
    }
  }
}

export { parseEnode };
