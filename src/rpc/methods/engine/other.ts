/**
 * The remaining ENGINE methods: capabilities, client version, the transition configuration (answered
 * as Besu does: the configured terminal total difficulty, no terminal block), payload bodies by hash
 * and by range (at most 1024, else -38004), and blobs from the pool (at most 128 hashes).
 */
import { bigIntToHex, bytesToHex } from '@ethereumjs/util';
import { VERSION } from '../../../version.js';
import {
  INVALID_BLOCK_COUNT_PARAMS,
  INVALID_BLOCK_HASH_PARAMS,
  INVALID_BLOCK_NUMBER_PARAMS,
  INVALID_ENGINE_EXCHANGE_TRANSITION_CONFIGURATION_PARAMS,
  INVALID_REMOTE_CAPABILITIES_PARAMS,
  INVALID_VERSIONED_HASHES_PARAMS,
  RpcError,
} from '../../errors.js';
import { formatPayloadBody } from '../../format/engine.js';
import { hexBytes, hexList, hexQuantity } from '../../params/engine.js';
import type { MethodContext, RpcMethod } from '../types.js';
import { engineOf } from './service.js';

const ZERO_HASH = `0x${'00'.repeat(32)}`;

export const engineGetClientVersionV1: RpcMethod = {
  name: 'engine_getClientVersionV1',
  group: 'ENGINE',
  handler(_params, ctx) {
    engineOf(ctx);
    return [{ code: 'AL', name: 'alder', version: `v${VERSION}`, commit: 'unknown' }];
  },
};

export const engineExchangeTransitionConfigurationV1: RpcMethod = {
  name: 'engine_exchangeTransitionConfigurationV1',
  group: 'ENGINE',
  handler(params, ctx) {
    const engine = engineOf(ctx);
    const remote = params[0];
    if (typeof remote !== 'object' || remote === null || Array.isArray(remote))
      throw new RpcError(INVALID_ENGINE_EXCHANGE_TRANSITION_CONFIGURATION_PARAMS);
    const r = remote as Record<string, unknown>;
    if (
      hexQuantity(r.terminalTotalDifficulty) === undefined ||
      hexBytes(r.terminalBlockHash, 32) === undefined ||
      hexQuantity(r.terminalBlockNumber) === undefined
    )
      throw new RpcError(INVALID_ENGINE_EXCHANGE_TRANSITION_CONFIGURATION_PARAMS);
    return {
      terminalTotalDifficulty: bigIntToHex(engine.terminalTotalDifficulty),
      terminalBlockHash: ZERO_HASH,
      terminalBlockNumber: '0x0',
    };
  },
};

export const engineGetPayloadBodiesByHashV1: RpcMethod = {
  name: 'engine_getPayloadBodiesByHashV1',
  group: 'ENGINE',
  handler(params, ctx) {
    const engine = engineOf(ctx);
    const hashes = hexList(params[0], INVALID_BLOCK_HASH_PARAMS, 32);
    if (!hashes) throw new RpcError(INVALID_BLOCK_HASH_PARAMS);
    return engine.payloadBodiesByHash(hashes).map(formatPayloadBody);
  },
};

export const engineGetPayloadBodiesByRangeV1: RpcMethod = {
  name: 'engine_getPayloadBodiesByRangeV1',
  group: 'ENGINE',
  handler(params, ctx) {
    const engine = engineOf(ctx);
    const start = hexQuantity(params[0]);
    if (start === undefined) throw new RpcError(INVALID_BLOCK_NUMBER_PARAMS);
    const count = hexQuantity(params[1]);
    if (count === undefined) throw new RpcError(INVALID_BLOCK_COUNT_PARAMS);
    return engine.payloadBodiesByRange(start, count).map(formatPayloadBody);
  },
};

export const engineGetBlobsV1: RpcMethod = {
  name: 'engine_getBlobsV1',
  group: 'ENGINE',
  handler(params, ctx) {
    const engine = engineOf(ctx);
    const hashes = hexList(params[0], INVALID_VERSIONED_HASHES_PARAMS, 32);
    if (!hashes) throw new RpcError(INVALID_VERSIONED_HASHES_PARAMS);
    return engine
      .blobs(hashes)
      .map((b) => (b ? { blob: bytesToHex(b.blob), proof: bytesToHex(b.proof) } : null));
  },
};

/** Osaka: every blob with its cell proofs, or null when any one is missing. */
export const engineGetBlobsV2: RpcMethod = {
  name: 'engine_getBlobsV2',
  group: 'ENGINE',
  handler(params, ctx) {
    const engine = engineOf(ctx);
    const hashes = hexList(params[0], INVALID_VERSIONED_HASHES_PARAMS, 32);
    if (!hashes) throw new RpcError(INVALID_VERSIONED_HASHES_PARAMS);
    const found = engine.blobsWithCellProofs(hashes);
    if (found.some((b) => b === null)) return null;
    return found.map((b) => ({
      blob: bytesToHex((b as { blob: Uint8Array }).blob),
      proofs: (b as { proofs: Uint8Array[] }).proofs.map(bytesToHex),
    }));
  },
};

/** Filled in by the index with every engine method's name. */
export function exchangeCapabilities(names: () => string[]): RpcMethod {
  return {
    name: 'engine_exchangeCapabilities',
    group: 'ENGINE',
    handler(params: readonly unknown[], ctx: MethodContext) {
      engineOf(ctx);
      const remote = params[0];
      if (!Array.isArray(remote) || remote.some((r) => typeof r !== 'string'))
        throw new RpcError(INVALID_REMOTE_CAPABILITIES_PARAMS);
      return names();
    },
  };
}
