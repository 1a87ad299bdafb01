/**
 * The one call → transaction builder of the simulations (eth_call, eth_estimateGas,
 * eth_createAccessList, eth_simulateV1): an unsigned transaction of the chosen type from a decoded
 * call and the fee fields its caller settled on, whose sender is the call's `from`.
 */
import type { Common } from '@ethereumjs/common';
import {
  createAccessList2930Tx,
  createBlob4844Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from '@ethereumjs/tx';
import { type Address, bytesToHex } from '@ethereumjs/util';
import type { CallRequest } from './callTypes.js';

/** The transaction types a call can take. */
export type CallTxKind = 'legacy' | 'accessList' | 'feeMarket' | 'blob' | 'setCode';

export interface CallTxFields {
  kind: CallTxKind;
  nonce: bigint;
  gasLimit: bigint;
  /** Legacy and access-list transactions. */
  gasPrice: bigint;
  /** Fee-market, blob and set-code transactions. */
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** Blob transactions. */
  maxFeePerBlobGas: bigint;
}

export interface CallTxOptions {
  common: Common;
  /** Transaction parameters other than the Common's (eth_simulateV1 lifts the EIP-7825 cap). */
  params?: unknown;
  /** A placeholder signature to encode the transaction with (simulated blocks hash their transactions). */
  signature?: { v: bigint; r: bigint; s: bigint };
}

const ZERO_ADDRESS = new Uint8Array(20);
const UINT64_MAX = (1n << 64n) - 1n;

function hexQ(v: bigint): `0x${string}` {
  return `0x${v.toString(16)}`;
}

/**
 * Builds the call's transaction. The library's own checks still apply (they throw); a nonce at or
 * above the uint64 limit, which EIP-2681 leaves to pool and block validation, is accepted, as
 * simulations allow any future nonce.
 */
export function buildCallTransaction(
  call: CallRequest,
  from: Address,
  f: CallTxFields,
  opts: CallTxOptions,
): TypedTransaction {
  const txOpts = {
    common: opts.common,
    freeze: false,
    ...(opts.params ? { params: opts.params } : {}),
  } as never;
  const chainId = opts.common.chainId();
  const base = {
    nonce: f.nonce >= UINT64_MAX ? 0n : f.nonce,
    gasLimit: f.gasLimit,
    to: call.to,
    value: call.value ?? 0n,
    data: call.data ?? new Uint8Array(),
    ...(opts.signature ?? {}),
  };
  const accessList = call.accessList ?? [];
  let tx: TypedTransaction;
  switch (f.kind) {
    case 'blob':
      tx = createBlob4844Tx(
        {
          ...base,
          to: call.to ?? ZERO_ADDRESS,
          chainId,
          maxFeePerGas: f.maxFeePerGas,
          maxPriorityFeePerGas: f.maxPriorityFeePerGas,
          accessList,
          maxFeePerBlobGas: f.maxFeePerBlobGas,
          blobVersionedHashes: call.blobVersionedHashes ?? [],
        },
        txOpts,
      );
      break;
    case 'setCode':
      tx = createEOACode7702Tx(
        {
          ...base,
          to: call.to ?? ZERO_ADDRESS,
          chainId,
          maxFeePerGas: f.maxFeePerGas,
          maxPriorityFeePerGas: f.maxPriorityFeePerGas,
          accessList,
          authorizationList: (call.authorizationList ?? []).map((a) => ({
            chainId: hexQ(a.chainId),
            address: bytesToHex(a.address),
            nonce: hexQ(a.nonce),
            yParity: hexQ(a.yParity),
            r: hexQ(a.r),
            s: hexQ(a.s),
          })),
        },
        txOpts,
      );
      break;
    case 'feeMarket':
      tx = createFeeMarket1559Tx(
        {
          ...base,
          chainId,
          maxFeePerGas: f.maxFeePerGas,
          maxPriorityFeePerGas: f.maxPriorityFeePerGas,
          accessList,
        },
        txOpts,
      );
      break;
    case 'accessList':
      tx = createAccessList2930Tx({ ...base, chainId, gasPrice: f.gasPrice, accessList }, txOpts);
      break;
    default:
      tx = createLegacyTx({ ...base, gasPrice: f.gasPrice }, txOpts);
  }
  // The library refuses a nonce at the uint64 limit when it builds a transaction: set it afterwards.
  if (f.nonce >= UINT64_MAX) (tx as { nonce: bigint }).nonce = f.nonce;
  // Unsigned: the sender is the call's `from`.
  (tx as { getSenderAddress: () => Address }).getSenderAddress = () => from;
  return tx;
}
