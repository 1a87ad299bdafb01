/**
 * The JSON-RPC error catalogue: every code and message Alder answers with, as Besu writes them
 * (besu-facts.md §1.2). This is the only place that builds error objects. Handlers throw `RpcError`
 * for malformed requests; lower layers throw their own typed errors, which `domainError` below maps.
 */

import { SimulateError, type SimulateErrorKind } from '../execution/blockSimulator.js';
import { CallFailedError } from '../execution/gasEstimator.js';
import { InvalidSimulationError, type SimulationResult } from '../execution/simulator.js';
import { TraceCallError } from '../execution/tracers/parity/service.js';
import { TraceTimeoutError } from '../execution/tracers/sink.js';
import { LogQueryError, type LogQueryFailure } from '../filters/logQuery.js';
import { FilterLimitError } from '../filters/manager.js';
import { logger } from '../log.js';
import { NoCoinbaseError } from '../mining/service.js';
import { TxPoolError, type TxRejection } from '../txpool/pool.js';
import { InvalidSubscriptionRequestError, SubscriptionNotFoundError } from './subscriptions/manager.js';

export interface RpcErrorSpec {
  readonly code: number;
  readonly message: string;
}

/** The error member of a response: `code`, `message`, and `data` only when there is some. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

const spec = (code: number, message: string): RpcErrorSpec => Object.freeze({ code, message });

export const INVALID_PARAMS_CODE = -32602;
const P = INVALID_PARAMS_CODE;

// --- JSON-RPC standard
export const PARSE_ERROR = spec(-32700, 'Parse error');
export const INVALID_REQUEST = spec(-32600, 'Invalid Request');
export const METHOD_NOT_FOUND = spec(-32601, 'Method not found');
export const METHOD_NOT_ENABLED = spec(-32604, 'Method not enabled');
export const INTERNAL_ERROR = spec(-32603, 'Internal error');
export const TIMEOUT_ERROR = spec(-32603, 'Timeout expired');
export const PLUGIN_INTERNAL_ERROR = spec(-32603, 'Plugin internal error');
export const UNKNOWN_INTERNAL_ERROR = spec(-32603, 'Unknown internal error');
export const INVALID_BLOBS = spec(-32603, 'blobs failed kzg validation');
export const ETH_SEND_TX_NOT_AVAILABLE = spec(
  -32604,
  'The method eth_sendTransaction is not supported. Use eth_sendRawTransaction to send a signed transaction to Besu.',
);

// --- -32602: parameter errors. The message names the parameter, not the reason.
export const INVALID_PARAMS = spec(P, 'Invalid params');
export const INVALID_PARAM_COUNT = spec(P, 'Invalid number of params');
export const INVALID_ACCOUNT_PARAMS = spec(P, 'Invalid account params');
export const INVALID_ADDRESS_HASH_PARAMS = spec(P, 'Invalid address hash params');
export const INVALID_ADDRESS_PARAMS = spec(P, 'Invalid address params');
export const INVALID_BLOB_COUNT = spec(
  P,
  'Invalid blob count (blob transactions must have at least one blob)',
);
export const INVALID_BLOB_GAS_USED_PARAMS = spec(P, 'Invalid blob gas used param (missing or invalid)');
/** Besu ≥ 25.3 wording (was `Invalid block, unable to parse RLP`). Also eth_sendRawTransaction's undecodable-RLP quirk. */
export const INVALID_BLOCK_PARAMS = spec(P, 'Invalid block param (block not found)');
export const INVALID_BLOCK_COUNT_PARAMS = spec(P, 'Invalid block count params');
export const INVALID_BLOCK_HASH_PARAMS = spec(P, 'Invalid block hash params');
export const INVALID_BLOCK_INDEX_PARAMS = spec(P, 'Invalid block index params');
export const INVALID_BLOCK_NUMBER_PARAMS = spec(P, 'Invalid block number params');
export const INVALID_CALL_PARAMS = spec(P, 'Invalid call params');
export const INVALID_CONSOLIDATION_REQUEST_PARAMS = spec(P, 'Invalid consolidation request params');
export const INVALID_CREATE_PRIVACY_GROUP_PARAMS = spec(P, 'Invalid create privacy group params');
export const INVALID_DATA_PARAMS = spec(P, 'Invalid data params');
export const INVALID_DATA_HASH_PARAMS = spec(P, 'Invalid data hash params');
export const INVALID_DEPOSIT_REQUEST_PARAMS = spec(P, 'Invalid deposit request');
export const INVALID_ENGINE_EXCHANGE_TRANSITION_CONFIGURATION_PARAMS = spec(
  P,
  'Invalid engine exchange transition configuration params',
);
export const INVALID_ENGINE_FORKCHOICE_UPDATED_PARAMS = spec(P, 'Invalid engine forkchoice updated params');
export const INVALID_ENGINE_PAYLOAD_ATTRIBUTES_PARAMS = spec(
  P,
  'Invalid engine payload attributes parameter',
);
export const INVALID_ENGINE_PAYLOAD_PARAMS = spec(P, 'Invalid engine payload parameter');
export const INVALID_ENGINE_PREPARE_PAYLOAD_PARAMS = spec(P, 'Invalid engine prepare payload parameter');
export const INVALID_ENODE_PARAMS = spec(P, 'Invalid enode params');
export const INVALID_EXCESS_BLOB_GAS_PARAMS = spec(P, 'Invalid excess blob gas params (missing or invalid)');
export const INVALID_EXTRA_DATA_PARAMS = spec(P, 'Invalid extra data params');
export const INVALID_FILTER_PARAMS = spec(P, 'Invalid filter params');
export const INVALID_GAS_PRICE_PARAMS = spec(P, 'Invalid gas price params');
export const INVALID_HASH_RATE_PARAMS = spec(P, 'Invalid hash rate params');
export const INVALID_ID_PARAMS = spec(P, 'Invalid ID params');
export const INVALID_IS_TRANSACTION_COMPLETE_PARAMS = spec(P, 'Invalid is transaction complete params');
export const INVALID_LOG_FILTER_PARAMS = spec(P, 'Invalid log filter params');
export const INVALID_LOG_LEVEL_PARAMS = spec(P, 'Invalid log level params (missing or incorrect)');
export const INVALID_MAX_RESULTS_PARAMS = spec(P, 'Invalid max results params');
export const INVALID_METHOD_PARAMS = spec(P, 'Invalid method params');
export const INVALID_MIN_GAS_PRICE_PARAMS = spec(P, 'Invalid min gas price params');
export const INVALID_MIN_PRIORITY_FEE_PARAMS = spec(P, 'Invalid min priority fee params');
export const INVALID_MIX_HASH_PARAMS = spec(P, 'Invalid mix hash params');
export const INVALID_NONCE_PARAMS = spec(P, 'Invalid nonce params');
export const INVALID_PARENT_BEACON_BLOCK_ROOT_PARAMS = spec(
  P,
  'Invalid parent beacon block root (missing or incorrect)',
);
export const INVALID_PAYLOAD_ID_PARAMS = spec(P, 'Invalid payload id params');
export const INVALID_PENDING_TRANSACTIONS_PARAMS = spec(P, 'Invalid pending transactions params');
export const INVALID_PLUGIN_NAME_PARAMS = spec(P, 'Invalid plug in name params');
export const INVALID_POSITION_PARAMS = spec(P, 'Invalid position params');
export const INVALID_POW_HASH_PARAMS = spec(P, 'Invalid pow hash params');
export const INVALID_PRIVACY_GROUP_PARAMS = spec(P, 'Invalid privacy group params');
export const INVALID_PRIVATE_FROM_PARAMS = spec(P, 'Invalid private from params');
export const INVALID_PRIVATE_FOR_PARAMS = spec(P, 'Invalid private for params');
export const INVALID_PROPOSAL_PARAMS = spec(P, 'Invalid proposal params');
export const INVALID_REMOTE_CAPABILITIES_PARAMS = spec(P, 'Invalid remote capabilities params');
export const INVALID_REWARD_PERCENTILES_PARAMS = spec(P, 'Invalid reward percentiles params');
export const INVALID_SEALER_ID_PARAMS = spec(P, 'Invalid sealer ID params');
export const INVALID_STORAGE_KEYS_PARAMS = spec(P, 'Invalid storage keys params');
export const INVALID_SUBSCRIPTION_PARAMS = spec(P, 'Invalid subscription params');
export const INVALID_TARGET_GAS_LIMIT_PARAMS = spec(P, 'Invalid target gas limit params');
export const INVALID_TIMESTAMP_PARAMS = spec(P, 'Invalid timestamp parameter');
export const INVALID_TRACE_CALL_MANY_PARAMS = spec(P, 'Invalid trace call many params');
export const INVALID_TRACE_NUMBERS_PARAMS = spec(P, 'Invalid trace numbers params');
export const INVALID_TRACE_TYPE_PARAMS = spec(P, 'Invalid trace type params');
export const INVALID_TRANSACTION_PARAMS = spec(P, 'Invalid transaction params (missing or incorrect)');
export const INVALID_TRANSACTION_HASH_PARAMS = spec(P, 'Invalid transaction hash params');
export const INVALID_TRANSACTION_ID_PARAMS = spec(P, 'Invalid transaction id params');
export const INVALID_TRANSACTION_INDEX_PARAMS = spec(P, 'Invalid transaction index params');
export const INVALID_TRANSACTION_LIMIT_PARAMS = spec(P, 'Invalid transaction limit params');
export const INVALID_TRANSACTION_TRACE_PARAMS = spec(P, 'Invalid transaction trace params');
export const INVALID_TRANSACTION_TYPE = spec(P, 'Invalid transaction type');
export const INVALID_VERSIONED_HASH_PARAMS = spec(P, 'Invalid versioned hash params');
export const INVALID_VOTE_TYPE_PARAMS = spec(P, 'Invalid vote type params');
export const INVALID_WITHDRAWALS_PARAMS = spec(P, 'Invalid withdrawals');

// --- -32000 family: general server errors
export const FILTER_NOT_FOUND = spec(-32000, 'Filter not found');
export const LOGS_FILTER_NOT_FOUND = spec(-32000, 'Logs filter not found');
export const SUBSCRIPTION_NOT_FOUND = spec(-32000, 'Subscription not found');
/** Besu has no bound; Alder's answer when --max filters are installed. */
export const FILTER_LIMIT_REACHED = spec(-32000, 'Filter limit reached');
export const NO_MINING_WORK_FOUND = spec(-32000, 'No mining work available yet');
export const BLOCK_NOT_FOUND = spec(-32000, 'Block not found');
export const PARENT_BLOCK_NOT_FOUND = spec(-32000, 'Parent block not found');
export const TRANSACTION_NOT_FOUND = spec(-32000, 'Transaction not found');
/** debug_setHead, debug_replayBlock and debug_resyncWorldState while blocks are being added. */
export const CHAIN_HEAD_BUSY = spec(
  -32000,
  'Cannot change the chain head while the node is producing or importing blocks',
);
/** debug_trace* of the genesis block, as the cross-client suite words it. */
export const GENESIS_NOT_TRACEABLE = spec(-32000, 'genesis is not traceable');
/** debug_traceTransaction of an unknown hash, as the cross-client suite words it (Besu 25.x answered null). */
export const TRACE_TRANSACTION_NOT_FOUND = spec(-32000, 'transaction not found');
export const ETH_SEND_TX_ALREADY_KNOWN = spec(-32000, 'Known transaction');
export const ETH_SEND_TX_REPLACEMENT_UNDERPRICED = spec(-32000, 'Replacement transaction underpriced');
export const WRONG_CHAIN_ID = spec(-32000, 'Wrong chainId');
export const REPLAY_PROTECTED_SIGNATURES_NOT_SUPPORTED = spec(-32000, 'ChainId not supported');
export const REPLAY_PROTECTED_SIGNATURE_REQUIRED = spec(-32000, 'ChainId is required');
export const TX_FEECAP_EXCEEDED = spec(-32000, 'Transaction fee cap exceeded');
export const MAX_PRIORITY_FEE_PER_GAS_EXCEEDS_MAX_FEE_PER_GAS = spec(
  -32000,
  'Max priority fee per gas exceeds max fee per gas',
);
export const NONCE_TOO_FAR_IN_FUTURE_FOR_SENDER = spec(
  -32000,
  'Transaction nonce is too distant from current sender nonce',
);
export const LOWER_NONCE_INVALID_TRANSACTION_EXISTS = spec(
  -32000,
  'An invalid transaction with a lower nonce exists',
);
export const TOTAL_BLOB_GAS_TOO_HIGH = spec(-32000, 'Total blob gas too high');
export const PLUGIN_TX_VALIDATOR = spec(-32000, 'Plugin has marked the transaction as invalid');
export const EXECUTION_HALTED = spec(
  -32000,
  'Transaction processing could not be completed due to an exception',
);
export const P2P_DISABLED = spec(-32000, 'P2P has been disabled. This functionality is not available');
export const P2P_NETWORK_NOT_RUNNING = spec(-32000, 'P2P network is not running');
export const COINBASE_NOT_SPECIFIED = spec(-32000, 'Coinbase must be explicitly specified');
export const NO_ACCOUNT_FOUND = spec(-32000, 'Account not found');
export const WORLD_STATE_UNAVAILABLE = spec(-32000, 'World state unavailable');
export const JSON_RPC_NOT_CANONICAL_ERROR = spec(-32000, 'Invalid input');
export const ENODE_ID_INVALID = spec(
  -32000,
  "Invalid node ID: node ID must have exactly 128 hexadecimal characters and should not include any '0x' hex prefix.",
);
export const BLOCK_RLP_IMPORT_ERROR = spec(-32000, 'Could not decode RLP for Block');
export const BLOCK_IMPORT_ERROR = spec(-32000, 'Could not import Block');

// --- permissioning (perm_*)
export const ACCOUNT_ALLOWLIST_NOT_ENABLED = spec(-32000, 'Account allowlist has not been enabled');
export const ACCOUNT_ALLOWLIST_EMPTY_ENTRY = spec(-32000, 'Request contains an empty list of accounts');
export const ACCOUNT_ALLOWLIST_INVALID_ENTRY = spec(-32000, 'Request contains an invalid account');
export const ACCOUNT_ALLOWLIST_DUPLICATED_ENTRY = spec(-32000, 'Request contains duplicate accounts');
export const ACCOUNT_ALLOWLIST_EXISTING_ENTRY = spec(-32000, 'Cannot add an existing account to allowlist');
export const ACCOUNT_ALLOWLIST_ABSENT_ENTRY = spec(-32000, 'Cannot remove an absent account from allowlist');
export const NODE_ALLOWLIST_NOT_ENABLED = spec(-32000, 'Node allowlist has not been enabled');
export const NODE_ALLOWLIST_EMPTY_ENTRY = spec(-32000, 'Request contains an empty list of nodes');
export const NODE_ALLOWLIST_INVALID_ENTRY = spec(-32000, 'Request contains an invalid node');
export const NODE_ALLOWLIST_DUPLICATED_ENTRY = spec(-32000, 'Request contains duplicate nodes');
export const NODE_ALLOWLIST_EXISTING_ENTRY = spec(-32000, 'Cannot add an existing node to allowlist');
export const NODE_ALLOWLIST_MISSING_ENTRY = spec(-32000, 'Cannot remove an absent node from allowlist');
export const NODE_ALLOWLIST_FIXED_NODE_CANNOT_BE_REMOVED = spec(
  -32000,
  'Cannot remove a fixed node (bootnode or static node) from allowlist',
);
export const ALLOWLIST_PERSIST_FAILURE = spec(
  -32000,
  'Unable to persist changes to allowlist configuration file. Changes reverted',
);
export const ALLOWLIST_FILE_SYNC = spec(
  -32000,
  'The permissioning allowlist configuration file is out of sync.  The changes have been applied, but not persisted to disk',
);
export const ALLOWLIST_RELOAD_ERROR = spec(
  -32000,
  'Error reloading permissions file. Please use perm_getAccountsAllowlist and perm_getNodesAllowlist to review the current state of the allowlists',
);
export const PERMISSIONING_NOT_ENABLED = spec(-32000, 'Node/Account allowlist has not been enabled');
export const NON_PERMITTED_NODE_CANNOT_BE_ADDED_AS_A_PEER = spec(
  -32000,
  'Cannot add a non-permitted node as a peer',
);

// --- transaction validation (-32001 … -32011)
export const NONCE_TOO_LOW = spec(-32001, 'Nonce too low');
export const INVALID_TRANSACTION_SIGNATURE = spec(-32002, 'Invalid signature');
export const TX_POOL_DISABLED = spec(
  -32002,
  'Transaction pool not enabled. (Either txpool explicitly disabled, or node not yet in sync).',
);
export const INTRINSIC_GAS_EXCEEDS_LIMIT = spec(-32003, 'Intrinsic gas exceeds gas limit');
export const TRANSACTION_UPFRONT_COST_EXCEEDS_BALANCE = spec(-32004, 'Upfront cost exceeds account balance');
export const EXCEEDS_BLOCK_GAS_LIMIT = spec(-32005, 'Transaction gas limit exceeds block gas limit');
export const EXCEEDS_RPC_MAX_BLOCK_RANGE = spec(-32005, 'Requested range exceeds maximum RPC range limit');
export const EXCEEDS_RPC_MAX_BATCH_SIZE = spec(-32005, 'Number of requests exceeds max batch size');
export const NONCE_TOO_HIGH = spec(-32006, 'Nonce too high');
export const TX_SENDER_NOT_AUTHORIZED = spec(-32007, 'Sender account not authorized to send transactions');
export const CHAIN_HEAD_WORLD_STATE_NOT_AVAILABLE = spec(-32008, 'Initial sync is still in progress');
export const GAS_PRICE_TOO_LOW = spec(-32009, 'Gas price below configured minimum gas price');
export const GAS_PRICE_BELOW_CURRENT_BASE_FEE = spec(-32009, 'Gas price below current base fee');
export const BLOB_GAS_PRICE_BELOW_CURRENT_BLOB_BASE_FEE = spec(
  -32009,
  'blob gas price below current blob base fee',
);
export const COINBASE_NOT_SET = spec(-32010, 'Coinbase not set. Unable to start mining without a coinbase');
export const NO_HASHES_PER_SECOND = spec(-32011, 'No hashes being generated by the current node');
export const TARGET_GAS_LIMIT_MODIFICATION_UNSUPPORTED = spec(
  -32011,
  "The node is not attempting to target a gas limit so the target can't be changed",
);

// --- admin_addPeer
export const CANT_CONNECT_TO_LOCAL_PEER = spec(-32100, 'Cannot add local node as peer.');
export const CANT_RESOLVE_PEER_ENODE_DNS = spec(-32100, 'Cannot resolve enode DNS hostname');
export const DNS_NOT_ENABLED = spec(-32100, 'Enode DNS support is disabled');

// --- engine API
export const UNKNOWN_PAYLOAD = spec(-32001, 'Payload does not exist / is not available');
export const INVALID_TERMINAL_BLOCK = spec(
  -32002,
  "Terminal block doesn't satisfy terminal block conditions",
);
export const INVALID_FORKCHOICE_STATE = spec(-38002, 'Invalid forkchoice state');
export const INVALID_PAYLOAD_ATTRIBUTES = spec(-38003, 'Invalid payload attributes');
export const INVALID_RANGE_REQUEST_TOO_LARGE = spec(-38004, 'Too large request');
export const UNSUPPORTED_FORK = spec(-38005, 'Unsupported fork');

// --- blocks, auth, history
export const UNKNOWN_BLOCK = spec(-39001, 'Unknown block');
export const UNAUTHORIZED = spec(-40100, 'Unauthorized');
export const PRUNED_HISTORY_UNAVAILABLE = spec(4444, 'Pruned history unavailable');
/** Code 3 as Besu ≥ 25.12 and the other clients use (Besu 25.5 used -32000). Build it with `revertError`. */
export const REVERT_ERROR = spec(3, 'Execution reverted');

// --- privacy (-50100 controller errors, -50200 enclave error names)
export const ENCLAVE_ERROR = spec(-50100, 'Error communicating with enclave');
export const UNSUPPORTED_PRIVATE_TRANSACTION_TYPE = spec(-50100, 'Unsupported private transaction type');
export const PRIVACY_NOT_ENABLED = spec(-50100, 'Privacy is not enabled');
export const CREATE_PRIVACY_GROUP_ERROR = spec(-50100, 'Error creating privacy group');
export const DECODE_ERROR = spec(-50100, 'Unable to decode the private signed raw transaction');
export const DELETE_PRIVACY_GROUP_ERROR = spec(-50100, 'Error deleting privacy group');
export const FIND_PRIVACY_GROUP_ERROR = spec(-50100, 'Error finding privacy group');
export const FIND_FLEXIBLE_PRIVACY_GROUP_ERROR = spec(-50100, 'Error finding flexible privacy group');
export const GET_PRIVATE_TRANSACTION_NONCE_ERROR = spec(
  -50100,
  'Unable to determine nonce for account in group.',
);
export const OFFCHAIN_PRIVACY_GROUP_DOES_NOT_EXIST = spec(-50100, 'Offchain Privacy group does not exist.');
export const FLEXIBLE_PRIVACY_GROUP_DOES_NOT_EXIST = spec(-50100, 'Flexible Privacy group does not exist.');
export const FLEXIBLE_PRIVACY_GROUP_NOT_ENABLED = spec(-50100, 'Flexible privacy groups not enabled.');
export const OFFCHAIN_PRIVACY_GROUP_NOT_ENABLED = spec(
  -50100,
  "Offchain privacy group can't be used with Flexible privacy groups enabled.",
);
export const FLEXIBLE_PRIVACY_GROUP_ID_NOT_AVAILABLE = spec(
  -50100,
  'Private transactions to flexible privacy groups must use privacyGroupId',
);
export const PMT_FAILED_INTRINSIC_GAS_EXCEEDS_LIMIT = spec(
  -50100,
  'Privacy Marker Transaction failed due to intrinsic gas exceeding the limit. Gas limit used from the Private Transaction.',
);
export const PRIVATE_FROM_DOES_NOT_MATCH_ENCLAVE_PUBLIC_KEY = spec(
  -50100,
  'Private from does not match enclave public key',
);
export const VALUE_NOT_ZERO = spec(-50100, 'We cannot transfer ether in a private transaction yet.');
export const PRIVATE_TRANSACTION_INVALID = spec(-50100, 'Private transaction invalid');
export const PRIVATE_TRANSACTION_FAILED = spec(-50100, 'Private transaction failed');

export const NODE_MISSING_PEER_URL = spec(-50200, 'NodeMissingPeerUrl');
export const NODE_PUSHING_TO_PEER = spec(-50200, 'NodePushingToPeer');
export const NODE_PROPAGATING_TO_ALL_PEERS = spec(-50200, 'NodePropagatingToAllPeers');
export const NO_SENDER_KEY = spec(-50200, 'NoSenderKey');
export const INVALID_PAYLOAD = spec(-50200, 'InvalidPayload');
export const ENCLAVE_CREATE_KEY_PAIR = spec(-50200, 'EnclaveCreateKeyPair');
export const ENCLAVE_DECODE_PUBLIC_KEY = spec(-50200, 'EnclaveDecodePublicKey');
export const ENCLAVE_DECRYPT_WRONG_PRIVATE_KEY = spec(-50200, 'EnclaveDecryptWrongPrivateKey');
export const ENCLAVE_ENCRYPT_COMBINE_KEYS = spec(-50200, 'EnclaveEncryptCombineKeys');
export const ENCLAVE_MISSING_PRIVATE_KEY_PASSWORD = spec(-50200, 'EnclaveMissingPrivateKeyPasswords');
export const ENCLAVE_NO_MATCHING_PRIVATE_KEY = spec(-50200, 'EnclaveNoMatchingPrivateKey');
export const ENCLAVE_NOT_PAYLOAD_OWNER = spec(-50200, 'EnclaveNotPayloadOwner');
export const ENCLAVE_UNSUPPORTED_PRIVATE_KEY_TYPE = spec(-50200, 'EnclaveUnsupportedPrivateKeyType');
export const ENCLAVE_STORAGE_DECRYPT = spec(-50200, 'EnclaveStorageDecrypt');
export const ENCLAVE_PRIVACY_GROUP_CREATION = spec(-50200, 'EnclavePrivacyGroupIdCreation');
export const ENCLAVE_PAYLOAD_NOT_FOUND = spec(-50200, 'EnclavePayloadNotFound');
export const CREATE_GROUP_INCLUDE_SELF = spec(-50200, 'CreatePrivacyGroupShouldIncludeSelf');
export const TESSERA_NODE_MISSING_PEER_URL = spec(-50200, 'Recipient not found for key:');
export const TESSERA_CREATE_GROUP_INCLUDE_SELF = spec(
  -50200,
  'The list of members in a privacy group should include self',
);
export const ENCLAVE_UNABLE_STORE_PRIVACY_GROUP = spec(-50200, 'PrivacyGroupNotStored');
export const ENCLAVE_UNABLE_DELETE_PRIVACY_GROUP = spec(-50200, 'PrivacyGroupNotDeleted');
export const ENCLAVE_UNABLE_PUSH_DELETE_PRIVACY_GROUP = spec(-50200, 'PrivacyGroupNotPushed');
export const ENCLAVE_PRIVACY_GROUP_MISSING = spec(-50200, 'PrivacyGroupNotFound');
export const ENCLAVE_PRIVACY_QUERY_ERROR = spec(-50200, 'PrivacyGroupQueryError');
export const ENCLAVE_KEYS_CANNOT_DECRYPT_PAYLOAD = spec(-50200, 'EnclaveKeysCannotDecryptPayload');
export const METHOD_UNIMPLEMENTED = spec(-50200, 'MethodUnimplemented');

// --- plugins
export const PLUGIN_NOT_FOUND = spec(-60000, 'Plugin not found');

/** `"<base> (<detail>)"`: how Besu attaches a reason (tx validation detail, revert string) to a message. */
export function withDetail(base: RpcErrorSpec, detail: string | undefined): RpcErrorSpec {
  return detail === undefined || detail === ''
    ? base
    : { code: base.code, message: `${base.message} (${detail})` };
}

/** `base`'s code with a message of its own, for errors whose whole text Besu composes (eth_simulateV1's block order). */
export function withMessage(base: RpcErrorSpec, message: string): RpcErrorSpec {
  return { code: base.code, message };
}

/** What handlers throw. `message` is the JSON-RPC message; `data` is omitted from the response when null. */
export class RpcError extends Error {
  override name = 'RpcError';
  readonly code: number;
  readonly data: unknown;

  constructor(error: RpcErrorSpec, data?: unknown) {
    super(error.message);
    this.code = error.code;
    this.data = data;
  }

  /** `new RpcError(withDetail(base, detail), data)`. */
  static withDetail(base: RpcErrorSpec, detail: string | undefined, data?: unknown): RpcError {
    return new RpcError(withDetail(base, detail), data);
  }

  toErrorObject(): RpcErrorObject {
    return this.data === undefined || this.data === null
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** Shorthand for the common case: `throw invalidParams(INVALID_ADDRESS_PARAMS)`. */
export function invalidParams(error: RpcErrorSpec = INVALID_PARAMS, data?: unknown): RpcError {
  return new RpcError(error, data);
}

const ERROR_STRING_SELECTOR = '08c379a0';

/**
 * A reverted call: code 3, `Execution reverted` plus ` (<reason>)` when the revert data is an ABI
 * `Error(string)`, and `data` = the raw revert bytes as hex. Data starting with the `Error(string)`
 * selector that does not decode gives the reason `ABI decode error`, as in Besu.
 */
export function revertError(revertData: Uint8Array | string): RpcError {
  const hex =
    typeof revertData === 'string'
      ? revertData.toLowerCase().startsWith('0x')
        ? revertData.toLowerCase()
        : `0x${revertData.toLowerCase()}`
      : `0x${Buffer.from(revertData.buffer, revertData.byteOffset, revertData.length).toString('hex')}`;
  return new RpcError(withDetail(REVERT_ERROR, decodeRevertReason(hex)), hex);
}

/** The `Error(string)` reason inside revert data (`0x…`), `ABI decode error` if malformed, else undefined. */
export function decodeRevertReason(hex: string): string | undefined {
  if (!hex.startsWith(ERROR_STRING_SELECTOR, 2)) return undefined;
  const body = hex.slice(2 + ERROR_STRING_SELECTOR.length);
  // ABI: a 32-byte offset to the string, then at that offset a 32-byte length and the UTF-8 bytes.
  const word = (at: number): number | undefined => {
    const w = body.slice(at * 2, at * 2 + 64);
    if (w.length < 64 || !/^[0-9a-f]+$/.test(w)) return undefined;
    const v = BigInt(`0x${w}`);
    return v > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : Number(v);
  };
  const offset = word(0);
  if (offset === undefined) return 'ABI decode error';
  const length = word(offset);
  if (length === undefined) return 'ABI decode error';
  const start = (offset + 32) * 2;
  const text = body.slice(start, start + length * 2);
  if (text.length < length * 2 || !/^[0-9a-f]*$/.test(text)) return 'ABI decode error';
  return new TextDecoder().decode(Buffer.from(text, 'hex'));
}

// --- eth_simulateV1 (execution-apis codes; the cross-client suite compares code and data only).
// Messages are Besu's where it has one for the code (its BlockStateCallError); the block sequence
// errors (-38020, -38021, -38026) carry Besu's whole sentence instead (see `withMessage`).
export const SIM_NONCE_TOO_LOW = spec(-38010, 'Nonce too low');
export const SIM_NONCE_TOO_HIGH = spec(-38011, 'Nonce too high');
export const SIM_BASE_FEE_TOO_LOW = spec(-38012, 'Max fee per gas less than block base fee');
export const SIM_INTRINSIC_GAS = spec(-38013, 'Intrinsic gas exceeds gas limit');
export const SIM_INSUFFICIENT_FUNDS = spec(-38014, 'Upfront cost exceeds balance');
export const SIM_BLOCK_GAS_LIMIT = spec(-38015, 'Block gas limit reached');
export const SIM_BLOCK_NUMBER_ORDER = spec(-38020, 'Block numbers are not ascending');
export const SIM_BLOCK_TIMESTAMP_ORDER = spec(-38021, 'Timestamps are not ascending');
export const SIM_INIT_CODE_TOO_LARGE = spec(-38025, 'Max init code size exceeded');
export const SIM_CLIENT_LIMIT = spec(-38026, 'Too many block calls');
/** A call's own failure inside a simulated block (not a revert). */
export const SIM_VM_ERROR = spec(-32015, 'VM execution error');
export const SIM_HEADER_NOT_FOUND = spec(-32000, 'header not found');
export const SIM_INVALID_OVERRIDE = spec(-32000, 'Invalid state override');

// --- domain errors from lower layers

/** The pool's rejection reasons as Besu answers them: bare messages, no detail suffix. */
const TX_REJECTIONS: Record<TxRejection, RpcErrorSpec> = {
  // Besu's spec cases answer undecodable bytes with the generic message.
  DECODE: INVALID_PARAMS,
  INVALID_SIGNATURE: INVALID_TRANSACTION_SIGNATURE,
  WRONG_CHAIN_ID,
  REPLAY_PROTECTED_SIGNATURE_REQUIRED,
  TYPE_NOT_SUPPORTED: INVALID_TRANSACTION_TYPE,
  NONCE_TOO_LOW,
  NONCE_TOO_FAR_IN_FUTURE: NONCE_TOO_FAR_IN_FUTURE_FOR_SENDER,
  INTRINSIC_GAS: INTRINSIC_GAS_EXCEEDS_LIMIT,
  EXCEEDS_BLOCK_GAS_LIMIT,
  UPFRONT_COST_EXCEEDS_BALANCE: TRANSACTION_UPFRONT_COST_EXCEEDS_BALANCE,
  GAS_PRICE_TOO_LOW,
  GAS_PRICE_BELOW_BASE_FEE: GAS_PRICE_BELOW_CURRENT_BASE_FEE,
  BLOB_GAS_PRICE_BELOW_BLOB_BASE_FEE: BLOB_GAS_PRICE_BELOW_CURRENT_BLOB_BASE_FEE,
  REPLACEMENT_UNDERPRICED: ETH_SEND_TX_REPLACEMENT_UNDERPRICED,
  KNOWN: ETH_SEND_TX_ALREADY_KNOWN,
  FEE_CAP_EXCEEDED: TX_FEECAP_EXCEEDED,
  MAX_PRIORITY_FEE_EXCEEDS_MAX_FEE: MAX_PRIORITY_FEE_PER_GAS_EXCEEDS_MAX_FEE_PER_GAS,
  BLOB_COUNT: INVALID_BLOB_COUNT,
  TOTAL_BLOB_GAS_TOO_HIGH,
  INVALID_BLOBS,
  OVERSIZED: INTERNAL_ERROR,
};

const LOG_QUERY_ERRORS: Record<LogQueryFailure, RpcErrorSpec> = {
  UNKNOWN_BLOCK_HASH: BLOCK_NOT_FOUND,
  INVALID_RANGE: INVALID_PARAMS,
  RANGE_TOO_WIDE: EXCEEDS_RPC_MAX_BLOCK_RANGE,
};

/**
 * How each typed error of the layers below is answered. Handlers let these propagate; the dispatcher
 * maps them here, so every transport (and `debug_batchSendRawTransaction`'s per-entry messages) words
 * them the same way.
 */
function domainError(err: unknown): RpcErrorSpec | undefined {
  if (err instanceof TxPoolError) return TX_REJECTIONS[err.reason];
  if (err instanceof FilterLimitError) return FILTER_LIMIT_REACHED;
  if (err instanceof NoCoinbaseError) return COINBASE_NOT_SET;
  if (err instanceof InvalidSubscriptionRequestError) return INVALID_REQUEST;
  if (err instanceof SubscriptionNotFoundError) return SUBSCRIPTION_NOT_FOUND;
  if (err instanceof LogQueryError) return LOG_QUERY_ERRORS[err.reason];
  if (err instanceof TraceCallError) return INTERNAL_ERROR;
  if (err instanceof TraceTimeoutError) return TIMEOUT_ERROR;
  return undefined;
}

/**
 * A failed run as eth_estimateGas and eth_createAccessList report it: the revert error with its data,
 * or Besu's halt error with the reason (`… (Invalid opcode: 0xfe)`).
 */
export function failureError(result: SimulationResult): RpcError {
  if (result.status === 'revert') return revertError(result.output);
  return RpcError.withDetail(EXECUTION_HALTED, result.haltReason);
}

/** A call that could not be run as a transaction (eth_call, eth_estimateGas, eth_createAccessList). */
function invalidSimulationError(err: InvalidSimulationError): RpcError {
  switch (err.reason) {
    case 'NONCE_TOO_LOW':
      return RpcError.withDetail(NONCE_TOO_LOW, err.detail);
    case 'UPFRONT_COST_EXCEEDS_BALANCE':
      return RpcError.withDetail(TRANSACTION_UPFRONT_COST_EXCEEDS_BALANCE, err.detail);
    case 'INTRINSIC_GAS_EXCEEDS_GAS_LIMIT':
      return RpcError.withDetail(INTRINSIC_GAS_EXCEEDS_LIMIT, err.detail);
    case 'TOTAL_BLOB_GAS_TOO_HIGH':
      return RpcError.withDetail(TOTAL_BLOB_GAS_TOO_HIGH, err.detail);
    case 'INVALID_TRANSACTION_FORMAT':
      return RpcError.withDetail(INVALID_TRANSACTION_TYPE, err.detail);
    case 'BLOB_GAS_PRICE_BELOW_BLOB_BASE_FEE':
      return RpcError.withDetail(BLOB_GAS_PRICE_BELOW_CURRENT_BLOB_BASE_FEE, err.detail);
    // Besu's converter has no code of its own for an oversized creation (INITCODE_TOO_LARGE) or the
    // rest: the generic one, with the reason.
    default:
      return RpcError.withDetail(INTERNAL_ERROR, err.detail);
  }
}

/** eth_simulateV1's failures. */
const SIMULATE_ERRORS: Record<SimulateErrorKind, RpcErrorSpec> = {
  NONCE_TOO_LOW: SIM_NONCE_TOO_LOW,
  NONCE_TOO_HIGH: SIM_NONCE_TOO_HIGH,
  BASE_FEE_TOO_LOW: SIM_BASE_FEE_TOO_LOW,
  INTRINSIC_GAS: SIM_INTRINSIC_GAS,
  INSUFFICIENT_FUNDS: SIM_INSUFFICIENT_FUNDS,
  BLOCK_GAS_LIMIT: SIM_BLOCK_GAS_LIMIT,
  BLOCK_NUMBER_ORDER: SIM_BLOCK_NUMBER_ORDER,
  BLOCK_TIMESTAMP_ORDER: SIM_BLOCK_TIMESTAMP_ORDER,
  CLIENT_LIMIT: SIM_CLIENT_LIMIT,
  INVALID_PARAMS: INVALID_PARAMS,
  INTERNAL: INTERNAL_ERROR,
  INVALID_OVERRIDE: SIM_INVALID_OVERRIDE,
  INIT_CODE_TOO_LARGE: SIM_INIT_CODE_TOO_LARGE,
};

/** eth_simulateV1 errors whose message Besu writes in full (the block sequence checks); the others add a detail. */
const SIMULATE_WHOLE_MESSAGE = new Set<SimulateErrorKind>([
  'BLOCK_NUMBER_ORDER',
  'BLOCK_TIMESTAMP_ORDER',
  'CLIENT_LIMIT',
]);

function simulateError(err: SimulateError): RpcError {
  const spec = SIMULATE_ERRORS[err.kind];
  return SIMULATE_WHOLE_MESSAGE.has(err.kind)
    ? new RpcError(withMessage(spec, err.message))
    : RpcError.withDetail(spec, err.message);
}

/** Typed errors of the layers below whose answer carries a detail or data. */
function detailedDomainError(err: unknown): RpcError | undefined {
  if (err instanceof CallFailedError) return failureError(err.result);
  if (err instanceof InvalidSimulationError) return invalidSimulationError(err);
  if (err instanceof SimulateError) return simulateError(err);
  return undefined;
}

export interface RpcErrorLogger {
  error(details: object, message: string): void;
}

let errorLog: RpcErrorLogger = logger('rpc');

/** Where unexpected handler failures are reported (the node's `rpc` logger unless replaced). */
export function setRpcErrorLogger(next: RpcErrorLogger): void {
  errorLog = next;
}

/** Reports an unexpected failure (the caller answers -32603). */
export function logInternalError(err: unknown, context?: string): void {
  errorLog.error({ err, method: context }, 'Error processing JSON-RPC request');
}

/** The answer to an `RpcError` or a known domain error; undefined for anything unexpected. */
export function knownErrorObject(err: unknown): RpcErrorObject | undefined {
  if (err instanceof RpcError) return err.toErrorObject();
  const detailed = detailedDomainError(err);
  if (detailed !== undefined) return detailed.toErrorObject();
  const mapped = domainError(err);
  return mapped === undefined ? undefined : { code: mapped.code, message: mapped.message };
}

/** Any thrown value to the error member of a response. Unmapped errors become -32603 and are logged. */
export function toErrorObject(err: unknown, context?: string): RpcErrorObject {
  const known = knownErrorObject(err);
  if (known !== undefined) return known;
  logInternalError(err, context);
  return { code: INTERNAL_ERROR.code, message: INTERNAL_ERROR.message };
}
