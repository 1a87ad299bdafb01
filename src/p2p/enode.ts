/** enode URLs: `enode://<128 hex node id>@<host>:<tcp port>[?discport=<udp port>]`. */
import { isIP } from 'node:net';

export interface Enode {
  /** The 64-byte public key, as 128 lowercase hex digits (no 0x). */
  id: string;
  host: string;
  tcpPort: number;
  udpPort: number;
}

export type EnodeProblem = 'syntax' | 'node-id' | 'dns';

export class InvalidEnodeError extends Error {
  constructor(
    readonly url: string,
    detail: string,
    readonly problem: EnodeProblem = 'syntax',
  ) {
    super(`Invalid enode URL ${url}: ${detail}`);
    this.name = 'InvalidEnodeError';
  }
}

function port(url: string, text: string, what: string): number {
  if (!/^\d{1,5}$/.test(text)) throw new InvalidEnodeError(url, `${what} is not a port number`);
  const n = Number(text);
  if (n > 65535) throw new InvalidEnodeError(url, `${what} is out of range`);
  return n;
}

export function parseEnode(url: string): Enode {
  const m = /^enode:\/\/([^@]*)@(\[[^\]]+\]|[^:/?]+):(\d+)(?:\?discport=(\d+))?$/.exec(url.trim());
  if (!m) throw new InvalidEnodeError(url, 'expected enode://<node id>@<host>:<port>');
  const [, id = '', rawHost = '', tcp = '', disc] = m;
  if (!/^[0-9a-fA-F]{128}$/.test(id))
    throw new InvalidEnodeError(url, 'the node id must be 128 hex digits without 0x', 'node-id');
  const host = rawHost.startsWith('[') ? rawHost.slice(1, -1) : rawHost;
  if (isIP(host) === 0)
    throw new InvalidEnodeError(url, 'the host must be an IP address (DNS names are not resolved)', 'dns');
  const tcpPort = port(url, tcp, 'the TCP port');
  return {
    id: id.toLowerCase(),
    host,
    tcpPort,
    udpPort: disc === undefined ? tcpPort : port(url, disc, 'the discovery port'),
  };
}

export function formatEnode(e: Enode): string {
  const host = isIP(e.host) === 6 ? `[${e.host}]` : e.host;
  const disc = e.udpPort !== e.tcpPort ? `?discport=${e.udpPort}` : '';
  return `enode://${e.id}@${host}:${e.tcpPort}${disc}`;
}
