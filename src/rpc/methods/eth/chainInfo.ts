/**
 * Node and chain facts: eth_blockNumber, eth_chainId, eth_syncing, eth_protocolVersion, eth_accounts,
 * eth_coinbase.
 */
import { COINBASE_NOT_SPECIFIED, RpcError } from '../../errors.js';
import { quantity } from '../../format/hex.js';
import type { RpcMethod } from '../types.js';

export const ethBlockNumber: RpcMethod = {
  name: 'eth_blockNumber',
  group: 'ETH',
  handler: (_params, { services }) => quantity(services.chain.head().number),
};

export const ethChainId: RpcMethod = {
  name: 'eth_chainId',
  group: 'ETH',
  handler: (_params, { services }) => quantity(services.common.chainId()),
};

/** `false` when in sync; while behind the best peer, where the sync started, stands and aims. */
export const ethSyncing: RpcMethod = {
  name: 'eth_syncing',
  group: 'ETH',
  handler: (_params, { services }) => {
    const s = services.syncStatus();
    if (!s) return false;
    return {
      startingBlock: quantity(s.startingBlock),
      currentBlock: quantity(s.currentBlock),
      highestBlock: quantity(s.highestBlock),
    };
  },
};

/**
 * Besu answers with the highest eth wire protocol version it offers; its spec suite expects 0x47.
 * Without networking Alder offers none, so it gives the same figure.
 */
export const ethProtocolVersion: RpcMethod = {
  name: 'eth_protocolVersion',
  group: 'ETH',
  handler: () => '0x47',
};

/** The node holds no keys. */
export const ethAccounts: RpcMethod = {
  name: 'eth_accounts',
  group: 'ETH',
  handler: () => [],
};

export const ethCoinbase: RpcMethod = {
  name: 'eth_coinbase',
  group: 'ETH',
  handler: (_params, { services }) => {
    const coinbase = services.config.minerCoinbase;
    if (coinbase === undefined) throw new RpcError(COINBASE_NOT_SPECIFIED);
    return coinbase;
  },
};

export const chainInfoMethods: RpcMethod[] = [
  ethBlockNumber,
  ethChainId,
  ethSyncing,
  ethProtocolVersion,
  ethAccounts,
  ethCoinbase,
];
