import { describe, expect, it } from 'vitest';
import { Receiver } from 'ws';
import { textFrame } from '../../src/rpc/server/wsFrame.js';

/** Frames decoded by the `ws` library's own client-side receiver. */
function decode(frame: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const receiver = new Receiver({ isServer: false, maxPayload: 0 });
    receiver.on('message', (data: Buffer, isBinary: boolean) =>
      isBinary ? reject(new Error('binary')) : resolve(data.toString('utf8')),
    );
    receiver.on('error', reject);
    receiver.write(frame);
  });
}

describe('textFrame', () => {
  it('builds frames a WebSocket client reads back, at every length encoding and with multi-byte text', async () => {
    for (const text of [
      '',
      'x',
      'é'.repeat(62),
      'a'.repeat(125),
      'a'.repeat(126),
      '✓'.repeat(30_000),
      'b'.repeat(70_000),
    ]) {
      const frame = textFrame(text);
      const bytes = Buffer.byteLength(text);
      expect(frame.length).toBe(bytes + (bytes < 126 ? 2 : bytes < 65536 ? 4 : 10));
      expect(await decode(frame)).toBe(text);
    }
  });
});
