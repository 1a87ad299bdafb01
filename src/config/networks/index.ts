/** Built-in network presets selectable with `--network`. */
import { type GenesisSpec, parseGenesis } from '../genesis.js';
import type { NetworkName } from '../types.js';
import { DEV_GENESIS, DEV_NETWORK_ID } from './dev.js';
import { POS_DEV_GENESIS } from './posDev.js';

export interface NetworkPreset {
  name: NetworkName;
  genesis: () => GenesisSpec;
  /** When the network id differs from the chain id. */
  networkId: bigint | undefined;
  bootnodes: string[];
}

export const NETWORKS: Record<NetworkName, NetworkPreset> = {
  dev: {
    name: 'dev',
    genesis: () => parseGenesis(DEV_GENESIS, 'Built-in dev genesis'),
    networkId: DEV_NETWORK_ID,
    bootnodes: [],
  },
  'pos-dev': {
    name: 'pos-dev',
    genesis: () => parseGenesis(POS_DEV_GENESIS, 'Built-in pos-dev genesis'),
    networkId: undefined,
    bootnodes: [],
  },
};

/** Besu's network names that Alder has no preset for (they get a specific error message). */
export const UNSUPPORTED_BESU_NETWORKS = [
  'MAINNET',
  'SEPOLIA',
  'HOLESKY',
  'HOODI',
  'EPHEMERY',
  'LUKSO',
  'FUTURE_EIPS',
  'EXPERIMENTAL_EIPS',
  'CLASSIC',
  'MORDOR',
] as const;
