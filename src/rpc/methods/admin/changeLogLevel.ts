/**
 * admin_changeLogLevel `[level, logFilter?]`: sets the level of every logger, or of the named loggers
 * (and those below them). Besu's levels, upper case: OFF, ERROR, WARN, INFO, DEBUG, TRACE, ALL.
 */
import { setLogLevel } from '../../../log.js';
import { INVALID_LOG_FILTER_PARAMS, INVALID_LOG_LEVEL_PARAMS, RpcError } from '../../errors.js';
import type { RpcMethod } from '../types.js';

const LEVELS = new Set(['OFF', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE', 'ALL']);

export const adminChangeLogLevel: RpcMethod = {
  name: 'admin_changeLogLevel',
  group: 'ADMIN',
  handler(params) {
    const level = params[0];
    if (typeof level !== 'string' || !LEVELS.has(level)) throw new RpcError(INVALID_LOG_LEVEL_PARAMS);
    const filter = params[1];
    let names: string[] | undefined;
    if (filter !== undefined && filter !== null) {
      if (!Array.isArray(filter) || filter.some((n) => typeof n !== 'string'))
        throw new RpcError(INVALID_LOG_FILTER_PARAMS);
      names = filter as string[];
    }
    // An empty filter list changes nothing, as Besu's loop over no names.
    if (names === undefined) setLogLevel(level);
    else if (names.length > 0) setLogLevel(level, names);
    return 'Success';
  },
};
