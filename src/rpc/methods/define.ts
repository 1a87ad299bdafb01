/**
 * Declarative methods: a method lists its parameters as an ordered list of parameter specs, each a
 * decoder from `rpc/params.ts` (or a composite one from `rpc/params/`) with the error Besu words for
 * that parameter of that method. `defineMethod` decodes them before the handler runs, so the handler
 * receives typed values and never touches the raw `params` array.
 *
 * Besu decodes a method's parameters in the order its handler asks for them, and the first failure
 * is the answer. Most methods read them left to right; where Besu reads a later one first (eth_call
 * reads the block before the call object), `order` says so; where Besu reads one only after a domain
 * step (after the block was looked up), `deferred` hands the handler a function that decodes it then;
 * a method that exists only where a service runs checks that first (`requires`).
 */
import { INVALID_PARAM_COUNT, RpcError, type RpcErrorSpec } from '../errors.js';
import type { Decoder } from '../params.js';
import type { ApiGroup, MethodContext, RpcMethod } from './types.js';

/** One parameter: how to read position `index` of the raw `params` array. */
export interface ParamSpec<T> {
  decode(params: readonly unknown[], index: number): T;
}

/** The handler's argument tuple for a list of specs. */
export type DecodedParams<S extends readonly ParamSpec<unknown>[]> = {
  -readonly [K in keyof S]: S[K] extends ParamSpec<infer T> ? T : never;
};

const isAbsent = (value: unknown): boolean => value === undefined || value === null;

/** A required parameter: absent, null or malformed answers `error` (default: the decoder's). */
export function required<T>(decode: Decoder<T>, error?: RpcErrorSpec): ParamSpec<T> {
  const err = error ?? decode.defaultError;
  return { decode: (params, index) => decode(params[index], err) };
}

/** An optional parameter: absent or null gives undefined; anything else must decode. */
export function optional<T>(decode: Decoder<T>, error?: RpcErrorSpec): ParamSpec<T | undefined> {
  const err = error ?? decode.defaultError;
  return {
    decode: (params, index) => {
      const value = params[index];
      return isAbsent(value) ? undefined : decode(value, err);
    },
  };
}

/** An optional parameter with a default for when it is absent or null. */
export function withDefault<T>(decode: Decoder<T>, fallback: T, error?: RpcErrorSpec): ParamSpec<T> {
  const err = error ?? decode.defaultError;
  return {
    decode: (params, index) => {
      const value = params[index];
      return isAbsent(value) ? fallback : decode(value, err);
    },
  };
}

/** The raw JSON value, for the few methods whose parameter is read by a service (eth_subscribe). */
export const raw: ParamSpec<unknown> = { decode: (params, index) => params[index] };

/**
 * A parameter Besu reads only after a domain step: the handler receives a function that decodes it
 * (once) when called, so an earlier domain error (an unknown block) wins over a malformed value.
 */
export function deferred<T>(spec: ParamSpec<T>): ParamSpec<() => T> {
  return {
    decode: (params, index) => {
      let done = false;
      let value: T;
      return () => {
        if (!done) {
          value = spec.decode(params, index);
          done = true;
        }
        return value;
      };
    },
  };
}

export interface MethodDefinition<S extends readonly ParamSpec<unknown>[]> {
  name: string;
  group: ApiGroup;
  /** The parameters, by position. */
  params: S;
  /** Positions in the order Besu decodes them (default: left to right). */
  order?: readonly number[];
  /** Exact number of parameters Besu requires before reading any (`Invalid number of params`). */
  arity?: number;
  /** Error for a wrong `arity` (default `Invalid number of params`). */
  arityError?: RpcErrorSpec;
  /**
   * A check that runs before any parameter is decoded, for methods that answer only where a service
   * runs (no miner, no Clique, no pool): its error wins over a malformed parameter.
   */
  requires?(ctx: MethodContext): void;
  handler(args: DecodedParams<S>, ctx: MethodContext): unknown;
}

/** A declared method with its parameter list kept for introspection (tests, documentation). */
export interface DeclaredMethod extends RpcMethod {
  readonly params: readonly ParamSpec<unknown>[];
}

/** Builds an `RpcMethod` whose raw handler decodes the declared parameters, then calls `handler`. */
export function defineMethod<const S extends readonly ParamSpec<unknown>[]>(
  def: MethodDefinition<S>,
): DeclaredMethod {
  const specs = def.params;
  const count = specs.length;
  const order = def.order ?? specs.map((_, i) => i);
  if (order.length !== count || new Set(order).size !== count || order.some((i) => !(i in specs)))
    throw new Error(`${def.name}: order must list each parameter position once`);
  const arity = def.arity;
  const arityError = def.arityError ?? INVALID_PARAM_COUNT;
  const run = def.handler;
  const requires = def.requires;
  let decode: (params: readonly unknown[]) => DecodedParams<S>;
  if (count === 0) {
    const none = [] as unknown as DecodedParams<S>;
    decode = () => none;
  } else {
    decode = (params) => {
      const args = new Array(count);
      for (const i of order) args[i] = (specs[i] as ParamSpec<unknown>).decode(params, i);
      return args as DecodedParams<S>;
    };
  }
  return {
    name: def.name,
    group: def.group,
    params: specs,
    handler(params, ctx) {
      if (requires !== undefined) requires(ctx);
      if (arity !== undefined && params.length !== arity) throw new RpcError(arityError);
      return run(decode(params), ctx);
    },
  };
}
