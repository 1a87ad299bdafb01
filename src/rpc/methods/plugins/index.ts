/**
 * plugins_reloadPluginConfig `[name?]` (registered in both ADMIN and PLUGINS, as Besu), and the
 * adapter that serves the methods plugins register (enabled by naming the plugin's namespace in the
 * API list, as Besu does).
 */
import { logger } from '../../../log.js';
import { PluginRpcError } from '../../../plugins/api.js';
import type { PluginMethod } from '../../../plugins/service.js';
import {
  INVALID_PLUGIN_NAME_PARAMS,
  PLUGIN_INTERNAL_ERROR,
  PLUGIN_NOT_FOUND,
  RpcError,
} from '../../errors.js';
import type { RpcMethod } from '../types.js';

const reload: RpcMethod['handler'] = async (params, { services }) => {
  const name = params[0];
  if (name !== undefined && name !== null && typeof name !== 'string')
    throw new RpcError(INVALID_PLUGIN_NAME_PARAMS);
  const plugins = services.plugins;
  if (typeof name === 'string' && !plugins?.has(name)) {
    logger('plugins').error(
      `Plugin cannot be reloaded because no plugin has been registered with specified name: ${name}`,
    );
    throw new RpcError(PLUGIN_NOT_FOUND);
  }
  if (!plugins) return 'Success';
  const { ok, results } = await plugins.reload(typeof name === 'string' ? name : undefined);
  if (!ok) throw new RpcError({ code: -32000, message: results.join(',') });
  return 'Success';
};

export const pluginsReloadPluginConfigMethods: RpcMethod[] = [
  { name: 'plugins_reloadPluginConfig', group: 'ADMIN', handler: reload },
  { name: 'plugins_reloadPluginConfig', group: 'PLUGINS', handler: reload },
];

/**
 * A plugin's own JSON-RPC error: a `PluginRpcError`, or any error named so with an integer `code` (a
 * plugin loaded from a folder of its own need not import Alder's class).
 */
function isPluginRpcError(err: unknown): err is PluginRpcError {
  if (err instanceof PluginRpcError) return true;
  const e = err as { name?: unknown; code?: unknown; message?: unknown } | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    e.name === 'PluginRpcError' &&
    Number.isInteger(e.code) &&
    typeof e.message === 'string'
  );
}

/** The JSON-RPC methods of the loaded plugins. */
export function pluginRpcMethods(methods: readonly PluginMethod[]): RpcMethod[] {
  return methods.map((m) => ({
    name: m.name,
    group: 'PLUGINS',
    plugin: true,
    async handler(params) {
      try {
        return await m.handler(params);
      } catch (err) {
        if (isPluginRpcError(err)) throw new RpcError({ code: err.code, message: err.message }, err.data);
        if (err instanceof RpcError) throw err;
        logger(`plugins.${m.plugin}`).error({ err }, `Plugin method ${m.name} failed`);
        throw new RpcError(PLUGIN_INTERNAL_ERROR);
      }
    },
  }));
}
