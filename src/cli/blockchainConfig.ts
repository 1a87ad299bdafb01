/**
 * `alder operator generate-blockchain-config`: from a JSON file `{genesis: {...}, blockchain: {nodes:
 * {generate: true, count: N} | {keys: ["0x<public key>", ...]}}}` it writes, as Besu does, one folder
 * per node named by its address under `<to>/keys/` holding the public key (and, for generated keys,
 * the private key), and `<to>/genesis.json` — the given genesis with `extraData` listing the nodes as
 * validators when it configures `ibft2` or `qbft`. The genesis keeps the file's key order and numbers
 * exactly as written, pretty-printed the way Besu prints it.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from '@ethereumjs/util';
import { ConfigError } from '../config/errors.js';
import { type BftVariant, genesisExtraData } from '../consensus/bft/extraData.js';
import { addressOfPublicKey } from '../consensus/bft/hashing.js';
import { publicKeyOf } from '../crypto/index.js';

export interface BlockchainConfigOptions {
  configFile: string;
  to: string;
  genesisFileName?: string;
  privateKeyFileName?: string;
  publicKeyFileName?: string;
}

export interface BlockchainConfigSummary {
  genesisFile: string;
  keysDir: string;
  /** Node addresses in the order written (the validators of the genesis extraData). */
  addresses: string[];
  consensus: BftVariant | undefined;
}

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** A JSON number kept as written (chain ids, balances and difficulties may exceed 2^53). */
class JsonNumber {
  constructor(readonly text: string) {}
}
type Json = null | boolean | string | JsonNumber | Json[] | { [key: string]: Json };

export function generateBlockchainConfig(opts: BlockchainConfigOptions): BlockchainConfigSummary {
  const genesisFileName = opts.genesisFileName ?? 'genesis.json';
  const privateKeyFileName = opts.privateKeyFileName ?? 'key.priv';
  const publicKeyFileName = opts.publicKeyFileName ?? 'key.pub';
  const names = [genesisFileName, publicKeyFileName, privateKeyFileName];
  if (new Set(names).size !== names.length) throw new ConfigError('Output file paths must be unique.');

  let text: string;
  try {
    text = readFileSync(opts.configFile, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `Unable to read the configuration file ${opts.configFile}: ${(err as Error).message}`,
    );
  }
  let root: Json;
  try {
    root = parseJson(text);
  } catch (err) {
    throw new ConfigError(
      `Configuration file ${opts.configFile} is not valid JSON: ${(err as Error).message}`,
    );
  }
  if (!isObject(root))
    throw new ConfigError(`Configuration file ${opts.configFile} does not hold a JSON object`);
  const genesis = objectAt(root, 'genesis') ?? {};
  const nodes = objectAt(objectAt(root, 'blockchain') ?? {}, 'nodes') ?? {};
  const config = objectAt(genesis, 'config');
  if (!config) throw new ConfigError('Missing config section in config file');
  const consensus = bftVariantOf(config);

  const generate = nodes.generate === true;
  const publicKeys: Uint8Array[] = [];
  const privateKeys: Array<Uint8Array | undefined> = [];
  if (generate) {
    const count = nodes.count instanceof JsonNumber ? Number(nodes.count.text) : 0;
    if (!Number.isSafeInteger(count) || count < 0)
      throw new ConfigError('blockchain.nodes.count must be a non-negative integer');
    for (let i = 0; i < count; i++) {
      const key = newPrivateKey();
      privateKeys.push(key);
      publicKeys.push(publicKeyOf(key).subarray(1));
    }
  } else {
    const keys = nodes.keys;
    for (const k of Array.isArray(keys) ? keys : []) {
      if (typeof k !== 'string') throw new ConfigError(`Invalid key json of type: ${jsonType(k)}`);
      publicKeys.push(parsePublicKey(k));
      privateKeys.push(undefined);
    }
  }

  prepareOutputDirectory(opts.to);
  const keysDir = join(opts.to, 'keys');
  mkdirSync(keysDir);
  const addresses: string[] = [];
  publicKeys.forEach((pub, i) => {
    const address = addressOfPublicKey(pub);
    addresses.push(address);
    const dir = join(keysDir, address);
    mkdirSync(dir);
    writeFileSync(join(dir, publicKeyFileName), bytesToHex(pub), { flag: 'wx' });
    const priv = privateKeys[i];
    if (priv) writeFileSync(join(dir, privateKeyFileName), bytesToHex(priv), { flag: 'wx', mode: 0o600 });
  });
  if (consensus) genesis.extraData = bytesToHex(genesisExtraData(consensus, addresses));
  const genesisFile = join(opts.to, genesisFileName);
  writeFileSync(genesisFile, printJson(genesis), { flag: 'wx' });
  return { genesisFile, keysDir, addresses, consensus };
}

function prepareOutputDirectory(dir: string): void {
  if (existsSync(dir)) {
    if (statSync(dir).isDirectory() && readdirSync(dir).length > 0)
      throw new ConfigError('Output directory already exists.');
    if (!statSync(dir).isDirectory()) throw new ConfigError(`Output directory ${dir} is a file`);
    return;
  }
  try {
    mkdirSync(dir);
  } catch (err) {
    throw new ConfigError(`Unable to create the output directory ${dir}: ${(err as Error).message}`);
  }
}

function newPrivateKey(): Uint8Array {
  for (;;) {
    const key = new Uint8Array(randomBytes(32));
    const n = BigInt(bytesToHex(key));
    if (n > 0n && n < SECP256K1_N) return key;
  }
}

/** A 64-byte public key (x ‖ y) from hex, checked to lie on secp256k1. */
function parsePublicKey(text: string): Uint8Array {
  const hex = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text;
  const bad = () => new ConfigError(`${text} is not a valid public key for elliptic curve secp256k1`);
  if (!/^[0-9a-fA-F]{128}$/.test(hex)) throw bad();
  const key = new Uint8Array(Buffer.from(hex, 'hex'));
  const p = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
  const x = BigInt(`0x${hex.slice(0, 64)}`);
  const y = BigInt(`0x${hex.slice(64)}`);
  if (x >= p || y >= p || (y * y - (x * x * x + 7n)) % p !== 0n) throw bad();
  return key;
}

/** The BFT consensus a genesis `config` names (keys compared case-insensitively, as Besu reads them). */
function bftVariantOf(config: { [key: string]: Json }): BftVariant | undefined {
  const keys = Object.keys(config).map((k) => k.toLowerCase());
  if (keys.includes('ibft2')) return 'ibft2';
  if (keys.includes('qbft')) return 'qbft';
  return undefined;
}

function isObject(v: Json | undefined): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}

function objectAt(o: { [key: string]: Json }, key: string): { [key: string]: Json } | undefined {
  const found = Object.keys(o).find((k) => k.toLowerCase() === key);
  const v = found === undefined ? undefined : o[found];
  return isObject(v) ? v : undefined;
}

function jsonType(v: Json): string {
  if (v === null) return 'NULL';
  if (Array.isArray(v)) return 'ARRAY';
  if (v instanceof JsonNumber) return 'NUMBER';
  if (typeof v === 'boolean') return 'BOOLEAN';
  return 'OBJECT';
}

/** JSON with numbers kept as their source text. */
function parseJson(text: string): Json {
  let at = 0;
  const ws = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at] as string)) at++;
  };
  const fail = (what: string): never => {
    throw new Error(`${what} at position ${at}`);
  };
  const value = (): Json => {
    ws();
    const c = text[at];
    if (c === '{') {
      at++;
      const out: { [key: string]: Json } = {};
      ws();
      if (text[at] === '}') {
        at++;
        return out;
      }
      for (;;) {
        ws();
        if (text[at] !== '"') fail('expected a key');
        const key = string();
        ws();
        if (text[at++] !== ':') fail('expected a colon');
        out[key] = value();
        ws();
        const sep = text[at++];
        if (sep === '}') return out;
        if (sep !== ',') fail('expected a comma or a closing brace');
      }
    }
    if (c === '[') {
      at++;
      const out: Json[] = [];
      ws();
      if (text[at] === ']') {
        at++;
        return out;
      }
      for (;;) {
        out.push(value());
        ws();
        const sep = text[at++];
        if (sep === ']') return out;
        if (sep !== ',') fail('expected a comma or a closing bracket');
      }
    }
    if (c === '"') return string();
    const lit = /^(true|false|null)/.exec(text.slice(at, at + 5));
    if (lit) {
      at += (lit[1] as string).length;
      return lit[1] === 'null' ? null : lit[1] === 'true';
    }
    const num = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at));
    if (num) {
      at += num[0].length;
      return new JsonNumber(num[0]);
    }
    return fail('unexpected character');
  };
  const string = (): string => {
    const start = at;
    at++;
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    if (at >= text.length) fail('unterminated string');
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const v = value();
  ws();
  if (at !== text.length) fail('trailing characters');
  return v;
}

/** Pretty-printed as Besu writes JSON: two-space indents, `"key" : value`, arrays on one line. */
function printJson(v: Json, depth = 0): string {
  if (v === null) return 'null';
  if (v instanceof JsonNumber) return v.text;
  if (typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return v.length === 0 ? '[ ]' : `[ ${v.map((x) => printJson(x, depth)).join(', ')} ]`;
  const keys = Object.keys(v);
  if (keys.length === 0) return '{ }';
  const pad = '  '.repeat(depth + 1);
  const body = keys.map((k) => `${pad}${JSON.stringify(k)} : ${printJson(v[k] as Json, depth + 1)}`);
  return `{\n${body.join(',\n')}\n${'  '.repeat(depth)}}`;
}
