/**
 * Plugins end to end: the repository's example plugin loaded by a running dev node from
 * `<data-path>/plugins`, with its own option (from the TOML config file), JSON-RPC methods enabled by
 * naming the plugin's namespace in --rpc-http-api as Besu does, block, transaction and log events and
 * state reads; plugins_reloadPluginConfig with Besu's answers; failing and missing plugins refused at
 * start unless --plugin-continue-on-error; API entries and config-file keys no plugin claims refused.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWalletClient, defineChain, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COINBASE, DEV_ADDRESSES, DEV_CHAIN_ID, DEV_KEYS } from '../helpers/devNetwork.js';
import { type NodeProcess, ROOT, removeDir, runCliStatus, startNode, tempDir } from '../helpers/node.js';

const EXAMPLE = join(ROOT, 'examples/plugins/example.mjs');

async function call(url: string, method: string, params: unknown[] = []) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await r.json()) as { result?: unknown; error?: { code: number; message: string } };
}

async function until(check: () => Promise<boolean>, ms = 90_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('the example plugin in a running node', () => {
  let dir: string;
  let node: NodeProcess;

  beforeAll(async () => {
    dir = tempDir('alder-plugins-');
    mkdirSync(join(dir, 'plugins'));
    copyFileSync(EXAMPLE, join(dir, 'plugins/example.mjs'));
    // The plugin's option from the config file, as Besu reads plugin options; its namespace (any case)
    // enables its methods, PLUGINS only plugins_reloadPluginConfig.
    writeFileSync(join(dir, 'config.toml'), 'plugin-example-greeting = "good morning"\n');
    node = await startNode([
      '--network=dev',
      `--data-path=${dir}`,
      `--config-file=${join(dir, 'config.toml')}`,
      '--miner-enabled',
      `--miner-coinbase=${COINBASE}`,
      '--rpc-http-api=ETH,NET,Example,PLUGINS',
    ]);
  });
  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });

  it('serves its methods with its option, and counts blocks and transactions', async () => {
    expect((await call(node.url, 'example_hello')).result).toBe('good morning');
    expect((await call(node.url, 'rpc_modules')).result).toMatchObject({ example: '1.0', plugins: '1.0' });
    expect(node.output()).toContain('Registered plugin example');
    await until(
      async () => ((await call(node.url, 'example_stats')).result as { blocks: number }).blocks >= 1,
    );
    const account = privateKeyToAccount(DEV_KEYS.b);
    const chain = defineChain({
      id: DEV_CHAIN_ID,
      name: 'dev',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    });
    const wallet = createWalletClient({ chain, transport: http(node.url), account });
    await wallet.sendTransaction({ to: DEV_ADDRESSES.c, value: parseEther('1') });
    await until(
      async () =>
        ((await call(node.url, 'example_stats')).result as { transactionsAdded: number }).transactionsAdded >=
        1,
    );
    const balance = (await call(node.url, 'example_balance', [DEV_ADDRESSES.a])).result as string;
    expect(BigInt(balance)).toBe(
      BigInt((await call(node.url, 'eth_getBalance', [DEV_ADDRESSES.a, 'latest'])).result as string),
    );
    expect((await call(node.url, 'example_balance', ['nope'])).error).toEqual({
      code: -32602,
      message: 'Invalid params',
    });
    expect((await call(node.url, 'example_watch', [DEV_ADDRESSES.c])).result).toBe(true);
  });

  it("reloads its configuration with Besu's answers", async () => {
    writeFileSync(join(dir, 'plugins/example.json'), JSON.stringify({ greeting: 'good evening' }));
    expect(await call(node.url, 'plugins_reloadPluginConfig', ['example'])).toMatchObject({
      result: 'Success',
    });
    expect((await call(node.url, 'example_hello')).result).toBe('good evening');
    expect((await call(node.url, 'plugins_reloadPluginConfig', ['nope'])).error).toEqual({
      code: -60000,
      message: 'Plugin not found',
    });
    expect((await call(node.url, 'plugins_reloadPluginConfig', [5])).error).toEqual({
      code: -32602,
      message: 'Invalid plug in name params',
    });
    writeFileSync(join(dir, 'plugins/example.json'), JSON.stringify({ greeting: 7 }));
    const failed = await call(node.url, 'plugins_reloadPluginConfig', []);
    expect(failed.error?.code).toBe(-32000);
    expect(failed.error?.message).toMatch(/^example:failure\(.*greeting must be a string\)$/);
  });
});

describe('plugin loading failures', () => {
  it('refuses to start on a broken or missing plugin unless --plugin-continue-on-error', async () => {
    const dir = tempDir('alder-plugins-bad-');
    try {
      mkdirSync(join(dir, 'plugins'));
      writeFileSync(
        join(dir, 'plugins/broken.mjs'),
        'export default { name: "broken", register() { throw new Error("boom"); } };\n',
      );
      const refused = await runCliStatus(['--network=dev', `--data-path=${dir}`]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('Plugin broken failed to register: boom');
      const missing = await runCliStatus(['--network=dev', `--data-path=${dir}`, '--plugins=absent']);
      expect(missing.stderr).toContain('Plugin(s) not found: absent');
      const unknownOption = await runCliStatus([
        '--network=dev',
        `--data-path=${dir}`,
        '--plugin-continue-on-error',
        '--plugin-nothing-x=1',
      ]);
      expect(unknownOption.code).toBe(2);
      expect(unknownOption.stderr).toContain("Unknown option: '--plugin-nothing-x'");
      writeFileSync(join(dir, 'config.toml'), 'plugin-nothing-x = 1\n');
      const unknownKey = await runCliStatus([
        '--network=dev',
        `--data-path=${dir}`,
        '--plugin-continue-on-error',
        `--config-file=${join(dir, 'config.toml')}`,
      ]);
      expect(unknownKey.code).toBe(2);
      expect(unknownKey.stderr).toContain('Unknown option in TOML configuration file: plugin-nothing-x');
      // An API entry that is neither a group nor a loaded plugin's namespace, as Besu words it.
      const unknownApi = await runCliStatus([
        '--network=dev',
        `--data-path=${dir}`,
        '--plugin-continue-on-error',
        '--rpc-ws-api=ETH,example',
      ]);
      expect(unknownApi.code).toBe(2);
      expect(unknownApi.stderr).toContain(
        "Invalid value for option '--rpc-ws-api': invalid entries found [example]",
      );
      const badName = await runCliStatus(['--network=dev', `--data-path=${dir}`, '--rpc-http-api=ETH,my-ns']);
      expect(badName.code).toBe(2);
      expect(badName.stderr).toContain(
        "Invalid value for option '--rpc-http-api': invalid entries found [my-ns]",
      );
      const node = await startNode([
        '--network=dev',
        `--data-path=${dir}`,
        '--plugin-continue-on-error',
        '--rpc-http-api=ADMIN',
      ]);
      try {
        expect(node.output()).toContain('Plugin broken failed to register: boom; continuing');
        // Loaded plugins: none, so any name is unknown.
        expect((await call(node.url, 'plugins_reloadPluginConfig', ['broken'])).error?.code).toBe(-60000);
        expect((await call(node.url, 'plugins_reloadPluginConfig', [])).result).toBe('Success');
      } finally {
        await node.stop();
      }
    } finally {
      removeDir(dir);
    }
  });
});
