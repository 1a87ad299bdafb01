/** The MINER group. */
import type { RpcMethod } from '../types.js';
import { minerSetCoinbase, minerSetEtherbase } from './coinbase.js';
import { minerGetExtraData, minerSetExtraData } from './extraData.js';
import {
  minerGetMinGasPrice,
  minerGetMinPriorityFee,
  minerSetMinGasPrice,
  minerSetMinPriorityFee,
} from './fees.js';
import { minerStart, minerStop } from './startStop.js';
import { minerChangeTargetGasLimit } from './targetGasLimit.js';

export const minerMethods: RpcMethod[] = [
  minerStart,
  minerStop,
  minerSetCoinbase,
  minerSetEtherbase,
  minerGetExtraData,
  minerSetExtraData,
  minerGetMinGasPrice,
  minerSetMinGasPrice,
  minerGetMinPriorityFee,
  minerSetMinPriorityFee,
  minerChangeTargetGasLimit,
];
