/** The `eth` capability: one `EthPeer` session per peer that shares it. */
import type { Capability, CapabilitySession, PeerConnection, SendMessage } from '../capability.js';
import { ETH_MESSAGE_COUNT } from './messages.js';
import { type EthContext, EthPeer } from './peer.js';

export class EthCapability implements Capability {
  readonly name = 'eth';

  constructor(
    readonly versions: readonly number[],
    private readonly ctx: EthContext,
  ) {}

  messageCount(version: number): number {
    return ETH_MESSAGE_COUNT[version] ?? 17;
  }

  open(peer: PeerConnection, version: number, send: SendMessage): CapabilitySession {
    return new EthPeer(peer, version, send, this.ctx);
  }
}
