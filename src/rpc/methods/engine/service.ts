/** The engine service behind the ENGINE methods; absent on chains that never merge. */
import type { EngineService } from '../../../consensus/merge/engineService.js';
import { METHOD_NOT_ENABLED, RpcError } from '../../errors.js';
import type { MethodContext } from '../types.js';

export function engineOf(ctx: MethodContext): EngineService {
  const engine = ctx.services.engine;
  if (!engine) throw new RpcError(METHOD_NOT_ENABLED);
  return engine;
}
