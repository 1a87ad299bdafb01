/**
 * `alder rlp encode|decode --type=IBFT_EXTRA_DATA|QBFT_EXTRA_DATA`: a JSON array of validator
 * addresses to the genesis extraData of IBFT 2.0 or QBFT (32 zero bytes of vanity, the validators,
 * no vote, round 0, no seals), and such extraData back to its validator list, as Besu's `rlp`
 * command does. Input comes from `--from` or standard input, output goes to `--to` or standard output.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { bytesToHex } from '@ethereumjs/util';
import { ConfigError } from '../config/errors.js';
import {
  BftExtraDataError,
  type BftVariant,
  decodeExtraData,
  genesisExtraData,
} from '../consensus/bft/extraData.js';

export const RLP_TYPES = ['IBFT_EXTRA_DATA', 'QBFT_EXTRA_DATA'] as const;

export interface RlpOptions {
  type?: string;
  from?: string;
  to?: string;
}

function variantOf(type: string | undefined): BftVariant {
  const t = type ?? 'IBFT_EXTRA_DATA';
  if (t === 'IBFT_EXTRA_DATA') return 'ibft2';
  if (t === 'QBFT_EXTRA_DATA') return 'qbft';
  throw new ConfigError(
    `Invalid value for option '--type': expected one of [${RLP_TYPES.join(', ')}] (case-sensitive) but was '${t}'`,
  );
}

function readStdin(): string {
  try {
    return readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

/** The extraData hex for the JSON array of addresses read from `--from` or `stdin`. */
export function rlpEncode(opts: RlpOptions, stdin: () => string = readStdin): string {
  const variant = variantOf(opts.type);
  let json: string;
  if (opts.from) {
    try {
      json = readFileSync(opts.from, 'utf8').split(/\r?\n/).join('');
    } catch {
      throw new ConfigError('Unable to read JSON file.');
    }
  } else
    json = stdin()
      .split(/\r?\n/)
      .map((line) => line.replace(/\s/g, ''))
      .join('');
  if (json.length === 0) throw new ConfigError('An error occurred while trying to read the JSON data.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw new ConfigError(
      `Unable to load the JSON data. Please check JSON input format. ${(err as Error).message}`,
    );
  }
  const addresses = Array.isArray(parsed) ? parsed : undefined;
  const bad = (what: string) =>
    new ConfigError(
      `Unable to map the JSON data with selected type. Please check JSON input format. ${what}`,
    );
  if (!addresses) throw bad('expected an array of addresses');
  const validators = addresses.map((a) => {
    if (typeof a !== 'string') throw bad(`${JSON.stringify(a)} is not an address`);
    const body = a.startsWith('0x') || a.startsWith('0X') ? a.slice(2) : a;
    if (!/^[0-9a-fA-F]{0,40}$/.test(body)) throw bad(`${a} is not an address`);
    return `0x${body.toLowerCase().padStart(40, '0')}`;
  });
  const out = bytesToHex(genesisExtraData(variant, validators));
  if (opts.to) {
    writeFileSync(opts.to, out);
    return '';
  }
  return `${out}\n`;
}

/** The validator list (`[0x…, 0x…]`) of the extraData read from `--from` or `stdin` (first line). */
export function rlpDecode(opts: RlpOptions, stdin: () => string = readStdin): string {
  const variant = variantOf(opts.type);
  let input: string;
  if (opts.from) {
    try {
      input = readFileSync(opts.from, 'utf8').split(/\r?\n/)[0] ?? '';
    } catch {
      throw new ConfigError('Unable to read input file.');
    }
  } else {
    const text = stdin();
    if (text.length === 0) throw new ConfigError('Unable to read input data.');
    input = text.split(/\r?\n/)[0] ?? '';
  }
  if (input.length === 0) throw new ConfigError('An error occurred while trying to read the input data.');
  const body = input.trim().replace(/^0[xX]/, '');
  if (!/^([0-9a-fA-F]{2})*$/.test(body))
    throw new ConfigError('Unable to load the input data. Please check input format. not a hex string');
  let validators: string[];
  try {
    validators = decodeExtraData(variant, new Uint8Array(Buffer.from(body, 'hex'))).validators;
  } catch (err) {
    if (err instanceof BftExtraDataError)
      throw new ConfigError(`Unable to load the input data. Please check input format. ${err.message}`);
    throw err;
  }
  const out = `[${validators.join(', ')}]`;
  if (opts.to) {
    writeFileSync(opts.to, out);
    return '';
  }
  return `${out}\n`;
}
