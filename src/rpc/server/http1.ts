/**
 * A small HTTP/1.1 server on `node:net` for the JSON-RPC ports.
 *
 * `node:http` builds a request and a response stream object, several closures and timers per request,
 * and writes headers and body as separate buffers; for the tiny requests and answers of JSON-RPC that
 * costs more CPU than the method itself. This server reads each request into one plain object (request
 * line, lower-cased headers, the whole body) and writes each answer with one socket write.
 *
 * What it implements of RFC 9112: persistent connections (HTTP/1.1 by default, HTTP/1.0 with
 * `Connection: keep-alive`), pipelined requests answered in order, `Content-Length` and chunked request
 * bodies (a request with both, or with another transfer coding, is refused), `Expect: 100-continue`,
 * HEAD, and bounds on header size, body size and idle time. Requests are handled one at a time per
 * connection, so a client that does not read its answers stops being read (back-pressure).
 *
 * Slow senders: a request's headers must arrive within `headerTimeoutMs` of its first byte and its body
 * within `bodyTimeoutMs` of its headers, else the connection is answered 408 and closed.
 *
 * Load: at most `maxConnections` requests are served at once (a connection counts from the end of its
 * headers until its answer is written, so neither idle keep-alive connections nor ones still sending
 * headers hold a slot). Requests beyond that wait in a queue of `maxQueued`, first come first served,
 * and are answered 503 only when that queue is full. Open sockets are capped at `maxSockets`; one more
 * is closed as it arrives.
 */
import { STATUS_CODES } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';

export interface Http1Request {
  method: string;
  /** The request target as sent (path and query). */
  url: string;
  /** Header values by lower-cased name; repeated headers are joined with ", ". */
  headers: Readonly<Record<string, string | undefined>>;
}

export interface Http1Response {
  status: number;
  /** Replaces the standard reason phrase. */
  statusMessage?: string;
  /** Flat `[name, value, name, value …]` list; Content-Length is added by the server. */
  headers: readonly string[];
  body: string;
  /**
   * `body` holds only ASCII characters: its length is its byte length, and it is written as it is
   * stored instead of being encoded to UTF-8 (the bytes are the same).
   */
  ascii?: boolean;
  /**
   * The body produced piece by piece (sent chunked, `body` ignored): `write` returns a promise when the
   * client is behind and the producer should wait for it. HTTP/1.0 and HEAD get it gathered instead.
   */
  stream?: (write: (text: string) => Promise<void> | undefined) => Promise<void>;
  /** Close the connection after this answer. */
  close?: boolean;
}

/** Pieces of a streamed body are gathered up to this many characters per chunk. */
const STREAM_CHUNK_CHARS = 64 * 1024;

class StreamAborted extends Error {}

export interface Http1Handler {
  /**
   * Called once the headers are read, before the body: an answer here is sent without reading the
   * body into memory (the body is skipped, or the connection closed when the answer says so).
   */
  head(req: Http1Request): Http1Response | undefined;
  /** The answer to a whole request. A rejection becomes `onError`'s answer. */
  request(req: Http1Request, body: string): Http1Response | Promise<Http1Response>;
  onError(err: unknown): Http1Response;
}

export interface Http1ServerOptions {
  host: string;
  port: number;
  /** Largest request body accepted; more is answered with 413 and the connection is closed. */
  maxBodyBytes: number;
  /** Requests served at once; 0 or less = no limit. */
  maxConnections: number;
  /** Requests that may wait for a slot; one more is answered 503. Default 10 × `maxConnections`. */
  maxQueued?: number;
  /** Open sockets; one more is closed on arrival. Default `maxConnections` + `maxQueued` + 160. */
  maxSockets?: number;
  handler: Http1Handler;
  /** A connection with no request in progress is closed after this long (ms). */
  idleTimeoutMs?: number;
  /** A request's headers must be complete this long after its first byte (ms). Default 10 s. */
  headerTimeoutMs?: number;
  /** A request's body must be complete this long after its headers (ms). Default 30 s. */
  bodyTimeoutMs?: number;
}

export const DEFAULT_HEADER_TIMEOUT_MS = 10_000;
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** Request slots: `maxConnections` at once, then a bounded first-come-first-served queue. */
class SlotLimiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly max: number,
    private readonly maxQueued: number,
  ) {}

  /** Takes a free slot; false when none is free (then `enqueue`). */
  tryAcquire(): boolean {
    if (this.max <= 0 || this.active < this.max) {
      this.active++;
      return true;
    }
    return false;
  }

  /** Waits for a slot: `granted` runs when one frees. False when the queue is full. */
  enqueue(granted: () => void): boolean {
    if (this.waiting.length >= this.maxQueued) return false;
    this.waiting.push(granted);
    return true;
  }

  /** Gives a held slot back (straight to the first waiter, if any). */
  release(): void {
    const next = this.waiting.shift();
    // The slot passes to the waiter at once; its work starts outside the caller's stack.
    if (next !== undefined) queueMicrotask(next);
    else this.active--;
  }

  /** A waiter that went away before its turn. */
  cancel(granted: () => void): void {
    const i = this.waiting.indexOf(granted);
    if (i >= 0) this.waiting.splice(i, 1);
  }
}

export interface RunningHttp1Server {
  port: number;
  close(): Promise<void>;
}

const MAX_HEADER_BYTES = 16 * 1024;
/** After a closing answer, the client gets this long to close its side before the socket is destroyed. */
const CLOSE_GRACE_MS = 2000;
const CRLF = 0x0d0a;
const HEADER_END = Buffer.from('\r\n\r\n');
const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';

const BAD_REQUEST: Http1Response = {
  status: 400,
  headers: ['Content-Type', 'text/plain'],
  body: 'Bad Request',
  close: true,
};
const HEADERS_TOO_LARGE: Http1Response = {
  status: 431,
  headers: ['Content-Type', 'text/plain'],
  body: 'Request Header Fields Too Large',
  close: true,
};
const REQUEST_TIMEOUT: Http1Response = {
  status: 408,
  headers: ['Content-Type', 'text/plain'],
  body: 'Request Timeout',
  close: true,
};
const SERVICE_UNAVAILABLE: Http1Response = {
  status: 503,
  headers: ['Content-Type', 'text/plain', 'Retry-After', '1'],
  body: 'Too many connections',
  close: true,
};
export const PAYLOAD_TOO_LARGE: Http1Response = {
  status: 413,
  headers: [],
  body: 'Request Entity Too Large',
  close: true,
};

/** Header lists are mostly the same few arrays, built once by the caller: render each once. */
const renderedHeaders = new WeakMap<readonly string[], string>();
/** The rendered header lists that hold a character beyond ASCII (an echoed request header may). */
const nonAsciiHeaders = new WeakSet<readonly string[]>();

function headerLines(h: readonly string[]): string {
  let out = renderedHeaders.get(h);
  if (out === undefined) {
    out = '';
    for (let i = 0; i < h.length; i += 2) out += `${h[i]}: ${h[i + 1]}\r\n`;
    renderedHeaders.set(h, out);
    for (let i = 0; i < out.length; i++) {
      if (out.charCodeAt(i) > 0x7f) {
        nonAsciiHeaders.add(h);
        break;
      }
    }
  }
  return out;
}

/** Status lines with the standard reason phrase, by status (built on first use). */
const statusLines: string[] = [];

function statusLine(res: Http1Response): string {
  if (res.statusMessage !== undefined) return `HTTP/1.1 ${res.status} ${res.statusMessage}\r\n`;
  let line = statusLines[res.status];
  if (line === undefined) {
    line = `HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ''}\r\n`;
    statusLines[res.status] = line;
  }
  return line;
}

class ProtocolError extends Error {
  constructor(readonly response: Http1Response) {
    super(response.body);
  }
}

type BodyFraming = { kind: 'none' } | { kind: 'length'; length: number } | { kind: 'chunked' };

interface Parsed {
  req: Http1Request;
  keepAlive: boolean;
  http10: boolean;
  framing: BodyFraming;
  expectContinue: boolean;
}

const NO_BODY: BodyFraming = { kind: 'none' };
const CHUNKED: BodyFraming = { kind: 'chunked' };

/** A method token as accepted here: one or more upper-case ASCII letters. */
function isMethodToken(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x41 || c > 0x5a) return false;
  }
  return true;
}

/** A Content-Length value: 1 to 15 ASCII digits. */
function isLengthDigits(s: string): boolean {
  if (s.length === 0 || s.length > 15) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/**
 * Header names clients send on nearly every request, lower-case. A name spelled as clients spell
 * these (in lower case, or capitalised word by word) is given as this constant: no lower-cased copy
 * and no scan for spaces, and a key the engine already holds interned for the header record.
 */
const COMMON_HEADERS: readonly string[] = [
  'host',
  'accept',
  'origin',
  'expect',
  'cookie',
  'connection',
  'user-agent',
  'keep-alive',
  'content-type',
  'authorization',
  'content-length',
  'accept-encoding',
  'accept-language',
  'transfer-encoding',
  'access-control-request-method',
  'access-control-request-headers',
];
/** The common names as clients spell them (lower case, or capitalised word by word), to their lower case. */
const COMMON_SPELLINGS = new Map<string, string>();
for (const name of COMMON_HEADERS) {
  COMMON_SPELLINGS.set(name, name);
  COMMON_SPELLINGS.set(
    name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase()),
    name,
  );
}

/** A header name, lower-cased (`text[at…colon)`); a space or tab in it is a bad request. */
function headerName(text: string, at: number, colon: number): string {
  const raw = text.slice(at, colon);
  const common = COMMON_SPELLINGS.get(raw);
  if (common !== undefined) return common;
  const name = raw.toLowerCase();
  if (name.includes(' ') || name.includes('\t')) throw new ProtocolError(BAD_REQUEST);
  return name;
}

/** The characters `String.prototype.trim` removes that a latin1-decoded header can hold. */
function isTrimmed(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0;
}

/**
 * Parses a request head (request line and header lines, without the blank line that ends it). Lines
 * end at CRLF only; it walks the text with `indexOf` instead of splitting it, and leaves the regular
 * expressions to the rare shapes (absolute-form targets, Connection header lists).
 */
export function parseHead(text: string): Parsed {
  const n = text.length;
  let lineEnd = text.indexOf('\r\n');
  if (lineEnd < 0) lineEnd = n;
  const sp1 = text.indexOf(' ');
  const sp2 = lineEnd === 0 ? -1 : text.lastIndexOf(' ', lineEnd - 1);
  if (sp1 <= 0 || sp1 >= lineEnd || sp2 <= sp1) throw new ProtocolError(BAD_REQUEST);
  const method = text.slice(0, sp1);
  let url = text.slice(sp1 + 1, sp2);
  const version = text.slice(sp2 + 1, lineEnd);
  const http11 = version === 'HTTP/1.1';
  if (!http11 && version !== 'HTTP/1.0') throw new ProtocolError(BAD_REQUEST);
  if (!isMethodToken(method) || url === '' || url.includes(' ')) throw new ProtocolError(BAD_REQUEST);
  if (url.charCodeAt(0) !== 0x2f) {
    // absolute-form (`http://host/path`), sent through proxies
    const m = /^https?:\/\/[^/?#]*(.*)$/i.exec(url);
    if (!m) {
      if (url !== '*') throw new ProtocolError(BAD_REQUEST);
    } else url = m[1] === '' ? '/' : (m[1] as string);
  }

  const headers: Record<string, string | undefined> = {};
  let at = lineEnd + 2;
  while (lineEnd < n) {
    let end = text.indexOf('\r\n', at);
    if (end < 0) end = n;
    const colon = text.indexOf(':', at);
    const first = text.charCodeAt(at);
    if (colon <= at || colon >= end || first === 0x20 || first === 0x09) throw new ProtocolError(BAD_REQUEST);
    const name = headerName(text, at, colon);
    // The value without the whitespace `trim()` would remove, cut once.
    let from = colon + 1;
    let to = end;
    while (from < to && isTrimmed(text.charCodeAt(from))) from++;
    while (to > from && isTrimmed(text.charCodeAt(to - 1))) to--;
    const value = text.slice(from, to);
    const prev = headers[name];
    if (prev === undefined) headers[name] = value;
    else if (name === 'content-length') {
      if (prev !== value) throw new ProtocolError(BAD_REQUEST);
    } else if (name !== 'host') headers[name] = `${prev}, ${value}`;
    lineEnd = end;
    at = end + 2;
  }
  if (http11 && headers.host === undefined) throw new ProtocolError(BAD_REQUEST);

  let framing = NO_BODY;
  const te = headers['transfer-encoding'];
  const cl = headers['content-length'];
  if (te !== undefined) {
    if (cl !== undefined || te.toLowerCase() !== 'chunked') throw new ProtocolError(BAD_REQUEST);
    framing = CHUNKED;
  } else if (cl !== undefined) {
    if (!isLengthDigits(cl)) throw new ProtocolError(BAD_REQUEST);
    const length = Number(cl);
    if (length > 0) framing = { kind: 'length', length };
  }

  const connection = headers.connection;
  let keepAlive = http11;
  if (connection !== undefined) {
    const c = connection.toLowerCase();
    keepAlive = http11 ? !/(^|,)\s*close\s*(,|$)/.test(c) : /(^|,)\s*keep-alive\s*(,|$)/.test(c);
  }
  const expect = headers.expect;
  const expectContinue = http11 && expect !== undefined && expect.toLowerCase() === '100-continue';
  return {
    req: { method, url, headers },
    keepAlive,
    http10: !http11,
    framing,
    expectContinue,
  };
}

/** One client connection: reads a request, answers it, then reads the next. */
class Connection {
  private buf: Buffer | undefined;
  private current: Parsed | undefined;
  /** Body of the current request: bytes gathered so far, or skipped after an early answer. */
  private chunks: Buffer[] = [];
  private bodySize = 0;
  private skipping: Http1Response | undefined;
  /** Chunked decoding: bytes still to read of the current chunk, or -1 between chunks. */
  private chunkLeft = -1;
  private chunkedDone = false;
  private busy = false;
  private closed = false;
  private paused = false;
  /** Inside `process`: an answer given synchronously lets the running loop go on. */
  private processing = false;
  /** The current request holds one of the server's slots. */
  private holdsSlot = false;
  /** The current request waits for a slot: the callback the limiter will call. */
  private queued: (() => void) | undefined;
  /**
   * Header or body read deadline of the current request (a `performance.now()` time; 0 = none). One
   * timer per connection checks it, re-armed only when it fires early or a nearer deadline comes: a
   * request answered in time costs no timer work.
   */
  private deadlineAt = 0;
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires. */
  private timerAt = 0;
  private readonly onTimer = (): void => {
    this.timer = undefined;
    if (this.closed || this.deadlineAt === 0) return;
    const left = this.deadlineAt - performance.now();
    if (left > 0) {
      this.arm(left);
      return;
    }
    this.deadlineAt = 0;
    this.busy = false;
    this.respond(REQUEST_TIMEOUT, false);
  };

  constructor(
    private readonly socket: Socket,
    private readonly opts: Http1ServerOptions,
    private readonly slots: SlotLimiter,
  ) {
    socket.setNoDelay(true);
    if (opts.idleTimeoutMs && opts.idleTimeoutMs > 0) {
      socket.setTimeout(opts.idleTimeoutMs, () => socket.destroy());
    }
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => this.destroy());
    socket.on('close', () => {
      this.closed = true;
      this.clearDeadline();
      if (this.timer !== undefined) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
      if (this.queued !== undefined) {
        this.slots.cancel(this.queued);
        this.queued = undefined;
      }
      this.releaseSlot();
    });
  }

  private releaseSlot(): void {
    if (this.holdsSlot) {
      this.holdsSlot = false;
      this.slots.release();
    }
  }

  private arm(ms: number): void {
    const delay = Math.max(1, Math.ceil(ms));
    this.timerAt = performance.now() + delay;
    this.timer = setTimeout(this.onTimer, delay);
  }

  private setDeadline(ms: number): void {
    const at = performance.now() + ms;
    this.deadlineAt = at;
    if (this.timer !== undefined) {
      if (this.timerAt <= at) return;
      clearTimeout(this.timer);
    }
    this.arm(ms);
  }

  private clearDeadline(): void {
    this.deadlineAt = 0;
  }

  private destroy(): void {
    this.closed = true;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.buf = this.buf === undefined || this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    if (this.busy) {
      // Pipelined requests wait; do not read without bound while one is being answered.
      if (!this.paused && this.buf.length > MAX_HEADER_BYTES + this.opts.maxBodyBytes) {
        this.paused = true;
        this.socket.pause();
      }
      return;
    }
    this.process();
    // The head of a request that is still arriving must be complete within the header timeout of its
    // first bytes; a request read whole in this turn never arms it.
    if (
      !this.busy &&
      !this.closed &&
      this.current === undefined &&
      this.deadlineAt === 0 &&
      this.buf !== undefined &&
      this.buf.length > 0
    )
      this.setDeadline(this.opts.headerTimeoutMs ?? DEFAULT_HEADER_TIMEOUT_MS);
  }

  private process(): void {
    if (this.processing) return;
    this.processing = true;
    try {
      while (!this.busy && !this.closed && this.buf !== undefined && this.buf.length > 0) {
        if (this.current === undefined) {
          if (!this.readHead()) break;
        } else if (!this.readBody()) break;
      }
    } catch (err) {
      this.respond(err instanceof ProtocolError ? err.response : BAD_REQUEST, false);
    } finally {
      this.processing = false;
    }
  }

  private resume(): void {
    if (this.paused) {
      this.paused = false;
      this.socket.resume();
    }
    this.process();
  }

  /** Parses a request head from the buffer; false when more bytes are needed. */
  private readHead(): boolean {
    const buf = this.buf as Buffer;
    // Tolerate empty lines between requests (RFC 9112 §2.2).
    let start = 0;
    while (start + 1 < buf.length && buf.readUInt16BE(start) === CRLF) start += 2;
    const end = buf.indexOf(HEADER_END, start);
    if (end < 0) {
      if (buf.length - start > MAX_HEADER_BYTES) throw new ProtocolError(HEADERS_TOO_LARGE);
      if (start > 0) this.buf = buf.subarray(start);
      return false;
    }
    if (end - start > MAX_HEADER_BYTES) throw new ProtocolError(HEADERS_TOO_LARGE);
    const parsed = parseHead(buf.toString('latin1', start, end));
    this.clearDeadline();
    this.buf = buf.subarray(end + 4);
    this.current = parsed;
    if (this.chunks.length > 0) this.chunks = [];
    this.bodySize = 0;
    this.chunkLeft = -1;
    this.chunkedDone = false;
    this.skipping = undefined;

    // Only now does the connection compete for a slot; beyond the limit it waits its turn.
    if (this.slots.tryAcquire()) {
      this.holdsSlot = true;
      return this.afterHead(parsed);
    }
    const grant = (): void => {
      this.queued = undefined;
      this.holdsSlot = true;
      if (this.closed) {
        this.releaseSlot();
        return;
      }
      this.busy = false;
      if (this.afterHead(parsed)) this.process();
    };
    if (!this.slots.enqueue(grant)) {
      this.respond(SERVICE_UNAVAILABLE, false);
      return false;
    }
    this.queued = grant;
    this.busy = true;
    return false;
  }

  /** The head is read and a slot held: early answers, 100-continue, the body deadline. */
  private afterHead(parsed: Parsed): boolean {
    const early = this.opts.handler.head(parsed.req);
    if (early !== undefined) {
      if (early.close || parsed.framing.kind === 'chunked') {
        // Not worth reading a body that is refused anyway.
        this.respond(early, false);
        return false;
      }
      this.skipping = early;
    } else if (parsed.framing.kind === 'length' && parsed.framing.length > this.opts.maxBodyBytes) {
      this.respond(PAYLOAD_TOO_LARGE, false);
      return false;
    } else if (parsed.expectContinue && parsed.framing.kind !== 'none') {
      this.socket.write(CONTINUE);
    }
    const framing = parsed.framing;
    if (framing.kind === 'none') this.complete();
    else if (framing.kind === 'chunked' || (this.buf?.length ?? 0) < framing.length)
      // A body already here in full is read at once: no deadline to keep.
      this.setDeadline(this.opts.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS);
    return true;
  }

  /** Consumes body bytes; false when more are needed. */
  private readBody(): boolean {
    const framing = (this.current as Parsed).framing;
    if (framing.kind === 'length') {
      const buf = this.buf as Buffer;
      const need = framing.length - this.bodySize;
      if (need === framing.length && buf.length >= need && this.skipping === undefined) {
        // The whole body is here (the usual case): decode it in place.
        const body = buf.toString('utf8', 0, need);
        this.bodySize = need;
        this.buf = buf.length === need ? undefined : buf.subarray(need);
        this.complete(body);
        return true;
      }
      const take = Math.min(need, buf.length);
      this.keep(buf.subarray(0, take));
      this.buf = buf.subarray(take);
      if (this.bodySize < framing.length) return false;
      this.complete();
      return true;
    }
    // chunked
    for (;;) {
      const buf = this.buf as Buffer;
      if (this.chunkedDone) {
        // Trailer section: lines until an empty one.
        const lineEnd = buf.indexOf('\r\n');
        if (lineEnd < 0) {
          if (buf.length > MAX_HEADER_BYTES) throw new ProtocolError(BAD_REQUEST);
          return false;
        }
        this.buf = buf.subarray(lineEnd + 2);
        if (lineEnd === 0) {
          this.complete();
          return true;
        }
        continue;
      }
      if (this.chunkLeft < 0) {
        const lineEnd = buf.indexOf('\r\n');
        if (lineEnd < 0) {
          if (buf.length > 1024) throw new ProtocolError(BAD_REQUEST);
          return false;
        }
        const sizeText = buf.toString('latin1', 0, lineEnd).split(';')[0]?.trim() ?? '';
        if (!/^[0-9a-fA-F]{1,8}$/.test(sizeText)) throw new ProtocolError(BAD_REQUEST);
        const size = Number.parseInt(sizeText, 16);
        this.buf = buf.subarray(lineEnd + 2);
        if (size === 0) {
          this.chunkedDone = true;
          continue;
        }
        if (this.skipping === undefined && this.bodySize + size > this.opts.maxBodyBytes) {
          this.respond(PAYLOAD_TOO_LARGE, false);
          return false;
        }
        this.chunkLeft = size;
        continue;
      }
      if (this.chunkLeft > 0) {
        if (buf.length === 0) return false;
        const take = Math.min(this.chunkLeft, buf.length);
        this.keep(buf.subarray(0, take));
        this.buf = buf.subarray(take);
        this.chunkLeft -= take;
        if (this.chunkLeft > 0) return false;
      }
      // chunkLeft === 0: the chunk's closing CRLF
      const rest = this.buf as Buffer;
      if (rest.length < 2) return false;
      if (rest.readUInt16BE(0) !== CRLF) throw new ProtocolError(BAD_REQUEST);
      this.buf = rest.subarray(2);
      this.chunkLeft = -1;
    }
  }

  /** Sends a streamed body with chunked framing, holding the slot until it is complete. */
  private respondStream(
    res: Http1Response,
    stream: NonNullable<Http1Response['stream']>,
    keepAlive: boolean,
  ): void {
    const parsed = this.current;
    this.busy = true;
    this.clearDeadline();
    const { stream: _omit, ...plain } = res;
    if (parsed?.http10 || parsed?.req.method === 'HEAD') {
      // No chunked framing for these: gather the body.
      let body = '';
      stream((text) => {
        body += text;
        return undefined;
      }).then(
        () => this.respond({ ...plain, body }, keepAlive),
        (err: unknown) => this.respond(this.opts.handler.onError(err), keepAlive),
      );
      return;
    }
    const socket = this.socket;
    socket.write(
      `${statusLine(res)}${headerLines(res.headers)}Transfer-Encoding: chunked\r\n${keepAlive && res.close !== true ? '' : 'Connection: close\r\n'}\r\n`,
    );
    let pending = '';
    const flush = (): boolean => {
      if (pending === '') return true;
      const piece = pending;
      pending = '';
      return socket.write(`${Buffer.byteLength(piece).toString(16)}\r\n${piece}\r\n`);
    };
    const write = (text: string): Promise<void> | undefined => {
      if (this.closed) throw new StreamAborted();
      pending += text;
      if (pending.length < STREAM_CHUNK_CHARS || flush()) return undefined;
      return new Promise<void>((resolve) => {
        const done = (): void => {
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        socket.once('drain', done);
        socket.once('close', done);
      });
    };
    stream(write).then(
      () => {
        flush();
        this.current = undefined;
        this.busy = false;
        this.releaseSlot();
        if (this.closed) return;
        socket.write('0\r\n\r\n');
        if (!keepAlive || res.close === true) {
          this.closed = true;
          socket.end();
          return;
        }
        this.resume();
      },
      (err: unknown) => {
        // The status line is gone: a failure part-way can only cut the connection.
        if (!(err instanceof StreamAborted)) this.opts.handler.onError(err);
        this.current = undefined;
        this.busy = false;
        this.releaseSlot();
        this.destroy();
      },
    );
  }

  private keep(part: Buffer): void {
    this.bodySize += part.length;
    if (this.skipping === undefined && part.length > 0) this.chunks.push(part);
  }

  /** The whole request is read: answer it. */
  private complete(whole?: string): void {
    this.clearDeadline();
    const parsed = this.current as Parsed;
    if (this.skipping !== undefined) {
      this.respond(this.skipping, parsed.keepAlive);
      return;
    }
    let body = whole;
    if (body === undefined) {
      body =
        this.chunks.length === 0
          ? ''
          : this.chunks.length === 1
            ? (this.chunks[0] as Buffer).toString('utf8')
            : Buffer.concat(this.chunks, this.bodySize).toString('utf8');
      this.chunks = [];
    }
    let answer: Http1Response | Promise<Http1Response>;
    try {
      answer = this.opts.handler.request(parsed.req, body);
    } catch (err) {
      answer = this.opts.handler.onError(err);
    }
    if (answer instanceof Promise) {
      this.busy = true;
      answer.then(
        (r) => this.respond(r, parsed.keepAlive),
        (err: unknown) => this.respond(this.opts.handler.onError(err), parsed.keepAlive),
      );
    } else this.respond(answer, parsed.keepAlive);
  }

  private respond(res: Http1Response, keepAlive: boolean): void {
    if (res.stream !== undefined && !this.closed) {
      this.respondStream(res, res.stream, keepAlive);
      return;
    }
    const parsed = this.current;
    this.current = undefined;
    this.busy = false;
    this.clearDeadline();
    this.releaseSlot();
    if (this.closed) return;
    const close = res.close === true || !keepAlive;
    const isHead = parsed?.req.method === 'HEAD';
    const lines = headerLines(res.headers);
    // An all-ASCII answer (the usual one) is written byte for byte as stored: no UTF-8 length scan,
    // no encoding pass over what may be a large body.
    const ascii = res.ascii === true && res.statusMessage === undefined && !nonAsciiHeaders.has(res.headers);
    const length = ascii ? res.body.length : Buffer.byteLength(res.body);
    let head = `${statusLine(res)}${lines}Content-Length: ${length}\r\n`;
    if (close) head += 'Connection: close\r\n';
    // HTTP/1.0 clients need to be told the connection stays open.
    else if (parsed?.http10) head += 'Connection: keep-alive\r\n';
    const text = isHead || length === 0 ? `${head}\r\n` : `${head}\r\n${res.body}`;
    const flushed = ascii ? this.socket.write(text, 'latin1') : this.socket.write(text);
    if (close) {
      this.closed = true;
      this.socket.end();
      // A client that neither reads nor closes its side does not keep the socket.
      setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS).unref();
      return;
    }
    if (flushed) this.resume();
    else {
      this.busy = true;
      this.socket.once('drain', () => {
        this.busy = false;
        this.resume();
      });
    }
  }
}

export async function startHttp1Server(opts: Http1ServerOptions): Promise<RunningHttp1Server> {
  const sockets = new Set<Socket>();
  const maxQueued = opts.maxQueued ?? Math.max(0, opts.maxConnections) * 10;
  const slots = new SlotLimiter(opts.maxConnections, maxQueued);
  const server: Server = createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    new Connection(socket, opts, slots);
  });
  if (opts.maxConnections > 0)
    server.maxConnections = opts.maxSockets ?? opts.maxConnections + maxQueued + 160;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : opts.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
