/** Method lists that select conformance cases per capability. */

/** Methods of the chain-core interface; their conformance cases must all pass. */
export const CHAIN_CORE_METHODS = new Set([
  'eth_blockNumber', 'eth_chainId', 'eth_syncing', 'eth_protocolVersion', 'eth_accounts', 'eth_coinbase',
  'eth_getBalance', 'eth_getCode', 'eth_getStorageAt', 'eth_getTransactionCount', 'eth_getProof',
  'eth_getBlockByHash', 'eth_getBlockByNumber', 'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber', 'eth_getUncleByBlockHashAndIndex', 'eth_getUncleByBlockNumberAndIndex',
  'eth_getUncleCountByBlockHash', 'eth_getUncleCountByBlockNumber', 'eth_getTransactionByHash',
  'eth_getTransactionByBlockHashAndIndex', 'eth_getTransactionByBlockNumberAndIndex', 'eth_getTransactionReceipt',
  'eth_getBlockReceipts', 'eth_getLogs', 'eth_feeHistory', 'eth_blobBaseFee', 'eth_config', 'web3_clientVersion',
  'web3_sha3', 'net_version', 'net_listening', 'net_peerCount', 'rpc_modules', 'debug_getRawBlock',
  'debug_getRawHeader', 'debug_getRawReceipts', 'debug_getRawTransaction',
]);
