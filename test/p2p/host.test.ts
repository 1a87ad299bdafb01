/**
 * The devp2p host in this process, on 127.0.0.1: a capability other than `eth` plugs in through the
 * registry alone, static peers do not count against --max-peers while other peers are held to it; the
 * snappy length check that runs before decompression; --nat-method=AUTO's detection.
 */
import { createHash } from 'node:crypto';
import * as snappy from 'snappyjs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Capability, CapabilitySession, PeerConnection, SendMessage } from '../../src/p2p/capability.js';
import { parseEnode } from '../../src/p2p/enode.js';
import { MAX_MESSAGE_SIZE, P2PHost, snappyDeclaredLength } from '../../src/p2p/host.js';
import { detectNatMethod } from '../../src/p2p/nat.js';
import { until } from './helpers.js';

/** A sub-protocol of one message that echoes what it receives once, prefixed with its version. */
class EchoCapability implements Capability {
  readonly name = 'echo';
  readonly versions = [2, 1];
  readonly received: Array<{ peer: string; version: number; payload: string }> = [];
  messageCount(): number {
    return 1;
  }
  open(peer: PeerConnection, version: number, send: SendMessage): CapabilitySession {
    send(0, new TextEncoder().encode(`hello v${version}`));
    return {
      onMessage: (_code, payload) =>
        this.received.push({ peer: peer.id, version, payload: new TextDecoder().decode(payload) }),
      onClose: () => undefined,
    };
  }
}

const hosts: P2PHost[] = [];
afterAll(async () => {
  for (const h of hosts) await h.stop();
});

async function host(name: string, maxPeers: number, versions?: number[]) {
  const cap = new EchoCapability();
  if (versions) (cap as { versions: number[] }).versions = versions;
  const h = new P2PHost({
    privateKey: new Uint8Array(createHash('sha256').update(`host test ${name}`).digest()),
    clientId: `alder-test/${name}`,
    listenHost: '127.0.0.1',
    listenPort: 0,
    advertisedHost: '127.0.0.1',
    maxPeers,
    discovery: false,
    bootnodes: [],
  });
  h.register(cap);
  await h.start();
  hosts.push(h);
  return { h, cap };
}

describe('the capability registry', () => {
  it('opens a session of a further capability at the highest shared version', async () => {
    const x = await host('echo-x', 5);
    const y = await host('echo-y', 5, [1]);
    x.h.addStatic(parseEnode(y.h.enode));
    await until('both sessions speak', async () =>
      x.cap.received.length > 0 && y.cap.received.length > 0 ? true : undefined,
    );
    expect(x.cap.received[0]).toEqual({ peer: y.h.nodeId, version: 1, payload: 'hello v1' });
    expect(x.h.peers()[0]?.capabilities).toEqual(['echo/1']);
  });
});

describe('--max-peers', () => {
  it('leaves static peers out of the count and holds the others to it', async () => {
    const hub = await host('hub', 1);
    const st = await host('static', 5);
    const n1 = await host('n1', 5);
    const n2 = await host('n2', 5);
    const hubEnode = parseEnode(hub.h.enode);
    hub.h.addStatic(parseEnode(st.h.enode));
    await until('the static peer', async () => (hub.h.peers().length === 1 ? true : undefined));
    n1.h.addStatic(hubEnode);
    await until('one other peer', async () => (hub.h.peers().length === 2 ? true : undefined));
    n2.h.addStatic(hubEnode);
    // n2 keeps dialling (every 3 s): the hub keeps refusing it (right after its hello).
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, 200));
      const ids = hub.h
        .peers()
        .map((p) => p.id)
        .sort();
      expect(ids).toEqual([st.h.nodeId, n1.h.nodeId].sort());
    }
  }, 20_000);
});

describe('the size check before decompression', () => {
  it('reads the length a snappy block declares', () => {
    for (const n of [0, 1, 127, 128, 300, 70_000, MAX_MESSAGE_SIZE + 1]) {
      expect(snappyDeclaredLength(snappy.compress(new Uint8Array(n)))).toBe(n);
    }
    expect(snappyDeclaredLength(Uint8Array.of(0x80, 0x80))).toBeUndefined();
  });
});

describe('--nat-method=AUTO', () => {
  it('detects Docker as Besu does, NONE elsewhere', () => {
    const none = () => false;
    expect(detectNatMethod(() => '0::/docker/abc\n', none)).toBe('DOCKER');
    expect(
      detectNatMethod(
        () => '0::/\n',
        () => true,
      ),
    ).toBe('DOCKER');
    expect(detectNatMethod(() => '0::/\n', none)).toBe('NONE');
    expect(
      detectNatMethod(
        () => {
          throw new Error('no such file');
        },
        () => true,
      ),
    ).toBe('NONE');
  });
});
