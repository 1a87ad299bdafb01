/**
 * The sub-protocol seam: a capability (`eth`/68, IBFT's `IBF`/1, QBFT's `istanbul`/100 …) registers
 * with the host, which knows none of them. For every connected peer that shares it, the host opens a
 * session and hands it the peer and a sender; the session receives the capability's messages with
 * codes relative to the capability (0 = its first message) and payloads already decompressed.
 */
import type { DisconnectReason } from './disconnect.js';

/** What a sub-protocol sees of a connected peer. */
export interface PeerConnection {
  /** The peer's node id: its 64-byte public key as 128 hex digits (no 0x). */
  readonly id: string;
  /** The client id from the peer's hello, e.g. `Geth/v1.14.0-stable/linux-amd64/go1.22.0`. */
  readonly clientId: string;
  readonly inbound: boolean;
  readonly localAddress: string;
  readonly remoteAddress: string;
  /** The TCP port the peer listens on (its hello's port), 0 if it announced none. */
  readonly listenPort: number;
  /** The devp2p version from the peer's hello. */
  readonly p2pVersion: number;
  /** Capabilities both sides share, e.g. `eth/68`. */
  readonly capabilities: string[];
  /** The enode URL of the peer (its announced listening port). */
  readonly enode: string;
  /** Disconnects with `reason`; `detail` goes to the log. */
  disconnect(reason: DisconnectReason, detail?: string): void;
  /** The session of another capability on this peer, if shared. */
  session<T extends CapabilitySession>(name: string): T | undefined;
}

export type SendMessage = (code: number, payload: Uint8Array) => void;

export interface CapabilitySession {
  /** A message of this capability (code relative to the capability, payload RLP, decompressed). */
  onMessage(code: number, payload: Uint8Array): void;
  /** The connection ended. */
  onClose(): void;
}

export interface Capability {
  readonly name: string;
  /** Versions offered, highest preferred; the host picks the highest both sides share. */
  readonly versions: readonly number[];
  /** Message codes the capability occupies at `version`. */
  messageCount(version: number): number;
  open(peer: PeerConnection, version: number, send: SendMessage): CapabilitySession;
}
