/**
 * The HTTP/1.1 server under the JSON-RPC port, over raw sockets: framing, persistence, pipelining,
 * bounds and refusals, with a handler that echoes what it read.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Http1Handler,
  parseHead,
  type RunningHttp1Server,
  startHttp1Server,
} from '../../dist/rpc/server/http1.js';

const handler: Http1Handler = {
  head(req) {
    if (req.headers.host === 'refused.example') return { status: 403, headers: [], body: 'refused' };
    return undefined;
  },
  request(req, body) {
    const delay = /delay=(\d+)/.exec(req.url)?.[1];
    const answer = {
      status: 200,
      headers: ['Content-Type', 'text/plain'],
      body: `${req.method} ${req.url} ${body}`,
    };
    if (delay) return new Promise((r) => setTimeout(() => r(answer), Number(delay)));
    if (req.url === '/throw') throw new Error('boom');
    return answer;
  },
  onError: () => ({ status: 500, headers: [], body: 'failed' }),
};

let server: RunningHttp1Server;
beforeAll(async () => {
  server = await startHttp1Server({
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: 1000,
    maxConnections: 0,
    handler,
    idleTimeoutMs: 2000,
  });
});
afterAll(() => server.close());

/** Writes `data` on a fresh connection and gathers what comes back until `until` holds or the socket ends. */
function exchange(
  data: string | string[],
  until: (text: string) => boolean = () => false,
): Promise<{ text: string; ended: boolean; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.port });
    let text = '';
    let done = false;
    const finish = (ended: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ text, ended, socket });
    };
    const timer = setTimeout(() => finish(false), 3000);
    socket.on('error', reject);
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (until(text)) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('connect', async () => {
      for (const part of Array.isArray(data) ? data : [data]) {
        socket.write(part);
        await new Promise((r) => setTimeout(r, 20));
      }
    });
  });
}

const count = (text: string, needle: string) => text.split(needle).length - 1;
const post = (path: string, body: string, extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: a\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

describe('HTTP/1.1 server', () => {
  it('answers pipelined requests in order, slow ones included', async () => {
    const r = await exchange(
      post('/?delay=50', 'one') + post('/', 'two') + post('/?delay=10', 'three'),
      (t) => t.includes('three'),
    );
    expect(count(r.text, 'HTTP/1.1 200 OK')).toBe(3);
    const order = ['one', 'two', 'three'].map((w) => r.text.indexOf(` ${w}`));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(r.ended).toBe(false);
    r.socket.destroy();
  });

  it('reads bodies split across packets and chunked bodies', async () => {
    const split = await exchange(
      ['POST / HTTP/1.1\r\nHost: a\r\nContent-Le', 'ngth: 11\r\n\r\nhello', ' world'],
      (t) => t.includes('world'),
    );
    expect(split.text).toContain('POST / hello world');
    split.socket.destroy();
    const chunked = await exchange(
      [
        'POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n',
        '6;ext=1\r\n world\r\n0\r\nTrailer: x\r\n\r\n',
      ],
      (t) => t.includes('world'),
    );
    expect(chunked.text).toContain('POST /c hello world');
    chunked.socket.destroy();
  });

  it('sends 100 Continue when asked, then the answer', async () => {
    const r = await exchange(
      ['POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n', 'abc'],
      (t) => t.includes('abc'),
    );
    expect(r.text.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK')).toBe(true);
    r.socket.destroy();
  });

  it('closes HTTP/1.0 connections unless kept alive, and on Connection: close', async () => {
    const plain = await exchange('POST / HTTP/1.0\r\nContent-Length: 1\r\n\r\nx');
    expect(plain.ended).toBe(true);
    expect(plain.text).toContain('Connection: close');
    const kept = await exchange(
      'POST / HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx',
      (t) => t.endsWith(' x'),
    );
    expect(kept.ended).toBe(false);
    expect(kept.text).toContain('Connection: keep-alive');
    kept.socket.destroy();
    const closing = await exchange(post('/', 'x', 'Connection: close\r\n'));
    expect(closing.ended).toBe(true);
  });

  it('answers HEAD without a body', async () => {
    const r = await exchange('HEAD /h HTTP/1.1\r\nHost: a\r\n\r\n', (t) => t.includes('\r\n\r\n'));
    expect(r.text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(r.text).toContain('Content-Length: 8');
    expect(r.text.endsWith('\r\n\r\n')).toBe(true);
    r.socket.destroy();
  });

  it('refuses malformed requests with 400 and closes', async () => {
    for (const bad of [
      'GARBAGE\r\n\r\n',
      'POST / HTTP/2.0\r\nHost: a\r\n\r\n',
      'POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\nx', // no Host
      'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n',
      'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n',
      'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxy',
      'POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n',
    ]) {
      const r = await exchange(bad);
      expect(r.text, bad).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(r.ended, bad).toBe(true);
    }
  });

  it('bounds headers (431) and bodies (413), declared or chunked', async () => {
    const huge = await exchange(`POST / HTTP/1.1\r\nHost: a\r\nX: ${'y'.repeat(20_000)}\r\n\r\n`);
    expect(huge.text).toMatch(/^HTTP\/1\.1 431 /);
    expect(huge.ended).toBe(true);
    const declared = await exchange('POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1001\r\n\r\n');
    expect(declared.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(declared.ended).toBe(true);
    const chunked = await exchange(
      `POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3e8\r\n${'a'.repeat(1000)}\r\n1\r\nb\r\n0\r\n\r\n`,
    );
    expect(chunked.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(chunked.ended).toBe(true);
  });

  it('skips the body of a request answered early and keeps the connection', async () => {
    const r = await exchange(
      `POST / HTTP/1.1\r\nHost: refused.example\r\nContent-Length: 5\r\n\r\nxxxxx${post('/', 'next')}`,
      (t) => t.includes('next'),
    );
    expect(r.text).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(r.text).toContain('POST / next');
    r.socket.destroy();
  });

  it('turns a handler failure into the error answer', async () => {
    const r = await exchange(post('/throw', ''), (t) => t.includes('failed'));
    expect(r.text).toMatch(/^HTTP\/1\.1 500 /);
    r.socket.destroy();
  });

  it('closes idle connections', async () => {
    const r = await new Promise<boolean>((resolve) => {
      const s = connect({ host: '127.0.0.1', port: server.port });
      const timer = setTimeout(() => {
        s.destroy();
        resolve(false);
      }, 4000);
      s.on('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    expect(r).toBe(true);
  });
});

describe('request head parsing', () => {
  it('lower-cases header names however they are spelled, and trims values as String.trim does', () => {
    const { req, framing, keepAlive } = parseHead(
      'POST / HTTP/1.1\r\nHost: a\r\nCONTENT-LENGTH: 7\r\ncOnNeCtIoN:\t close \r\nX-Odd:\u00a0v w\u00a0\r\nCookie: a\r\ncookie: b',
    );
    expect(req.headers.host).toBe('a');
    expect(req.headers['x-odd']).toBe('v w');
    expect(req.headers.cookie).toBe('a, b');
    expect(framing).toEqual({ kind: 'length', length: 7 });
    expect(keepAlive).toBe(false);
  });

  it('refuses a header name holding a space or a tab, whatever its spelling', () => {
    for (const name of ['Content Type', 'X\tY', 'host ']) {
      expect(() => parseHead(`POST / HTTP/1.1\r\nHost: a\r\n${name}: v`)).toThrow();
    }
  });
});
