/** The TRACE group (Parity-style traces). */
import type { RpcMethod } from '../types.js';
import { traceBlock, traceGet, traceReplayBlockTransactions, traceTransaction } from './blocks.js';
import { traceCall, traceCallMany, traceRawTransaction } from './calls.js';
import { traceFilter } from './filter.js';

export const traceMethods: RpcMethod[] = [
  traceReplayBlockTransactions,
  traceBlock,
  traceTransaction,
  traceGet,
  traceFilter,
  traceCall,
  traceCallMany,
  traceRawTransaction,
];
