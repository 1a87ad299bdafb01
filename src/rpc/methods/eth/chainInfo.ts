/**
 * Node and chain facts: eth_blockNumber, eth_chainId, eth_syncing, eth_protocolVersion, eth_accounts,
 * eth_coinbase.
 */
import { COINBASE_NOT_SPECIFIED, RpcError } from '../../errors.js';
import { quantity } from '../../format/hex.js';
import { defineMethod } from '../define.js';
import type { RpcMethod } from '../types.js';

export const ethBlockNumber = defineMethod({
  name: 'eth_blockNumber',
  group: 'ETH',
  params: [],
  handler: (_args, { services }) => quantity(services.chain.head().number),
});

export const ethChainId = defineMethod({
  name: 'eth_chainId',
  group: 'ETH',
  params: [],
  handler: (_args, { services }) => quantity(services.common.chainId()),
});

/** `false` when in sync; while behind the best peer, where the sync started, stands and aims. */
export const ethSyncing = defineMethod({
  name: 'eth_syncing',
  group: 'ETH',
  params: [],
  handler: (_args, { services }) => {
    const s = services.syncStatus();
    if (!s) return false;
    return {
      startingBlock: quantity(s.startingBlock),
      currentBlock: quantity(s.currentBlock),
      highestBlock: quantity(s.highestBlock),
    };
  },
});

/**
 * Besu answers with the highest eth wire protocol version it offers; its spec suite expects 0x47.
 * Without networking Alder offers none, so it gives the same figure.
 */
export const ethProtocolVersion = defineMethod({
  name: 'eth_protocolVersion',
  group: 'ETH',
  params: [],
  handler: () => '0x47',
});

/** The node holds no keys. */
export const ethAccounts = defineMethod({
  name: 'eth_accounts',
  group: 'ETH',
  params: [],
  handler: () => [],
});

export const ethCoinbase = defineMethod({
  name: 'eth_coinbase',
  group: 'ETH',
  params: [],
  handler: (_args, { services }) => {
    const coinbase = services.config.minerCoinbase;
    if (coinbase === undefined) throw new RpcError(COINBASE_NOT_SPECIFIED);
    return coinbase;
  },
});

export const chainInfoMethods: RpcMethod[] = [
  ethBlockNumber,
  ethChainId,
  ethSyncing,
  ethProtocolVersion,
  ethAccounts,
  ethCoinbase,
];
