/**
 * What a simulated call is made of, decoded: the call object, its access list and EIP-7702
 * authorizations, and the state overrides it runs under. Shared by eth_call, eth_estimateGas,
 * eth_createAccessList and eth_simulateV1 (and by the modules that implement them, which therefore
 * never import each other for a type).
 */

export type AccessListEntry = [Uint8Array, Uint8Array[]];

export interface AuthorizationItem {
  chainId: bigint;
  address: Uint8Array;
  nonce: bigint;
  yParity: bigint;
  r: bigint;
  s: bigint;
  /** Simulation only: the signer, named instead of recovered (the signature is then a placeholder). */
  authority?: Uint8Array;
}

/** A call object, decoded. Absent members are undefined. */
export interface CallRequest {
  from?: Uint8Array;
  to?: Uint8Array;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  data?: Uint8Array;
  nonce?: bigint;
  accessList?: AccessListEntry[];
  maxFeePerBlobGas?: bigint;
  blobVersionedHashes?: Uint8Array[];
  authorizationList?: AuthorizationItem[];
  strict?: boolean;
}

export interface AccountOverride {
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** Replaces the whole storage. */
  state?: Array<[Uint8Array, Uint8Array]>;
  /** Changes single slots. */
  stateDiff?: Array<[Uint8Array, Uint8Array]>;
  movePrecompileToAddress?: Uint8Array;
}

/** Keyed by 20-byte address as lowercase `0x…`. */
export type StateOverrides = Map<string, AccountOverride>;
