/**
 * 4byteTracer: how often each function selector was called with each argument size, keyed
 * `0x<selector>-<bytes after the selector>`, over every message call (the transaction's own included)
 * with at least four bytes of input to an address that is not a precompile. Creations are not counted.
 */
import type { Message } from '@ethereumjs/evm';
import { bytesToHex } from '@ethereumjs/util';
import type { Deadline } from './sink.js';

/** Precompiles live at the lowest addresses (0x01 … 0x11 and 0x100 so far). */
function isPrecompile(address: Uint8Array): boolean {
  for (let i = 0; i < 18; i++) if (address[i] !== 0) return false;
  const n = ((address[18] as number) << 8) | (address[19] as number);
  return n !== 0 && (n <= 0x11 || n === 0x100);
}

export class FourByteTracer {
  private readonly counts = new Map<string, number>();

  constructor(private readonly deadline: Deadline) {}

  onEnter(message: Message): void {
    this.deadline.checkNow();
    if (message.to === undefined || message.data.length < 4) return;
    if (isPrecompile(message.to.bytes)) return;
    const key = `${bytesToHex(message.data.subarray(0, 4))}-${message.data.length - 4}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  result(): string {
    const keys = [...this.counts.keys()].sort();
    const out: Record<string, number> = {};
    for (const k of keys) out[k] = this.counts.get(k) as number;
    return JSON.stringify(out);
  }
}
