/**
 * Raw-socket helpers for the reliability tests: requests written byte for byte on their own TCP
 * connections, WebSocket messages, and the resident memory of a child process.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import WebSocket from 'ws';

export interface RawAnswer {
  status: number;
  body: string;
  /** Milliseconds from connect to the end of the answer. */
  ms: number;
}

/** One HTTP request on a fresh connection (Connection: close); resolves with the status and body. */
export function rawPost(port: number, body: string | Buffer, timeoutMs = 20_000): Promise<RawAnswer> {
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  const head = `POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n\r\n`;
  return rawRequest(port, Buffer.concat([Buffer.from(head), payload]), timeoutMs);
}

export function rawRequest(port: number, bytes: Buffer, timeoutMs = 20_000): Promise<RawAnswer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer in time'));
    }, timeoutMs);
    socket.on('connect', () => socket.end(bytes));
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      const sep = text.indexOf('\r\n\r\n');
      let body = sep >= 0 ? text.slice(sep + 4) : '';
      if (/transfer-encoding: chunked/i.test(text.slice(0, sep))) body = unchunk(body);
      resolve({ status: m ? Number(m[1]) : 0, body, ms: Date.now() - started });
    });
  });
}

/** The payload of a chunked body (sizes count bytes; the tests' bodies are ASCII). */
export function unchunk(body: string): string {
  let out = '';
  let i = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', i);
    if (eol < 0) return out;
    const size = Number.parseInt(body.slice(i, eol), 16);
    if (!(size > 0)) return out;
    out += body.slice(eol + 2, eol + 2 + size);
    i = eol + 2 + size + 2;
  }
}

/** Sends `text` one byte every `intervalMs`; resolves with how long the server kept the socket open. */
export function slowSender(port: number, text: string, intervalMs: number, maxMs: number): Promise<number> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let i = 0;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearInterval(timer);
      socket.destroy();
      resolve(Date.now() - started);
    };
    const timer = setInterval(() => {
      if (Date.now() - started > maxMs) return finish();
      if (i < text.length && socket.writable) socket.write(text[i++] as string);
    }, intervalMs);
    socket.resume();
    socket.on('error', finish);
    socket.on('close', finish);
  });
}

/** Opens a WebSocket and sends each message, resolving with one answer per message (in order). */
export async function wsExchange(
  url: string,
  messages: (string | Buffer)[],
  timeoutMs = 20_000,
): Promise<string[]> {
  const ws = new WebSocket(url);
  await new Promise<void>((res, rej) => {
    ws.once('open', () => res());
    ws.once('error', rej);
  });
  const answers: string[] = [];
  try {
    for (const m of messages) {
      const answer = new Promise<string>((res, rej) => {
        const t = setTimeout(() => rej(new Error('no WebSocket answer in time')), timeoutMs);
        ws.once('message', (d) => {
          clearTimeout(t);
          res(d.toString());
        });
        ws.once('close', () => {
          clearTimeout(t);
          rej(new Error('WebSocket closed'));
        });
      });
      ws.send(m);
      answers.push(await answer);
      ws.removeAllListeners('close');
    }
  } finally {
    ws.terminate();
  }
  return answers;
}

/** Resident set size of a process in MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : 0;
}

/** High-water RSS of a process in MiB (Linux /proc). */
export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : 0;
}
