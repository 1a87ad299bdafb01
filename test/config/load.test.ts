import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { envVarName, OPTIONS, renderOptionsMarkdown, tomlKey } from '../../src/config/options.js';

const dir = mkdtempSync(join(tmpdir(), 'alder-config-'));
let n = 0;
function toml(text: string): string {
  const path = join(dir, `config-${n++}.toml`);
  writeFileSync(path, text);
  return path;
}
const DEV = ['--network=dev'];

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('defaults', () => {
  it("are Besu's", () => {
    const c = loadConfig(DEV, {});
    expect(c.dataPath).toBe('./.alder-data');
    expect(c.network).toBe('dev');
    expect(c.networkId).toBe(2018n);
    expect(c.genesis.config.chainId).toBe(1337n);
    expect(c.rpcHttpEnabled).toBe(false);
    expect(c.rpcHttpHost).toBe('127.0.0.1');
    expect(c.rpcHttpPort).toBe(8545);
    expect(c.rpcHttpApi).toEqual(['ETH', 'NET', 'WEB3']);
    expect(c.rpcHttpMaxBatchSize).toBe(1024);
    expect(c.rpcHttpMaxActiveConnections).toBe(80);
    expect(c.hostAllowlist).toEqual(['localhost', '127.0.0.1']);
    expect(c.rpcHttpCorsOrigins).toEqual([]);
    expect(c.rpcWsPort).toBe(8546);
    expect(c.rpcWsMaxFrameSize).toBe(1048576);
    expect(c.graphqlHttpPort).toBe(8547);
    expect(c.engineRpcPort).toBe(8551);
    expect(c.rpcHttpAuthenticationJwtAlgorithm).toBe('RS256');
    expect(c.p2pEnabled).toBe(true);
    expect(c.p2pPort).toBe(30303);
    expect(c.discoveryEnabled).toBe(true);
    expect(c.maxPeers).toBe(25);
    expect(c.minGasPrice).toBe(1000n);
    expect(c.minPriorityFee).toBe(0n);
    expect(c.apiGasPriceBlocks).toBe(100);
    expect(c.apiGasPricePercentile).toBe(50);
    expect(c.apiGasPriceMax).toBe(500000000000n);
    expect(c.rpcMaxLogsRange).toBe(5000);
    expect(c.rpcTxFeecap).toBe(10n ** 18n);
    expect(c.logging).toBe('INFO');
    expect(c.minerEnabled).toBe(false);
    expect(c.minerExtraData).toEqual(new Uint8Array());
    expect(c.txPoolMaxSize).toBe(4096);
    expect(c.autoLogBloomCachingEnabled).toBe(true);
    expect(c.revertReasonEnabled).toBe(false);
    expect(c.bootnodes).toEqual([]);
  });

  it('take the network id from the genesis chain id for a genesis file', () => {
    const c = loadConfig(
      ['--genesis-file=/work/shared/conformance/besu/chain-data/hive/testGenesis.json'],
      {},
    );
    expect(c.networkId).toBe(1n);
    expect(c.network).toBeUndefined();
    expect(loadConfig([...DEV, '--network-id=123'], {}).networkId).toBe(123n);
  });
});

describe('sources and precedence', () => {
  it('derives environment variable names and TOML keys from option names', () => {
    expect(envVarName('--rpc-http-port')).toBe('ALDER_RPC_HTTP_PORT');
    expect(tomlKey('--rpc-http-port')).toBe('rpc-http-port');
  });

  it('command line > environment > config file > default', () => {
    const file = toml('rpc-http-port=7001\nrpc-ws-port=7002\nrpc-http-host="0.0.0.0"\n');
    const env = { ALDER_CONFIG_FILE: file, ALDER_RPC_HTTP_PORT: '7101', ALDER_RPC_WS_PORT: '7102' };
    const c = loadConfig([...DEV, '--rpc-http-port=7201'], env);
    expect(c.rpcHttpPort).toBe(7201); // command line
    expect(c.rpcWsPort).toBe(7102); // environment
    expect(c.rpcHttpHost).toBe('0.0.0.0'); // config file
    expect(c.graphqlHttpPort).toBe(8547); // default
    expect(c.configFile).toBe(file);
    const viaOption = loadConfig([...DEV, `--config-file=${file}`], {});
    expect(viaOption.rpcHttpPort).toBe(7001);
  });

  it('reads every kind of value from the environment', () => {
    const c = loadConfig([], {
      ALDER_NETWORK: 'dev',
      ALDER_RPC_HTTP_ENABLED: 'true',
      ALDER_P2P_ENABLED: 'false',
      ALDER_RPC_HTTP_API: 'ETH,DEBUG, TRACE',
      ALDER_MIN_GAS_PRICE: '0',
      ALDER_LOGGING: 'debug',
    });
    expect(c.rpcHttpEnabled).toBe(true);
    expect(c.p2pEnabled).toBe(false);
    expect(c.rpcHttpApi).toEqual(['ETH', 'DEBUG', 'TRACE']);
    expect(c.minGasPrice).toBe(0n);
    expect(c.logging).toBe('DEBUG');
  });

  it('reads TOML values, arrays and keys under any table heading', () => {
    const file = toml(
      [
        'network="dev"',
        'rpc-http-enabled=true',
        'rpc-http-api=["ETH","NET","TXPOOL"]',
        'rpc-http-cors-origins="http://a.example,http://b.example"',
        'min-gas-price=7',
        'rpc-tx-feecap="0x10"',
        '[Node]',
        'data-path="/tmp/somewhere"',
        'api-gas-price-percentile=12.5',
      ].join('\n'),
    );
    const c = loadConfig([`--config-file=${file}`], {});
    expect(c.rpcHttpEnabled).toBe(true);
    expect(c.rpcHttpApi).toEqual(['ETH', 'NET', 'TXPOOL']);
    expect(c.rpcHttpCorsOrigins).toEqual(['http://a.example', 'http://b.example']);
    expect(c.minGasPrice).toBe(7n);
    expect(c.rpcTxFeecap).toBe(16n);
    expect(c.dataPath).toBe('/tmp/somewhere');
    expect(c.apiGasPricePercentile).toBe(12.5);
  });

  it('rejects bad config files', () => {
    expect(
      errorOf(() => loadConfig([...DEV, `--config-file=${join(dir, 'none.toml')}`], {})).message,
    ).toMatch(/^Unable to read TOML configuration, file not found: /);
    expect(errorOf(() => loadConfig([...DEV, `--config-file=${toml('')}`], {})).message).toMatch(
      /^Empty TOML configuration file: /,
    );
    expect(
      errorOf(() => loadConfig([...DEV, `--config-file=${toml('rpc-http-port=')}`], {})).message,
    ).toMatch(/^Invalid TOML configuration in /);
    expect(
      errorOf(() => loadConfig([...DEV, `--config-file=${toml('bogus=1\nrpc-http-port=1')}`], {})).message,
    ).toMatch(/^Unknown option in TOML configuration file .*: bogus$/);
    expect(
      errorOf(() => loadConfig([...DEV, `--config-file=${toml('rpc-http-enabled="true"')}`], {})).message,
    ).toBe(
      "Invalid value for option '--rpc-http-enabled' (from config file key 'rpc-http-enabled'): 'true' is not a boolean (use true or false without quotes)",
    );
  });

  it('accepts aliases everywhere', () => {
    expect(loadConfig([...DEV, '--rpc-http-apis=ETH'], {}).rpcHttpApi).toEqual(['ETH']);
    expect(loadConfig(DEV, { ALDER_P2P_PEER_UPPER_BOUND: '0' }).maxPeers).toBe(0);
    expect(loadConfig([...DEV, `--config-file=${toml('rpc-ws-apis=["NET"]')}`], {}).rpcWsApi).toEqual([
      'NET',
    ]);
  });
});

describe('command-line syntax', () => {
  it('accepts booleans as --flag, --flag=true|false and --flag true|false', () => {
    expect(loadConfig([...DEV, '--rpc-http-enabled'], {}).rpcHttpEnabled).toBe(true);
    expect(loadConfig([...DEV, '--rpc-http-enabled=true'], {}).rpcHttpEnabled).toBe(true);
    expect(loadConfig([...DEV, '--p2p-enabled=false'], {}).p2pEnabled).toBe(false);
    expect(loadConfig([...DEV, '--p2p-enabled', 'false'], {}).p2pEnabled).toBe(false);
    expect(loadConfig(['--rpc-http-enabled', '--network', 'dev'], {}).rpcHttpEnabled).toBe(true);
    expect(errorOf(() => loadConfig([...DEV, '--p2p-enabled=maybe'], {})).message).toBe(
      "Invalid value for option '--p2p-enabled': 'maybe' is not a boolean",
    );
  });

  it('splits lists on commas and accumulates repeated options', () => {
    const c = loadConfig(
      [
        ...DEV,
        '--rpc-http-api=ETH,NET',
        '--rpc-http-api',
        'WEB3',
        '--rpc-http-cors-origins=http://a.example',
      ],
      {},
    );
    expect(c.rpcHttpApi).toEqual(['ETH', 'NET', 'WEB3']);
    expect(c.rpcHttpCorsOrigins).toEqual(['http://a.example']);
  });

  it('takes values after a space, and the short -l', () => {
    const c = loadConfig(['--network', 'dev', '--rpc-http-port', '9000', '-l', 'TRACE'], {});
    expect(c.rpcHttpPort).toBe(9000);
    expect(c.logging).toBe('TRACE');
  });

  it('converts typed values', () => {
    const c = loadConfig(
      [
        ...DEV,
        '--miner-coinbase=0xFE3B557E8Fb62b89F4916B721be55cEb828dBd73',
        '--miner-extra-data=0x0102',
        '--min-gas-price=0x3e8',
        '--rpc-http-authentication-jwt-algorithm=es256',
      ],
      {},
    );
    expect(c.minerCoinbase).toBe('0xfe3b557e8fb62b89f4916b721be55ceb828dbd73');
    expect(c.minerExtraData).toEqual(new Uint8Array([1, 2]));
    expect(c.minGasPrice).toBe(1000n);
    expect(c.rpcHttpAuthenticationJwtAlgorithm).toBe('ES256');
  });
});

describe('errors', () => {
  it('unknown option', () => {
    expect(errorOf(() => loadConfig([...DEV, '--rpc-http-prot=1'], {})).message).toMatch(
      /^unknown option '--rpc-http-prot=1'/,
    );
  });

  it('unknown API group, as Besu words it; letters and digits may name a plugin namespace', () => {
    expect(errorOf(() => loadConfig([...DEV, '--rpc-http-api=ETH,FO-O'], {})).message).toBe(
      "Invalid value for option '--rpc-http-api': invalid entries found [FO-O]",
    );
    expect(errorOf(() => loadConfig([...DEV, '--rpc-ws-api=eth,B.AR,x_y'], {})).message).toBe(
      "Invalid value for option '--rpc-ws-api': invalid entries found [B.AR, x_y]",
    );
    // Checked against the loaded plugins' methods when the node starts (test/plugins).
    expect(loadConfig([...DEV, '--rpc-http-api=ETH,hello2'], {}).rpcHttpApi).toEqual(['ETH', 'hello2']);
  });

  it('plugin options from the TOML file come apart, as text, for the plugins to claim', () => {
    const file = toml('rpc-http-port = 7001\nplugin-hello-word = "bye"\nplugin-hello-times = 3\n');
    const c = loadConfig([...DEV, `--config-file=${file}`], {});
    expect(c.rpcHttpPort).toBe(7001);
    expect([...c.pluginFileOptions]).toEqual([
      ['hello-word', 'bye'],
      ['hello-times', '3'],
    ]);
    expect(
      errorOf(() => loadConfig([...DEV, `--config-file=${toml('plugin-x = 1\n')}`], {})).message,
    ).toMatch(/^Unknown option in TOML configuration file .*: plugin-x$/);
  });

  it('bad numbers and enums', () => {
    expect(errorOf(() => loadConfig([...DEV, '--rpc-http-port=abc'], {})).message).toBe(
      "Invalid value for option '--rpc-http-port': 'abc' is not an int",
    );
    expect(errorOf(() => loadConfig([...DEV, '--rpc-http-port=70000'], {})).message).toBe(
      "Invalid value for option '--rpc-http-port': '70000' is not a valid port number (0 to 65535)",
    );
    expect(errorOf(() => loadConfig(DEV, { ALDER_RPC_WS_PORT: 'x' })).message).toBe(
      "Invalid value for option '--rpc-ws-port' (from environment variable ALDER_RPC_WS_PORT): 'x' is not an int",
    );
    expect(errorOf(() => loadConfig([...DEV, '--logging=LOUD'], {})).message).toBe(
      "Invalid value for option '--logging': expected one of [OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL] (case-insensitive) but was 'LOUD'",
    );
    expect(
      errorOf(() => loadConfig([...DEV, `--miner-extra-data=0x${'00'.repeat(33)}`], {})).message,
    ).toMatch(/is longer than 32 bytes$/);
  });

  it('networks', () => {
    expect(errorOf(() => loadConfig(['--network=atlantis'], {})).message).toBe(
      "Invalid value for option '--network': expected one of [DEV] (case-insensitive) but was 'atlantis'",
    );
    expect(errorOf(() => loadConfig(['--network=mainnet'], {})).message).toMatch(
      /network 'mainnet' is not available in Alder/,
    );
    expect(errorOf(() => loadConfig([], {})).message).toMatch(/^No network selected/);
    expect(
      errorOf(() =>
        loadConfig(['--network=dev', '--genesis-file=/work/shared/conformance/rpc-compat/genesis.json'], {}),
      ).message,
    ).toMatch(/can't be used at the same time/);
    expect(errorOf(() => loadConfig(['--genesis-file=/nonexistent/genesis.json'], {})).message).toBe(
      'Genesis file /nonexistent/genesis.json not found',
    );
  });

  it('options that depend on each other', () => {
    expect(errorOf(() => loadConfig([...DEV, '--rpc-http-authentication-enabled'], {})).message).toBe(
      'Unable to authenticate JSON-RPC HTTP endpoint without a supplied credentials file or authentication public key file',
    );
    expect(errorOf(() => loadConfig([...DEV, '--miner-enabled'], {})).message).toMatch(
      /^Unable to mine without a valid coinbase/,
    );
    expect(
      loadConfig(
        [...DEV, '--miner-enabled', '--miner-coinbase=0xfe3b557e8fb62b89f4916b721be55ceb828dbd73'],
        {},
      ).minerEnabled,
    ).toBe(true);
  });
});

describe('README table', () => {
  it('lists every option with its environment variable and default', () => {
    const md = renderOptionsMarkdown();
    for (const o of OPTIONS) expect(md).toContain(`\`${o.name}`);
    expect(md).toContain('| `--rpc-http-port=<PORT>` | `ALDER_RPC_HTTP_PORT` | 8545 |');
    expect(md).toContain('| `--logging=<LOG VERBOSITY LEVEL>` (`-l`) | `ALDER_LOGGING` | INFO |');
    expect(md).toContain('| `--rpc-http-enabled` | `ALDER_RPC_HTTP_ENABLED` | false |');
  });

  it('has one entry per Config field', () => {
    const fields = OPTIONS.map((o) => o.field);
    expect(new Set(fields).size).toBe(fields.length);
    const names = OPTIONS.flatMap((o) => [o.name, ...(o.aliases ?? [])]);
    expect(new Set(names).size).toBe(names.length);
  });
});
