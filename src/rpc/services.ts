/**
 * The backend every adapter (JSON-RPC, WebSocket, GraphQL, engine) answers from. Built once in node.ts.
 */
import type { Config } from '../config/types.js';

export interface Services {
  config: Config;
  // Filled in by node.ts: chain, state, execution, … (typed as they are added)
  [name: string]: unknown;
}
