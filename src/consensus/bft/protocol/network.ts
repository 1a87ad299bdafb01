/**
 * The BFT sub-protocols on the devp2p host: IBFT 2.0's `IBF`/1 (4 message codes) and QBFT's
 * `istanbul`/100 (0x16 codes, messages at 0x12–0x15). Each peer's address is the one of its node key;
 * messages go to the connected peers whose address is a validator at the chain head, and a message is
 * sent at most once (`gossipedhistorylimit` remembered), as Besu's validator multicaster does.
 */
import { logger } from '../../../log.js';
import type { Capability, CapabilitySession, PeerConnection, SendMessage } from '../../../p2p/capability.js';
import type { BftVariant } from './messages.js';
import { addressOfKey } from './signing.js';
import { MessageTracker } from './tracker.js';

const log = logger('bft');

export const BFT_PROTOCOLS: Record<BftVariant, { name: string; version: number; messageCount: number }> = {
  ibft2: { name: 'IBF', version: 1, messageCount: 4 },
  qbft: { name: 'istanbul', version: 100, messageCount: 0x16 },
};

export interface BftPeer {
  readonly address: string;
  readonly conn: PeerConnection;
  send(code: number, data: Uint8Array): void;
}

export interface BftNetworkOptions {
  /** Validators at the chain head (the peers messages go to). */
  validators(): ReadonlySet<string>;
  gossipedHistoryLimit: number;
}

export class BftNetwork implements Capability {
  readonly name: string;
  readonly versions: readonly number[];
  private readonly count: number;
  private readonly peers = new Map<string, Set<BftPeer>>();
  private readonly sent: MessageTracker;
  /** Where received messages go (the controller, once it exists). */
  onMessage: ((code: number, data: Uint8Array, from: string) => void) | undefined;

  constructor(
    readonly variant: BftVariant,
    private readonly opts: BftNetworkOptions,
  ) {
    const p = BFT_PROTOCOLS[variant];
    this.name = p.name;
    this.versions = [p.version];
    this.count = p.messageCount;
    this.sent = new MessageTracker(opts.gossipedHistoryLimit);
  }

  messageCount(_version: number): number {
    return this.count;
  }

  open(conn: PeerConnection, _version: number, send: SendMessage): CapabilitySession {
    const address = addressOfKey(Buffer.from(conn.id, 'hex'));
    const peer: BftPeer = { address, conn, send };
    let set = this.peers.get(address);
    if (!set) {
      set = new Set();
      this.peers.set(address, set);
    }
    set.add(peer);
    const count = this.count;
    return {
      onMessage: (code, payload) => {
        // Codes outside the protocol's space never reach here; unused codes inside it are ignored.
        if (code < 0 || code >= count) return;
        this.onMessage?.(code, payload, address);
      },
      onClose: () => {
        const s = this.peers.get(address);
        s?.delete(peer);
        if (s && s.size === 0) this.peers.delete(address);
      },
    };
  }

  /** Addresses of the connected peers that speak the protocol. */
  connected(): string[] {
    return [...this.peers.keys()];
  }

  send(code: number, data: Uint8Array, exclude: readonly string[]): void {
    if (!this.sent.add(data)) return;
    const validators = this.opts.validators();
    for (const [address, set] of this.peers) {
      if (!validators.has(address) || exclude.includes(address)) continue;
      for (const peer of set) {
        try {
          peer.send(code, data);
        } catch (err) {
          log.debug({ peer: address, err: (err as Error).message }, 'Sending a BFT message failed');
        }
      }
    }
  }
}
