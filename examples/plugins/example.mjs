// @ts-check
/**
 * An example Alder plugin. Copy it into `<data-path>/plugins/` (or name it with
 * `--plugins=/path/to/example.mjs`) and name its namespace in the API list (`--rpc-http-api=ETH,EXAMPLE`).
 *
 * It declares one option, `--plugin-example-greeting` (also `ALDER_PLUGIN_EXAMPLE_GREETING`); counts new
 * blocks, transactions added to and dropped from the pool, and logs of the contracts it watches; and
 * serves:
 *   example_hello                 the greeting
 *   example_stats                 what it has counted since start
 *   example_balance [address]     the balance of an account at the head, read through the node's state
 *   example_watch [address]       count the logs of this contract from now on
 * plugins_reloadPluginConfig("example") re-reads `<data-path>/plugins/example.json` ({"greeting": "…"}).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** @typedef {import('../../src/plugins/api.ts').AlderPlugin} AlderPlugin */
/** @typedef {import('../../src/plugins/api.ts').PluginContext} PluginContext */

/** @returns {AlderPlugin} */
export default function examplePlugin() {
  /** @type {PluginContext | undefined} */
  let ctx;
  let greeting = 'hello';
  const stats = { blocks: 0, removedBlocks: 0, transactionsAdded: 0, transactionsDropped: 0, logs: 0, reloads: 0, lastBlock: null };
  /** @type {Array<() => void>} */
  const subscriptions = [];

  const invalidParams = () => Object.assign(new Error('Invalid params'), { name: 'PluginRpcError', code: -32602 });

  return {
    name: 'example',
    options: [{ name: 'greeting', type: 'string', default: 'hello', help: 'What example_hello answers' }],

    register(context) {
      ctx = context;
      greeting = String(context.options.greeting);
      subscriptions.push(
        context.events.onNewBlock((b) => {
          if (b.removed) stats.removedBlocks++;
          else {
            stats.blocks++;
            stats.lastBlock = `0x${b.number.toString(16)}`;
          }
        }),
        context.events.onTransactionAdded(() => stats.transactionsAdded++),
        context.events.onTransactionDropped(() => stats.transactionsDropped++),
      );
      context.registerRpcMethod('hello', () => greeting);
      context.registerRpcMethod('stats', () => ({ ...stats }));
      context.registerRpcMethod('balance', async (params) => {
        const address = params[0];
        if (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address)) throw invalidParams();
        const account = await context.chain.getAccount(address);
        return `0x${(account?.balance ?? 0n).toString(16)}`;
      });
      context.registerRpcMethod('watch', (params) => {
        const address = params[0];
        if (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address)) throw invalidParams();
        subscriptions.push(context.events.onLogs({ addresses: [address] }, (log) => {
          if (!log.removed) stats.logs++;
        }));
        return true;
      });
      context.log.info(`example plugin registered, greeting '${greeting}'`);
    },

    stop() {
      for (const unsubscribe of subscriptions) unsubscribe();
    },

    reloadConfiguration() {
      if (!ctx) return;
      const file = join(ctx.dataPath, 'plugins', 'example.json');
      if (!existsSync(file)) return;
      const config = JSON.parse(readFileSync(file, 'utf8'));
      if (typeof config.greeting !== 'string') throw new Error(`${file}: greeting must be a string`);
      greeting = config.greeting;
      stats.reloads++;
    },
  };
}
