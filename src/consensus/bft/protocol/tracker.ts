/**
 * A bounded memory of messages already seen (by keccak256 of their bytes), oldest forgotten first:
 * Besu's duplicate-message filter (`duplicatemessagelimit`) and gossip history (`gossipedhistorylimit`).
 */
import { keccak256 } from '../../../crypto/index.js';

export class MessageTracker {
  private readonly seen = new Set<string>();

  constructor(private readonly limit: number) {}

  static key(data: Uint8Array): string {
    return Buffer.from(keccak256(data)).toString('hex');
  }

  has(data: Uint8Array): boolean {
    return this.seen.has(MessageTracker.key(data));
  }

  /** Records `data`; false when it had been seen already. */
  add(data: Uint8Array): boolean {
    const k = MessageTracker.key(data);
    if (this.seen.has(k)) return false;
    this.seen.add(k);
    if (this.seen.size > this.limit) {
      const oldest = this.seen.values().next().value as string;
      this.seen.delete(oldest);
    }
    return true;
  }

  get size(): number {
    return this.seen.size;
  }
}
