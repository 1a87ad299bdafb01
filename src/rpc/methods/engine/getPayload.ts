/**
 * engine_getPayloadV1–V5: the payload a forkchoiceUpdated started building. An unknown id answers
 * Besu's -32001; a payload outside the version's fork range -38005 (V2 before Cancun, V3 Cancun,
 * V4 Prague, V5 Osaka).
 */
import type { EngineService } from '../../../consensus/merge/engineService.js';
import { INVALID_PAYLOAD_ID_PARAMS, RpcError } from '../../errors.js';
import { formatGetPayload } from '../../format/engine.js';
import { hexBytes } from '../../params/engine.js';
import type { MethodContext, RpcMethod } from '../types.js';
import { engineOf } from './service.js';

function forkCheck(version: number, engine: EngineService): (timestamp: bigint) => void {
  switch (version) {
    case 2:
      return (t) => engine.checkBeforeCancun(t);
    case 3:
      return (t) => engine.checkForkRange('cancun', 'prague', t);
    case 4:
      return (t) => engine.checkForkRange('prague', 'osaka', t);
    case 5:
      return (t) => engine.checkForkRange('osaka', 'amsterdam', t);
    default:
      return () => {};
  }
}

function getPayload(version: number): RpcMethod {
  return {
    name: `engine_getPayloadV${version}`,
    group: 'ENGINE',
    async handler(params: readonly unknown[], ctx: MethodContext) {
      const engine = engineOf(ctx);
      const id = hexBytes(params[0], 8);
      if (!id) throw new RpcError(INVALID_PAYLOAD_ID_PARAMS);
      const payload = await engine.getPayload(id, forkCheck(version, engine));
      return formatGetPayload(payload, version);
    },
  };
}

export const getPayloadMethods: RpcMethod[] = [1, 2, 3, 4, 5].map(getPayload);
