/**
 * Results written as they are produced, for answers too large to hold (traces, wide eth_getLogs).
 *
 * To stream a method's result, return a `StreamingResult` from its handler once everything that can
 * fail with a proper JSON-RPC error has been checked (parameters, the block lookup):
 *
 *   return new StreamingResult(async (write) => {
 *     await write('[');
 *     for (const item of items) await write(JSON.stringify(item));   // the result's JSON text, in order
 *     await write(']');
 *   });
 *
 * `write` returns a promise when the transport's buffer is full (await it: that is the back-pressure)
 * and throws once the client has gone away (let it propagate: the work stops there). The dispatcher
 * holds the first `HOLD_CHARS` of the text back, so a failure early on (a timeout, a domain error) is
 * still answered with an error object; after that the text goes out as it comes and a failure can only
 * cut the connection. HTTP sends the answer with chunked framing and WebSocket as a fragmented message;
 * inside a batch the element is written in place. Where the whole text is needed (pretty printing,
 * tests), `text()` gathers it.
 */

export type StreamWrite = (text: string) => Promise<void> | undefined;

/** Characters of an answer kept back before the first byte is sent (an error can still replace them). */
export const HOLD_CHARS = 1 << 20;

export class StreamingResult {
  constructor(readonly produce: (write: StreamWrite) => Promise<void>) {}

  /** The whole text (for callers that need it in one piece). */
  async text(): Promise<string> {
    const parts: string[] = [];
    await this.produce((t) => {
      parts.push(t);
      return undefined;
    });
    return parts.join('');
  }

  /** Serialised inside another value: the parsed whole (only for small results; prefer `text`). */
  toJSON(): never {
    throw new Error('a streaming result cannot be serialised synchronously');
  }
}
