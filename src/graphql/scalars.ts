/**
 * The schema's scalars as Besu reads and writes them: `Long` and `BigInt` are written as hex
 * quantities and read from a JSON number or a decimal or `0x` hex string; byte scalars must carry the
 * `0x` prefix (an odd digit count is padded on the left, as Besu's lenient parser does). Inside the
 * resolvers numbers are `bigint` and bytes `Uint8Array`.
 */
import { GraphQLScalarType, Kind, type ValueNode } from 'graphql';

/** A scalar input that is not of its type; the validation rule words it as Besu does. */
export class ScalarInputError extends Error {
  override name = 'ScalarInputError';
}

const HEX_DIGITS = /^[0-9a-fA-F]*$/;
const DECIMAL = /^[0-9]+$/;
const MAX_LONG = (1n << 64n) - 1n;
const MAX_BIGINT = (1n << 256n) - 1n;

function hexOf(value: Uint8Array): string {
  return `0x${Buffer.from(value.buffer, value.byteOffset, value.length).toString('hex')}`;
}

function quantityOf(value: bigint | number): string {
  return `0x${value.toString(16)}`;
}

/** graphql-java's rendering of a literal, which Besu's messages quote. */
export function literalText(node: ValueNode): string {
  switch (node.kind) {
    case Kind.STRING:
      return `StringValue{value='${node.value}'}`;
    case Kind.INT:
      return `IntValue{value=${node.value}}`;
    case Kind.FLOAT:
      return `FloatValue{value=${node.value}}`;
    case Kind.BOOLEAN:
      return `BooleanValue{value=${node.value}}`;
    case Kind.NULL:
      return 'NullValue{}';
    case Kind.ENUM:
      return `EnumValue{name='${node.value}'}`;
    case Kind.VARIABLE:
      return `VariableReference{name='${node.name.value}'}`;
    default:
      return node.kind;
  }
}

/** `0x…` hex into bytes, a missing leading digit padded; undefined when not hex. */
function lenientHex(text: string): Uint8Array | undefined {
  const digits = text.slice(2);
  if (!HEX_DIGITS.test(digits)) return undefined;
  return Uint8Array.from(Buffer.from(digits.length % 2 === 1 ? `0${digits}` : digits, 'hex'));
}

function hasPrefix(text: string): boolean {
  return text.startsWith('0x') || text.startsWith('0X');
}

/** `pad`: shorter values are padded on the left; `prefixed`: a value without `0x` has its own message. */
type BytesRule = { name: string; size?: number; pad?: boolean; prefixed?: boolean };

/** How Besu quotes a refused input: a literal as graphql-java prints it, a variable value as is. */
function shown(input: unknown, literal: boolean): string {
  return literal && typeof input === 'string' ? `StringValue{value='${input}'}` : String(input);
}

function refusal(name: string, input: unknown, literal: boolean): ScalarInputError {
  const article = /^[AEIOU]/.test(name) ? 'an' : 'a';
  return new ScalarInputError(
    literal
      ? `Value is not any ${name} : '${shown(input, literal)}'`
      : `Unable to parse variable value ${shown(input, literal)} as ${article} ${name}`,
  );
}

function parseBytes(rule: BytesRule, input: unknown, literal: boolean): Uint8Array {
  if (typeof input !== 'string') throw refusal(rule.name, input, literal);
  if (rule.prefixed !== false && !hasPrefix(input)) {
    throw new ScalarInputError(`${rule.name} value '${input}' is not prefixed with 0x`);
  }
  let bytes = hasPrefix(input) ? lenientHex(input) : undefined;
  if (bytes && rule.size !== undefined && bytes.length !== rule.size) {
    if (rule.pad && bytes.length < rule.size) {
      const padded = new Uint8Array(rule.size);
      padded.set(bytes, rule.size - bytes.length);
      bytes = padded;
    } else bytes = undefined;
  }
  if (!bytes) throw refusal(rule.name, input, literal);
  return bytes;
}

function bytesScalar(rule: BytesRule, description: string): GraphQLScalarType<Uint8Array, string> {
  return new GraphQLScalarType<Uint8Array, string>({
    name: rule.name,
    description,
    serialize(value) {
      if (!(value instanceof Uint8Array)) throw new TypeError(`Unable to serialize ${value} as ${rule.name}`);
      if (rule.size !== undefined && value.length < rule.size) {
        const padded = new Uint8Array(rule.size);
        padded.set(value, rule.size - value.length);
        return hexOf(padded);
      }
      return hexOf(value);
    },
    parseValue: (value) => parseBytes(rule, value, false),
    parseLiteral(node) {
      if (node.kind !== Kind.STRING)
        throw new ScalarInputError(`Value is not any ${rule.name} : '${literalText(node)}'`);
      return parseBytes(rule, node.value, true);
    },
  });
}

function parseNumber(name: string, max: bigint, input: unknown, node?: ValueNode): bigint {
  let value: bigint | undefined;
  if (typeof input === 'number' && Number.isSafeInteger(input)) value = BigInt(input);
  else if (typeof input === 'bigint') value = input;
  else if (typeof input === 'string') {
    const text = input.trim();
    if (hasPrefix(text)) {
      const digits = text.slice(2);
      if (digits.length > 0 && HEX_DIGITS.test(digits)) value = BigInt(`0x${digits}`);
    } else if (DECIMAL.test(text)) value = BigInt(text);
  }
  if (value === undefined || value < 0n || value > max) {
    throw new ScalarInputError(
      node
        ? `Value is not any ${name} : '${literalText(node)}'`
        : `Unable to parse variable value ${String(input)} as an ${name}`,
    );
  }
  return value;
}

function numberScalar(name: string, max: bigint, description: string): GraphQLScalarType<bigint, string> {
  return new GraphQLScalarType<bigint, string>({
    name,
    description,
    serialize(value) {
      if (typeof value === 'bigint' || typeof value === 'number') return quantityOf(value);
      throw new TypeError(`Unable to serialize ${value} as an ${name}`);
    },
    parseValue: (value) => parseNumber(name, max, value),
    parseLiteral(node) {
      if (node.kind === Kind.INT || node.kind === Kind.STRING)
        return parseNumber(name, max, node.value, node);
      throw new ScalarInputError(`Value is not any ${name} : '${literalText(node)}'`);
    },
  });
}

export const scalars = {
  Address: bytesScalar({ name: 'Address', size: 20, prefixed: false }, 'A 20-byte address'),
  BigInt: numberScalar('BigInt', MAX_BIGINT, 'An unsigned integer of up to 256 bits'),
  Bytes: bytesScalar({ name: 'Bytes' }, 'Bytes of any length'),
  Bytes32: bytesScalar({ name: 'Bytes32', size: 32, pad: true }, '32 bytes'),
  Hash: bytesScalar({ name: 'Hash', size: 32, pad: true }, 'A 32-byte hash'),
  LogTopic: bytesScalar({ name: 'LogTopic', size: 32, pad: true }, 'A 32-byte log topic'),
  Long: numberScalar('Long', MAX_LONG, 'A 64-bit unsigned integer'),
  VersionedHash: bytesScalar({ name: 'VersionedHash', size: 32, pad: true }, 'A 32-byte versioned hash'),
};
