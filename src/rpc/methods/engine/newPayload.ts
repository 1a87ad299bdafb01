/**
 * engine_newPayloadV1–V4: Besu's order — decode the payload, versioned hashes, beacon root and
 * requests; the version's fork range (-38005); the version's required and forbidden fields (-32602 with
 * Besu's sentence as data); then the service's checks and execution, answered as a payload status.
 */

import type { ExecutionPayloadInput } from '../../../consensus/merge/engineService.js';
import { EngineApiError } from '../../../consensus/merge/errors.js';
import {
  INVALID_ENGINE_PAYLOAD_PARAMS,
  INVALID_EXECUTION_REQUESTS_PARAMS,
  INVALID_PARENT_BEACON_BLOCK_ROOT_PARAMS,
  INVALID_VERSIONED_HASH_PARAMS,
  RpcError,
} from '../../errors.js';
import { formatPayloadStatus } from '../../format/engine.js';
import { executionPayload, hexBytes, hexList } from '../../params/engine.js';
import type { MethodContext, RpcMethod } from '../types.js';
import { engineOf } from './service.js';

interface Inputs {
  payload: ExecutionPayloadInput;
  versionedHashes?: Uint8Array[];
  beaconRoot?: Uint8Array;
  requests?: Uint8Array[];
}

function fieldChecks(version: number, i: Inputs): void {
  const p = i.payload;
  if (version === 2) {
    if (p.blobGasUsed !== undefined)
      throw new EngineApiError('INVALID_BLOB_GAS_USED', 'Unexpected blob gas used field present');
    if (p.excessBlobGas !== undefined)
      throw new EngineApiError('INVALID_EXCESS_BLOB_GAS', 'Unexpected excess blob gas field present');
  }
  if (version >= 3) {
    if (p.blobGasUsed === undefined)
      throw new EngineApiError('INVALID_BLOB_GAS_USED', 'Missing blob gas used field');
    if (p.excessBlobGas === undefined)
      throw new EngineApiError('INVALID_EXCESS_BLOB_GAS', 'Missing excess blob gas field');
    if (i.versionedHashes === undefined)
      throw new EngineApiError('INVALID_VERSIONED_HASHES', 'Missing versioned hashes field');
    if (i.beaconRoot === undefined)
      throw new EngineApiError('INVALID_PARENT_BEACON_BLOCK_ROOT', 'Missing parent beacon block root field');
    if (version === 3 && i.requests !== undefined)
      throw new EngineApiError('INVALID_EXECUTION_REQUESTS', 'Unexpected execution requests field present');
    if (version >= 4 && i.requests === undefined)
      throw new EngineApiError('INVALID_EXECUTION_REQUESTS', 'Missing execution requests field');
  }
}

function newPayload(version: number): RpcMethod {
  return {
    name: `engine_newPayloadV${version}`,
    group: 'ENGINE',
    async handler(params: readonly unknown[], ctx: MethodContext) {
      const engine = engineOf(ctx);
      const inputs: Inputs = { payload: executionPayload(params[0], INVALID_ENGINE_PAYLOAD_PARAMS) };
      if (version >= 3) {
        inputs.versionedHashes = hexList(params[1], INVALID_VERSIONED_HASH_PARAMS);
        const root = params[2];
        if (root !== undefined && root !== null) {
          const bytes = hexBytes(root, 32);
          if (!bytes) throw new RpcError(INVALID_PARENT_BEACON_BLOCK_ROOT_PARAMS);
          inputs.beaconRoot = bytes;
        }
        inputs.requests = hexList(params[3], INVALID_EXECUTION_REQUESTS_PARAMS);
      }
      const ts = inputs.payload.timestamp;
      if (version === 2) engine.checkBeforeCancun(ts);
      else if (version === 3) engine.checkForkRange('cancun', 'prague', ts);
      else if (version === 4) engine.checkForkRange('prague', 'amsterdam', ts);
      fieldChecks(version, inputs);
      const status = await engine.newPayload(
        version,
        inputs.payload,
        inputs.versionedHashes,
        inputs.beaconRoot,
        inputs.requests,
      );
      return formatPayloadStatus(status);
    },
  };
}

export const newPayloadMethods: RpcMethod[] = [1, 2, 3, 4].map(newPayload);
