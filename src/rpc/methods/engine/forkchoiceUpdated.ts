/**
 * engine_forkchoiceUpdatedV1–V3. Each version's own check of the payload attributes runs inside the
 * service where Besu runs it (after the head moved): V2 refuses a beacon root and Cancun timestamps,
 * V3 requires the beacon root and a non-zero timestamp within Cancun…Amsterdam.
 */
import type { EngineService, PayloadAttributes } from '../../../consensus/merge/engineService.js';
import { EngineApiError } from '../../../consensus/merge/errors.js';
import {
  INVALID_ENGINE_FORKCHOICE_UPDATED_PARAMS,
  INVALID_ENGINE_PAYLOAD_ATTRIBUTES_PARAMS,
} from '../../errors.js';
import { formatForkchoiceResult } from '../../format/engine.js';
import { forkchoiceState, payloadAttributes } from '../../params/engine.js';
import type { MethodContext, RpcMethod } from '../types.js';
import { engineOf } from './service.js';

function attributeCheck(version: number, engine: EngineService): (a: PayloadAttributes) => void {
  if (version === 2)
    return (a) => {
      if (a.parentBeaconBlockRoot !== undefined) throw new EngineApiError('INVALID_PAYLOAD_ATTRIBUTES');
      engine.checkBeforeCancun(a.timestamp);
    };
  if (version === 3)
    return (a) => {
      if (a.parentBeaconBlockRoot === undefined || a.timestamp === 0n)
        throw new EngineApiError('INVALID_PAYLOAD_ATTRIBUTES');
      engine.checkForkRange('cancun', 'amsterdam', a.timestamp);
    };
  return () => {};
}

function forkchoiceUpdated(version: number): RpcMethod {
  return {
    name: `engine_forkchoiceUpdatedV${version}`,
    group: 'ENGINE',
    async handler(params: readonly unknown[], ctx: MethodContext) {
      const engine = engineOf(ctx);
      const state = forkchoiceState(params[0], INVALID_ENGINE_FORKCHOICE_UPDATED_PARAMS);
      const attrs = payloadAttributes(params[1], INVALID_ENGINE_PAYLOAD_ATTRIBUTES_PARAMS);
      const result = await engine.forkchoiceUpdated(state, attrs, attributeCheck(version, engine));
      return formatForkchoiceResult(result);
    },
  };
}

export const forkchoiceUpdatedMethods: RpcMethod[] = [1, 2, 3].map(forkchoiceUpdated);
