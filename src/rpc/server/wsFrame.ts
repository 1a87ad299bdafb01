/**
 * Server-to-client WebSocket text frames (RFC 6455 §5.2: final, unmasked, no extensions), built as one
 * buffer so each message leaves in a single socket write. The `ws` library writes a header and a
 * payload as two buffers through a corked stream, which costs a `writev` and extra stream bookkeeping
 * per message: the larger part of the server's time per request on small answers.
 */

const FIN_TEXT = 0x81;
/** First frame of a fragmented text message (not final). */
export const TEXT_FIRST = 0x01;
/** A continuation frame that is not the last. */
export const CONTINUATION = 0x00;
/** The last continuation frame of a fragmented message. */
export const FIN_CONTINUATION = 0x80;

/** The complete frame carrying `text` (UTF-8). */
export function textFrame(text: string): Buffer {
  return frameOf(text, FIN_TEXT);
}

/**
 * A frame whose first byte is `head` (FIN bit and opcode): a large answer leaves as a fragmented
 * message (RFC 6455 §5.4), TEXT_FIRST then CONTINUATION frames and a FIN_CONTINUATION one.
 */
export function frameOf(text: string, head: number): Buffer {
  const length = Buffer.byteLength(text, 'utf8');
  const headerLength = length < 126 ? 2 : length < 0x10000 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = head;
  if (length < 126) {
    frame[1] = length;
  } else if (length < 0x10000) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(length / 0x100000000), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  frame.write(text, headerLength, length, 'utf8');
  return frame;
}
