/**
 * What the engine API's service refuses, by kind; `rpc/errors.ts` words each as Besu does (a -32602
 * with the service's sentence in `data`, or one of the engine codes -38002 … -38005, -32001).
 */
export type EngineFailure =
  | 'UNSUPPORTED_FORK'
  | 'INVALID_FORKCHOICE_STATE'
  | 'INVALID_PAYLOAD_ATTRIBUTES'
  | 'UNKNOWN_PAYLOAD'
  | 'TOO_LARGE_REQUEST'
  | 'INVALID_PARAMS'
  | 'INVALID_WITHDRAWALS'
  | 'INVALID_BLOB_GAS_USED'
  | 'INVALID_EXCESS_BLOB_GAS'
  | 'INVALID_VERSIONED_HASHES'
  | 'INVALID_PARENT_BEACON_BLOCK_ROOT'
  | 'INVALID_EXECUTION_REQUESTS'
  | 'INVALID_TRANSACTION'
  /** testing_buildBlockV1: a named transaction cannot run (-32000 with the reason as message). */
  | 'TRANSACTION_NOT_APPLICABLE';

export class EngineApiError extends Error {
  override name = 'EngineApiError';
  constructor(
    readonly kind: EngineFailure,
    /** Besu's sentence, answered as the error's `data`; absent where Besu sends none. */
    readonly detail?: string,
  ) {
    super(detail ? `${kind}: ${detail}` : kind);
  }
}
