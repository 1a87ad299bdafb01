/** Every JSON-RPC method Alder serves; the dispatcher enables them by group. */
import { adminChangeLogLevel } from './admin/changeLogLevel.js';
import { adminMethods } from './admin/index.js';
import { logBloomCacheMethods } from './admin/logBloomCache.js';
import { ibftMethods, qbftMethods } from './bft/index.js';
import { cliqueMethods } from './clique/index.js';
import { debugBatchSendRawTransaction } from './debug/batchSend.js';
import { debugChainMethods } from './debug/chain.js';
import { debugMetrics } from './debug/metrics.js';
import { debugRawMethods } from './debug/raw.js';
import { debugStateMethods } from './debug/state.js';
import { debugTraceMethods } from './debug/trace.js';
import { blockMethods } from './eth/blocks.js';
import { ethCall } from './eth/call.js';
import { chainInfoMethods } from './eth/chainInfo.js';
import { ethConfigMethod } from './eth/config.js';
import { ethCreateAccessList } from './eth/createAccessList.js';
import { ethEstimateGas } from './eth/estimateGas.js';
import { feeMethods } from './eth/feeHistory.js';
import { filterMethods } from './eth/filters.js';
import { gasPriceMethods } from './eth/gasPrice.js';
import { ethGetLogs } from './eth/getLogs.js';
import { ethGetProof } from './eth/getProof.js';
import { minerDataMethods } from './eth/minerData.js';
import { miningMethods } from './eth/mining.js';
import { receiptMethods } from './eth/receipts.js';
import { ethSendRawTransaction } from './eth/sendRawTransaction.js';
import { ethSimulateV1 } from './eth/simulateV1.js';
import { stateMethods } from './eth/state.js';
import { transactionMethods } from './eth/transactions.js';
import { uncleMethods } from './eth/uncles.js';
import { workMethods } from './eth/work.js';
import { minerMethods } from './miner/index.js';
import { netMethods } from './net/net.js';
import { pluginsReloadPluginConfigMethods } from './plugins/index.js';
import { traceMethods } from './trace/index.js';
import { txpoolMethods } from './txpool/txpool.js';
import type { RpcMethod } from './types.js';
import { web3Methods } from './web3/web3.js';

export const allMethods: RpcMethod[] = [
  ...chainInfoMethods,
  ...stateMethods,
  ethGetProof,
  ...blockMethods,
  ...uncleMethods,
  ...transactionMethods,
  ...receiptMethods,
  ethGetLogs,
  ...feeMethods,
  ethConfigMethod,
  ethCall,
  ethEstimateGas,
  ethCreateAccessList,
  ethSimulateV1,
  ...gasPriceMethods,
  ...minerDataMethods,
  ...web3Methods,
  ...netMethods,
  adminChangeLogLevel,
  ...logBloomCacheMethods,
  ...pluginsReloadPluginConfigMethods,
  debugMetrics,
  ...debugRawMethods,
  ...debugTraceMethods,
  ...debugChainMethods,
  ...debugStateMethods,
  ethSendRawTransaction,
  debugBatchSendRawTransaction,
  ...txpoolMethods,
  ...filterMethods,
  ...cliqueMethods,
  ...ibftMethods,
  ...qbftMethods,
  ...miningMethods,
  ...workMethods,
  ...minerMethods,
  ...adminMethods,
  ...traceMethods,
];
