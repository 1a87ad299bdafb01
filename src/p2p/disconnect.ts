/**
 * devp2p disconnect reasons with Besu's names. Besu words its status-check refusals as sub-reasons of
 * SUBPROTOCOL_TRIGGERED (0x10); on the wire they all carry the code.
 */
export const DisconnectReason = {
  REQUESTED: 0x00,
  TCP_SUBSYSTEM_ERROR: 0x01,
  BREACH_OF_PROTOCOL: 0x02,
  USELESS_PEER: 0x03,
  TOO_MANY_PEERS: 0x04,
  ALREADY_CONNECTED: 0x05,
  INCOMPATIBLE_P2P_PROTOCOL_VERSION: 0x06,
  NULL_NODE_ID: 0x07,
  CLIENT_QUITTING: 0x08,
  UNEXPECTED_ID: 0x09,
  LOCAL_IDENTITY: 0x0a,
  TIMEOUT: 0x0b,
  SUBPROTOCOL_TRIGGERED: 0x10,
} as const;

export type DisconnectReason = (typeof DisconnectReason)[keyof typeof DisconnectReason];

const NAMES = new Map<number, string>(Object.entries(DisconnectReason).map(([k, v]) => [v, k]));

export function disconnectReasonName(code: number | undefined): string {
  if (code === undefined) return 'UNKNOWN';
  return NAMES.get(code) ?? `UNKNOWN(0x${code.toString(16)})`;
}

/** The sub-reasons Besu attaches to SUBPROTOCOL_TRIGGERED when a status check fails. */
export const SubprotocolReason = {
  MISMATCHED_NETWORK: 'Mismatched network id',
  MISMATCHED_FORKID: 'Mismatched fork id',
  MISMATCHED_GENESIS_HASH: 'Mismatched genesis hash',
  UNSUPPORTED_PROTOCOL: 'Unsupported eth protocol version',
  INVALID_BLOCK_RANGE: 'Invalid block range',
} as const;
