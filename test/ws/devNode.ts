/** A dev-network node (built CLI, child process) with HTTP and WebSocket JSON-RPC on free ports. */
import { defineChain, type Hex, keccak256, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { freePort, type NodeProcess, removeDir, startNode, tempDir } from '../helpers/node.js';

/** Besu's first two dev-network accounts (published test keys, funded in the dev genesis). */
export const DEV_KEYS = [
  '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63',
  '0xc87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3',
] as const;
export const DEV_ACCOUNTS = DEV_KEYS.map((k) => privateKeyToAccount(k));

export const devChain = defineChain({
  id: 1337,
  name: 'dev',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1:8545'] } },
});

export interface DevNode {
  http: string;
  ws: string;
  node: NodeProcess;
  stop(): Promise<void>;
}

export async function startDevNode(extra: string[] = []): Promise<DevNode> {
  const dir = tempDir('alder-ws-');
  const wsPort = await freePort();
  const node = await startNode([
    '--network=dev',
    `--data-path=${dir}`,
    '--rpc-ws-enabled',
    '--rpc-ws-host=127.0.0.1',
    `--rpc-ws-port=${wsPort}`,
    ...extra,
  ]);
  return {
    http: node.url,
    ws: `ws://127.0.0.1:${wsPort}`,
    node,
    async stop() {
      await node.stop();
      removeDir(dir);
    },
  };
}

/**
 * A contract whose every call emits `Ping(uint256 indexed n, uint256 v)` with n = v = the first
 * 32 bytes of calldata. Runtime: CALLDATACOPY 32 bytes to memory 0, topic1 = CALLDATALOAD(0),
 * topic0 = the event signature, LOG2 over memory [0, 32).
 */
export const PING_EVENT = {
  type: 'event',
  name: 'Ping',
  inputs: [
    { name: 'n', type: 'uint256', indexed: true },
    { name: 'v', type: 'uint256', indexed: false },
  ],
} as const;
export const PING_TOPIC = keccak256(toHex('Ping(uint256,uint256)'));
const PING_RUNTIME = `602060006000376000357f${PING_TOPIC.slice(2)}60206000a200`;
const RUNTIME_LENGTH = PING_RUNTIME.length / 2;
export const PING_INIT_CODE = `0x60${RUNTIME_LENGTH.toString(16)}80600b6000396000f3${PING_RUNTIME}` as Hex;

/** Calldata for a ping with the given number. */
export function pingData(n: bigint): Hex {
  return toHex(n, { size: 32 });
}
