import { TraceAbort } from '../tracer.js';

/**
 * Where a tracer writes its answer: JSON text in order. A returned promise is back-pressure (the
 * socket is full): the tracer awaits it before the EVM goes on. A sink throws once its reader has gone
 * away, which ends the traced execution.
 */
export type TextSink = (text: string) => Promise<void> | undefined;

/** The traced run took longer than the `timeout` its caller allowed. */
export class TraceTimeoutError extends TraceAbort {
  override name = 'TraceTimeoutError';
  constructor() {
    super('trace timeout expired');
  }
}

/** What a tracer may not continue past: the caller's deadline. */
export class Deadline {
  private readonly at: number;
  private count = 0;
  constructor(timeoutMs: number | undefined) {
    this.at = timeoutMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + timeoutMs;
  }

  /** Throws TraceTimeoutError once the deadline has passed (the clock is read every 1,024 calls). */
  check(): void {
    if ((++this.count & 1023) === 0 && performance.now() > this.at) throw new TraceTimeoutError();
  }

  /** Throws at once if the deadline has passed. */
  checkNow(): void {
    if (performance.now() > this.at) throw new TraceTimeoutError();
  }
}

/** The reader of a trace went away (a client disconnected): the work stops. */
export class TraceReaderGone extends TraceAbort {
  override name = 'TraceReaderGone';
  constructor(readonly reason: unknown) {
    super('trace reader gone');
  }
}

/** `sink` with its failures turned into TraceReaderGone, which ends a traced execution cleanly. */
export function guardSink(sink: TextSink): TextSink {
  return (text) => {
    try {
      return sink(text);
    } catch (err) {
      throw err instanceof TraceAbort ? err : new TraceReaderGone(err);
    }
  };
}
