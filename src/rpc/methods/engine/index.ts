/** The ENGINE group (served on the engine port) and testing_buildBlockV1. */
import type { RpcMethod } from '../types.js';
import { forkchoiceUpdatedMethods } from './forkchoiceUpdated.js';
import { getPayloadMethods } from './getPayload.js';
import { newPayloadMethods } from './newPayload.js';
import {
  engineExchangeTransitionConfigurationV1,
  engineGetBlobsV1,
  engineGetBlobsV2,
  engineGetClientVersionV1,
  engineGetPayloadBodiesByHashV1,
  engineGetPayloadBodiesByRangeV1,
  exchangeCapabilities,
} from './other.js';
import { testingBuildBlockV1 } from './testing.js';

const served: RpcMethod[] = [
  ...newPayloadMethods,
  ...forkchoiceUpdatedMethods,
  ...getPayloadMethods,
  engineGetPayloadBodiesByHashV1,
  engineGetPayloadBodiesByRangeV1,
  engineGetBlobsV1,
  engineGetBlobsV2,
  engineGetClientVersionV1,
  engineExchangeTransitionConfigurationV1,
];

export const engineMethods: RpcMethod[] = [
  ...served,
  exchangeCapabilities(() => served.map((m) => m.name)),
  testingBuildBlockV1,
];
