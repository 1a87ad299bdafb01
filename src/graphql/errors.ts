/**
 * Errors of the GraphQL endpoint. Besu's GraphQL service has its own short catalogue (code and
 * message, carried in the error's `extensions` as `errorCode` and `errorMessage`); the rest are
 * argument failures worded in the message alone.
 */
import type { LogQueryError } from '../filters/logQuery.js';
import type { TxRejection } from '../txpool/pool.js';

export interface GraphQLErrorSpec {
  readonly code: number;
  readonly message: string;
}

const spec = (code: number, message: string): GraphQLErrorSpec => Object.freeze({ code, message });

export const INVALID_PARAMS = spec(-32602, 'Invalid params');
export const INTERNAL_ERROR = spec(-32603, 'Internal error');
export const NONCE_TOO_LOW = spec(-32001, 'Nonce too low');
export const INVALID_TRANSACTION_SIGNATURE = spec(-32002, 'Invalid signature');
export const INTRINSIC_GAS_EXCEEDS_LIMIT = spec(-32003, 'Intrinsic gas exceeds gas limit');
export const UPFRONT_COST_EXCEEDS_BALANCE = spec(-32004, 'Upfront cost exceeds account balance');
export const EXCEEDS_BLOCK_GAS_LIMIT = spec(-32005, 'Transaction gas limit exceeds block gas limit');
export const INCORRECT_NONCE = spec(-32006, 'Nonce too high');
export const GAS_PRICE_TOO_LOW = spec(-32009, 'Gas price below configured minimum gas price');
export const WRONG_CHAIN_ID = spec(-32000, 'Wrong Chain ID in transaction signature');
export const REPLAY_PROTECTED_SIGNATURES_NOT_SUPPORTED = spec(
  -32000,
  'Signatures with replay protection are not supported',
);
export const TX_FEECAP_EXCEEDED = spec(-32000, 'Transaction fee cap exceeded');

/** A failure with one of Besu's GraphQL codes. */
export class GraphQLCodedError extends Error {
  override name = 'GraphQLCodedError';
  constructor(readonly spec: GraphQLErrorSpec) {
    super(spec.message);
  }
}

/** A failure described by its message alone (`Block number 5 was not found`). */
export class GraphQLArgumentError extends Error {
  override name = 'GraphQLArgumentError';
}

/** The request would produce more list items than the bound allows. */
export class ResultBoundError extends Error {
  override name = 'ResultBoundError';
  constructor(readonly maxItems: number) {
    super(
      `query result exceeds the bound of ${maxItems} list items (blocks, transactions, logs …); narrow the query`,
    );
  }
}

/** The request ran past its deadline; the endpoint answers 504. */
export class TimeoutError extends Error {
  override name = 'TimeoutError';
  constructor() {
    super('request timed out');
  }
}

/** Besu's mapping of pool rejections to its GraphQL catalogue (anything else is `Internal error`). */
export function rejectionSpec(reason: TxRejection | 'DECODE'): GraphQLErrorSpec {
  switch (reason) {
    case 'DECODE':
      return INVALID_PARAMS;
    case 'WRONG_CHAIN_ID':
      return WRONG_CHAIN_ID;
    case 'REPLAY_PROTECTED_SIGNATURE_REQUIRED':
      return REPLAY_PROTECTED_SIGNATURES_NOT_SUPPORTED;
    case 'INVALID_SIGNATURE':
      return INVALID_TRANSACTION_SIGNATURE;
    case 'UPFRONT_COST_EXCEEDS_BALANCE':
      return UPFRONT_COST_EXCEEDS_BALANCE;
    case 'NONCE_TOO_LOW':
      return NONCE_TOO_LOW;
    case 'NONCE_TOO_FAR_IN_FUTURE':
      return INCORRECT_NONCE;
    case 'INTRINSIC_GAS':
      return INTRINSIC_GAS_EXCEEDS_LIMIT;
    case 'EXCEEDS_BLOCK_GAS_LIMIT':
      return EXCEEDS_BLOCK_GAS_LIMIT;
    case 'GAS_PRICE_TOO_LOW':
      return GAS_PRICE_TOO_LOW;
    case 'FEE_CAP_EXCEEDED':
      return TX_FEECAP_EXCEEDED;
    default:
      return INTERNAL_ERROR;
  }
}

/** A log query the log service refused, as GraphQL answers it. */
export function logQueryFailure(err: LogQueryError): Error {
  if (err.reason === 'RANGE_TOO_WIDE') {
    return new GraphQLArgumentError('Requested range exceeds maximum RPC range limit');
  }
  return new GraphQLCodedError(INVALID_PARAMS);
}
