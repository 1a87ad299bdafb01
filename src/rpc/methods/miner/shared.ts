/** The mining service the MINER methods act on; a chain without local block production has none. */
import type { MiningService } from '../../../mining/service.js';
import { INVALID_REQUEST, RpcError } from '../../errors.js';
import type { Services } from '../../services.js';

export function requireMiner(services: Services): MiningService {
  if (!services.miner) throw new RpcError(INVALID_REQUEST);
  return services.miner;
}
