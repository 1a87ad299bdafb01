/**
 * Networks of real `bin/alder` processes on 127.0.0.1: data directories with a node key, a genesis
 * file, static nodes, free P2P ports; helpers to wait for conditions across nodes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodePublicKey } from '../../src/crypto/nodeKey.js';
import { freePort, type NodeProcess, removeDir, rpc, startNode, tempDir } from '../helpers/node.js';

export const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

export interface NetNode {
  dir: string;
  key: Uint8Array;
  p2pPort: number;
  enode: string;
  args: string[];
  proc?: NodeProcess;
}

export class TestNetwork {
  readonly nodes: NetNode[] = [];
  private readonly dirs: string[] = [];

  constructor(private readonly genesis: object) {}

  /**
   * A node directory with `key`, the genesis file and a free P2P port; not started. Discovery is off
   * unless `discovery` (then on the same port over UDP, with only the --bootnodes it is given).
   */
  async add(key: Uint8Array, extra: string[] = [], opts: { discovery?: boolean } = {}): Promise<NetNode> {
    const dir = tempDir('alder-p2p-');
    this.dirs.push(dir);
    writeFileSync(join(dir, 'key'), hex(key));
    writeFileSync(join(dir, 'genesis.json'), JSON.stringify(this.genesis));
    const p2pPort = await freePort();
    const id = Buffer.from(nodePublicKey(key)).toString('hex');
    const node: NetNode = {
      dir,
      key,
      p2pPort,
      enode: `enode://${id}@127.0.0.1:${p2pPort}`,
      args: [
        `--genesis-file=${join(dir, 'genesis.json')}`,
        `--data-path=${dir}`,
        '--p2p-interface=127.0.0.1',
        `--p2p-port=${p2pPort}`,
        `--discovery-enabled=${opts.discovery === true}`,
        '--rpc-http-api=ETH,NET,WEB3,CLIQUE,TXPOOL,ADMIN,MINER',
        ...extra,
      ],
    };
    this.nodes.push(node);
    return node;
  }

  /** Writes `static-nodes.json` naming `peers`. */
  staticNodes(node: NetNode, peers: NetNode[]): void {
    writeFileSync(join(node.dir, 'static-nodes.json'), JSON.stringify(peers.map((p) => p.enode)));
  }

  async start(node: NetNode, extra: string[] = []): Promise<NodeProcess> {
    node.proc = await startNode([...node.args, ...extra]);
    return node.proc;
  }

  async stopAll(): Promise<void> {
    for (const n of this.nodes) await n.proc?.stop();
    for (const d of this.dirs) removeDir(d);
  }
}

export async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export const blockNumber = async (url: string) => BigInt(await rpc<string>(url, 'eth_blockNumber'));

export async function blockHash(url: string, n: bigint): Promise<string | undefined> {
  const b = await rpc<{ hash: string } | null>(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
  return b?.hash;
}
