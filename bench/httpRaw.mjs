/**
 * A lean HTTP/1.1 JSON-RPC client for the benches: keep-alive raw TCP sockets, requests written as
 * one buffer, a minimal response reader (status line, Content-Length or chunked bodies). Node's own
 * HTTP client costs ~100 µs of CPU per request, more than the servers measured here spend on many of
 * them, and on a 2-core machine that cost is taken from the node under test; this reader costs a few.
 * The read load generator (load.mjs) and the transaction sender (suites/tx-throughput.mjs) use it.
 */
import { connect } from 'node:net';

const CRLFCRLF = Buffer.from('\r\n\r\n');

/**
 * Reads one response from `buf`; returns undefined when incomplete, else { end, status, body } where
 * `end` is the offset after the response.
 */
export function parseResponse(buf) {
  const headerEnd = buf.indexOf(CRLFCRLF);
  if (headerEnd < 0) return undefined;
  const head = buf.toString('latin1', 0, headerEnd);
  const status = Number(head.slice(9, 12));
  const lower = head.toLowerCase();
  const bodyStart = headerEnd + 4;
  const cl = /\r\ncontent-length:\s*(\d+)/.exec(lower);
  if (cl) {
    const len = Number(cl[1]);
    if (buf.length < bodyStart + len) return undefined;
    return { end: bodyStart + len, status, body: buf.subarray(bodyStart, bodyStart + len) };
  }
  if (/\r\ntransfer-encoding:\s*chunked/.test(lower)) {
    const parts = [];
    let at = bodyStart;
    for (;;) {
      const lineEnd = buf.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(buf.toString('latin1', at, lineEnd), 16);
      const dataStart = lineEnd + 2;
      if (buf.length < dataStart + size + 2) return undefined;
      if (size === 0) {
        // No trailers are expected from JSON-RPC servers.
        return { end: dataStart + 2, status, body: Buffer.concat(parts) };
      }
      parts.push(buf.subarray(dataStart, dataStart + size));
      at = dataStart + size + 2;
    }
  }
  return { end: bodyStart, status, body: Buffer.alloc(0) };
}

/** The request bytes for a JSON body posted to `url`. */
export function postRequest(url, body) {
  const payload = Buffer.from(body);
  const head =
    `POST ${url.pathname || '/'} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${payload.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
}

/**
 * A JSON-RPC caller over up to `connections` keep-alive sockets: `call(body)` posts `body` (an object
 * or a batch array; a single request gets `jsonrpc` and an id) and resolves with the parsed answer.
 * A call waits for a free socket; one without an answer after `timeoutMs` fails, and its socket is
 * closed. `close()` ends every socket.
 */
export function rawJsonRpc(urlString, { connections = 32, timeoutMs = 30_000 } = {}) {
  const url = new URL(urlString);
  const port = Number(url.port || 80);
  const idle = [];
  const waiting = [];
  const all = new Set();
  let open = 0;
  let id = 0;

  function newSocket() {
    const socket = connect({ host: url.hostname, port, noDelay: true });
    const conn = { socket, chunks: [], length: 0, current: undefined, timer: undefined };
    all.add(conn);
    open++;
    const fail = (err) => {
      if (!all.delete(conn)) return;
      open--;
      socket.destroy();
      const i = idle.indexOf(conn);
      if (i >= 0) idle.splice(i, 1);
      if (conn.current) {
        clearTimeout(conn.timer);
        const { reject } = conn.current;
        conn.current = undefined;
        reject(err);
      }
      // A call waiting for a socket gets a new one.
      if (waiting.length > 0 && open < connections) dispatch(newSocket(), waiting.shift());
    };
    socket.on('data', (chunk) => {
      conn.chunks.push(chunk);
      conn.length += chunk.length;
      const buf = conn.chunks.length === 1 ? chunk : Buffer.concat(conn.chunks, conn.length);
      const r = parseResponse(buf);
      if (!r) {
        conn.chunks = [buf];
        return;
      }
      const rest = buf.subarray(r.end);
      conn.chunks = rest.length > 0 ? [rest] : [];
      conn.length = rest.length;
      const pending = conn.current;
      conn.current = undefined;
      clearTimeout(conn.timer);
      release(conn);
      if (!pending) return;
      if (r.status !== 200 && r.body.length === 0) pending.reject(new Error(`HTTP ${r.status}`));
      else {
        try {
          pending.resolve(JSON.parse(r.body.toString('utf8')));
        } catch (err) {
          pending.reject(new Error(`HTTP ${r.status}: ${err.message}`));
        }
      }
    });
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
    return conn;
  }

  function dispatch(conn, job) {
    conn.current = job;
    conn.timer = setTimeout(
      () => conn.socket.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    conn.socket.write(job.bytes);
  }

  function release(conn) {
    const job = waiting.shift();
    if (job) dispatch(conn, job);
    else idle.push(conn);
  }

  function call(body) {
    const json = JSON.stringify(Array.isArray(body) ? body : { jsonrpc: '2.0', id: ++id, ...body });
    return new Promise((resolve, reject) => {
      const job = { bytes: postRequest(url, json), resolve, reject };
      const conn = idle.pop();
      if (conn) dispatch(conn, job);
      else if (open < connections) dispatch(newSocket(), job);
      else waiting.push(job);
    });
  }

  call.close = () => {
    for (const conn of [...all]) conn.socket.destroy();
    all.clear();
    open = 0;
  };
  return call;
}
