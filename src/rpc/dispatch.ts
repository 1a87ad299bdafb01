/**
 * The JSON-RPC 2.0 envelope as Besu handles it (besu-facts.md §1.3): parsing, single and batch requests,
 * notifications, id rules, method resolution (-32601 unknown / -32604 disabled), the permission check,
 * error mapping and the HTTP status of the answer. HTTP, WebSocket and the engine port share it; the
 * few WebSocket differences follow `ctx.transport`.
 *
 * Responses are built as strings: the envelope by concatenation, the result with one JSON.stringify.
 * Handlers therefore return JSON-ready values (hex strings, plain objects, arrays, booleans, null), or
 * a `RawJson` whose text is used as it is.
 */

import { TraceReaderGone } from '../execution/tracers/sink.js';
import {
  ETH_SEND_TX_NOT_AVAILABLE,
  EXCEEDS_RPC_MAX_BATCH_SIZE,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  logInternalError,
  METHOD_NOT_ENABLED,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  RpcError,
  type RpcErrorObject,
  type RpcErrorSpec,
  toErrorObject,
  UNAUTHORIZED,
} from './errors.js';
import { exceedsJsonLimits } from './jsonLimits.js';
import { isKnownMethodName } from './method-names.js';
import type { ApiGroup, AuthenticatedUser, MethodContext, RpcMethod } from './methods/types.js';
import { isAscii, RawJson } from './rawJson.js';
import type { Services } from './services.js';
import { HOLD_CHARS, StreamingResult, type StreamWrite } from './streaming.js';

export interface DispatchContext extends MethodContext {
  services: Services;
  user?: AuthenticatedUser;
  transport: 'http' | 'ws' | 'engine';
  /** Authentication is on: without `permit`, a request with no user is refused with -40100. */
  authRequired?: boolean;
  /** Permission check for the resolved method (auth on); false answers -40100 `Unauthorized`. */
  permit?: (method: RpcMethod) => boolean;
}

/**
 * `body` undefined means nothing is sent (a notification; over HTTP: 200 with an empty body).
 * `bareBody` marks the answers Besu writes without a `Content-Type` header (parse-stage errors).
 */
export interface DispatchResult {
  status: number;
  body: string | undefined;
  bareBody?: boolean;
  /** `body` holds only ASCII characters (its length is its byte length). */
  ascii?: boolean;
  /**
   * A batch answered piece by piece (only when the caller asked for streaming): `write` receives the
   * answer's text in order; awaiting what it returns is the caller's back-pressure. Set instead of
   * `body`, so a batch of large answers never sits in memory whole.
   */
  stream?: (write: (text: string) => Promise<void> | undefined) => Promise<void>;
}

export interface DispatcherOptions {
  methods: readonly RpcMethod[];
  /** API groups, and plugin namespaces that enable plugin methods. */
  enabledGroups: readonly string[];
  /** Largest HTTP batch; 0 or less is unlimited. Not applied over WebSocket. */
  maxBatchSize: number;
  /** Methods served whatever the enabled groups (Besu's WS subscription methods). */
  alwaysEnabled?: readonly RpcMethod[];
}

export interface Dispatcher {
  handle(body: string, ctx: DispatchContext): Promise<DispatchResult>;
  /**
   * Same as `handle`, but synchronous when every handler involved is (the servers' hot path). With
   * `stream`, a batch is answered through `DispatchResult.stream`.
   */
  dispatch(
    body: string,
    ctx: DispatchContext,
    opts?: { stream?: boolean },
  ): DispatchResult | Promise<DispatchResult>;
  /** The method a name resolves to when its group is enabled (rpc_modules included). */
  resolve(name: string): RpcMethod | undefined;
  /** The enabled groups as rpc_modules reports them. */
  readonly modules: Readonly<Record<string, string>>;
}

/** A response that is an error, with the code that decides its HTTP status. */
class ErrorAnswer {
  constructor(
    readonly text: string,
    readonly code: number,
  ) {}
}

/** A success whose result is written as it is produced (`StreamingResult`). */
class StreamAnswer {
  constructor(
    readonly idJson: string,
    readonly result: StreamingResult,
    readonly name: string,
  ) {}

  /**
   * Writes the whole response object after `prefix`. The first HOLD_CHARS are held back so that a
   * failure early on is still answered with an error object; later, a failure rejects (the caller
   * cuts the connection).
   */
  async writeTo(write: StreamWrite, prefix = ''): Promise<void> {
    let held = `${prefix}${HEAD}${this.idJson},"result":`;
    let committed = false;
    const w: StreamWrite = (text) => {
      if (committed) return write(text);
      held += text;
      if (held.length < HOLD_CHARS) return undefined;
      committed = true;
      const out = held;
      held = '';
      return write(out);
    };
    try {
      await this.result.produce(w);
    } catch (err) {
      const cause = err instanceof TraceReaderGone ? err.reason : err;
      if (committed) throw cause;
      const answer = errorAnswer(this.idJson, toErrorObject(cause, this.name));
      const wrote = write(`${prefix}${answer.text}`);
      if (wrote !== undefined) await wrote;
      return;
    }
    const wrote = write(committed ? '}' : `${held}}`);
    if (wrote !== undefined) await wrote;
  }

  /** The whole response text. */
  async collect(): Promise<string> {
    let out = '';
    await this.writeTo((t) => {
      out += t;
      return undefined;
    });
    return out;
  }
}

/** A success whose whole text is known to be ASCII (see `RawJson.ascii`). */
class AsciiAnswer {
  constructor(readonly text: string) {}
}

/** What one request produces: a success text, an error, a streamed success, or nothing (notification). */
type Answer = string | AsciiAnswer | ErrorAnswer | StreamAnswer | undefined;

const HEAD = '{"jsonrpc":"2.0","id":';
const ID_NULL_HEAD = '{"jsonrpc":"2.0","id":null,"error":';

function errorMemberJson(error: RpcErrorObject): string {
  let out = `{"code":${error.code},"message":${JSON.stringify(error.message)}`;
  if (error.data !== undefined && error.data !== null) out += `,"data":${JSON.stringify(error.data)}`;
  return `${out}}`;
}

function errorAnswer(idJson: string, error: RpcErrorObject): ErrorAnswer {
  return new ErrorAnswer(`${HEAD}${idJson},"error":${errorMemberJson(error)}}`, error.code);
}

function fixedError(spec: RpcErrorSpec): ErrorAnswer {
  return new ErrorAnswer(`${ID_NULL_HEAD}${errorMemberJson(spec)}}`, spec.code);
}

const PARSE_ERROR_ANSWER = fixedError(PARSE_ERROR);
const INVALID_REQUEST_ANSWER = fixedError(INVALID_REQUEST);
const INTERNAL_ERROR_ANSWER = fixedError(INTERNAL_ERROR);
const BATCH_TOO_LARGE_ANSWER = fixedError(EXCEEDS_RPC_MAX_BATCH_SIZE);
const EMPTY_PARAMS: readonly unknown[] = Object.freeze([]);
/** Longest a batch runs synchronous methods back to back before letting other work in. */
const BATCH_SLICE_MS = 10;

/** HTTP status of a single (non-batch) answer. */
function statusOf(answer: Answer): number {
  if (!(answer instanceof ErrorAnswer)) return 200;
  const code = answer.code;
  if (code === -32700 || code === -32600) return 400;
  if (code === UNAUTHORIZED.code) return 401;
  return 200;
}

/** Java `Number.intValue()`: how Besu echoes a numeric id on an invalid request. */
function javaIntValue(n: number): number {
  if (Number.isInteger(n)) return Number(BigInt.asIntN(32, BigInt(n)));
  if (Number.isNaN(n)) return 0;
  return Math.max(-2147483648, Math.min(2147483647, Math.trunc(n)));
}

/**
 * A numeric id as Besu echoes it. A literal beyond a double's range (`1e400`) is read as an infinite
 * double, which Besu's JSON writer quotes (`"Infinity"`, `"-Infinity"`): the answer stays JSON.
 */
function numberIdJson(id: number): string {
  return Number.isFinite(id) ? String(id) : id > 0 ? '"Infinity"' : '"-Infinity"';
}

/** Java HashMap iteration order for string keys (small maps, no tree bins), as Besu's rpc_modules map has. */
function javaHashMapOrder(keys: readonly string[]): string[] {
  const hashOf = (s: string): number => {
    let h = 0;
    for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
    return h ^ (h >>> 16);
  };
  let capacity = 16;
  while (keys.length > capacity * 0.75) capacity *= 2;
  return keys
    .map((key, index) => ({ key, index, bucket: hashOf(key) & (capacity - 1) }))
    .sort((a, b) => a.bucket - b.bucket || a.index - b.index)
    .map((e) => e.key);
}

export function createDispatcher(opts: DispatcherOptions): Dispatcher {
  const enabled = new Set<string>(opts.enabledGroups);
  const prefixes = opts.enabledGroups.map((g) => g.toUpperCase());
  const isEnabled = (method: RpcMethod): boolean =>
    method.plugin ? prefixes.some((p) => method.name.toUpperCase().startsWith(p)) : enabled.has(method.group);
  const table = new Map<string, RpcMethod>();
  const registeredNames = new Set<string>();
  for (const method of opts.methods) {
    registeredNames.add(method.name);
    // A method may be registered under several groups (plugins_reloadPluginConfig: ADMIN and PLUGINS).
    if (isEnabled(method) && !table.has(method.name)) table.set(method.name, method);
  }
  for (const method of opts.alwaysEnabled ?? []) {
    registeredNames.add(method.name);
    table.set(method.name, method);
  }

  // eth_sendTransaction exists only to refuse (Alder holds no keys), with its own -32604 message.
  if (enabled.has('ETH') && !registeredNames.has('eth_sendTransaction')) {
    const ethSendTransaction: RpcMethod = {
      name: 'eth_sendTransaction',
      group: 'ETH',
      handler() {
        throw new RpcError(ETH_SEND_TX_NOT_AVAILABLE);
      },
    };
    table.set(ethSendTransaction.name, ethSendTransaction);
  }

  // rpc_modules is always there when any group is enabled: { "<group lowercase>": "1.0" } in the order of
  // Besu's HashMap. It has no group of its own; permission strings derive from its name (`rpc:*`).
  const moduleNames = javaHashMapOrder([...new Set(opts.enabledGroups.map((g) => g.toLowerCase()))]);
  const modules: Record<string, string> = {};
  for (const name of moduleNames) modules[name] = '1.0';
  Object.freeze(modules);
  if (opts.enabledGroups.length > 0 && !table.has('rpc_modules')) {
    const rpcModules: RpcMethod = {
      name: 'rpc_modules',
      group: opts.enabledGroups[0] as ApiGroup,
      handler: () => modules,
    };
    table.set(rpcModules.name, rpcModules);
  }

  const isKnown = (name: string): boolean => registeredNames.has(name) || isKnownMethodName(name);

  function finishResult(idJson: string, result: unknown, name: string): Answer {
    if (result instanceof StreamingResult) return new StreamAnswer(idJson, result, name);
    if (result instanceof RawJson) {
      const text = `${HEAD}${idJson},"result":${result.json}}`;
      return result.ascii && isAscii(idJson) ? new AsciiAnswer(text) : text;
    }
    let json: string | undefined;
    try {
      json = JSON.stringify(result);
    } catch (err) {
      logInternalError(err, name);
      return errorAnswer(idJson, INTERNAL_ERROR);
    }
    return `${HEAD}${idJson},"result":${json === undefined ? 'null' : json}}`;
  }

  function finishError(idJson: string, err: unknown, name: string): Answer {
    return errorAnswer(idJson, toErrorObject(err, name));
  }

  /** One request object (or batch element). Synchronous when the handler is. */
  function processRequest(request: unknown, ctx: DispatchContext): Answer | Promise<Answer> {
    if (typeof request !== 'object' || request === null || Array.isArray(request))
      return INVALID_REQUEST_ANSWER;
    const req = request as Record<string, unknown>;
    const id = req.id;
    const method = req.method;
    const params = req.params;

    // Besu maps the object onto its request class first; any mismatch is -32600, with the id echoed
    // only when it is a number (as a Java int).
    const idOk = id === undefined || id === null || typeof id === 'string' || typeof id === 'number';
    const methodOk = typeof method === 'string' || typeof method === 'number' || typeof method === 'boolean';
    const paramsOk = params === undefined || params === null || Array.isArray(params);
    if (!idOk || !methodOk || !paramsOk) {
      return typeof id === 'number'
        ? errorAnswer(String(javaIntValue(id)), INVALID_REQUEST)
        : INVALID_REQUEST_ANSWER;
    }
    // No id member at all: a notification, never answered (not even when it names an unknown method).
    if (id === undefined) return undefined;
    const idJson = typeof id === 'string' ? JSON.stringify(id) : id === null ? 'null' : numberIdJson(id);

    const name = typeof method === 'string' ? method : String(method);
    const target = table.get(name);
    if (target === undefined)
      return errorAnswer(idJson, isKnown(name) ? METHOD_NOT_ENABLED : METHOD_NOT_FOUND);

    const allowed =
      ctx.permit !== undefined ? ctx.permit(target) : !(ctx.authRequired && ctx.user === undefined);
    if (!allowed) return errorAnswer(idJson, UNAUTHORIZED);

    let out: unknown;
    try {
      out = target.handler((params as unknown[] | null | undefined) ?? EMPTY_PARAMS, ctx);
    } catch (err) {
      return finishError(idJson, err, name);
    }
    if (out instanceof Promise) {
      return out.then(
        (result) => finishResult(idJson, result, name),
        (err) => finishError(idJson, err, name),
      );
    }
    return finishResult(idJson, out, name);
  }

  async function processBatch(batch: unknown[], ctx: DispatchContext): Promise<string> {
    let out = '';
    await streamBatch(batch, ctx, (text) => {
      out += text;
      return undefined;
    });
    return out;
  }

  async function streamBatch(
    batch: unknown[],
    ctx: DispatchContext,
    write: (text: string) => Promise<void> | undefined,
  ): Promise<void> {
    // Sequential, in order; notifications leave no entry. A long batch of synchronous methods gives
    // other clients a turn every few milliseconds instead of holding the event loop to the end.
    let first = true;
    const opened = write('[');
    if (opened !== undefined) await opened;
    let sliceStart = performance.now();
    for (const element of batch) {
      let answer = processRequest(element, ctx);
      if (answer instanceof Promise) {
        answer = await answer;
        sliceStart = performance.now();
      } else if (performance.now() - sliceStart > BATCH_SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      if (answer === undefined) continue;
      if (answer instanceof StreamAnswer) {
        await answer.writeTo(write, first ? '' : ',');
        first = false;
        continue;
      }
      const text = typeof answer === 'string' ? answer : answer.text;
      const wrote = write(first ? text : `,${text}`);
      first = false;
      if (wrote !== undefined) await wrote;
    }
    const closed = write(']');
    if (closed !== undefined) await closed;
  }

  function single(answer: Answer, stream?: boolean): DispatchResult | Promise<DispatchResult> {
    if (answer === undefined) return { status: 200, body: undefined };
    if (answer instanceof StreamAnswer) {
      if (stream === true) return { status: 200, body: undefined, stream: (write) => answer.writeTo(write) };
      return answer.collect().then((body) => ({ status: 200, body }));
    }
    if (answer instanceof AsciiAnswer) return { status: 200, body: answer.text, ascii: true };
    return { status: statusOf(answer), body: typeof answer === 'string' ? answer : answer.text };
  }

  function bare(answer: ErrorAnswer): DispatchResult {
    return { status: statusOf(answer), body: answer.text, bareBody: true };
  }

  function dispatch(
    body: string,
    ctx: DispatchContext,
    dispatchOpts?: { stream?: boolean },
  ): DispatchResult | Promise<DispatchResult> {
    const ws = ctx.transport === 'ws';
    let parsed: unknown;
    try {
      // Depth, number length and value count are bounded before the tree is built.
      if (exceedsJsonLimits(body) !== undefined) throw new SyntaxError('JSON limits exceeded');
      parsed = JSON.parse(body);
    } catch {
      // WebSocket: an empty frame is -32600, any other unparsable text -32603.
      if (ws) return single(body.trim() === '' ? INVALID_REQUEST_ANSWER : INTERNAL_ERROR_ANSWER);
      return bare(PARSE_ERROR_ANSWER);
    }
    if (typeof parsed !== 'object' || parsed === null) {
      return ws ? single(INTERNAL_ERROR_ANSWER) : bare(PARSE_ERROR_ANSWER);
    }
    if (Array.isArray(parsed)) {
      if (parsed.length === 0) return ws ? single(INVALID_REQUEST_ANSWER) : bare(INVALID_REQUEST_ANSWER);
      if (!ws && opts.maxBatchSize > 0 && parsed.length > opts.maxBatchSize) {
        // A single error object, not an array, with HTTP 200.
        return { status: 200, body: BATCH_TOO_LARGE_ANSWER.text };
      }
      if (dispatchOpts?.stream === true) {
        const batch = parsed;
        return { status: 200, body: undefined, stream: (write) => streamBatch(batch, ctx, write) };
      }
      return processBatch(parsed, ctx).then((text) => ({ status: 200, body: text }));
    }
    const answer = processRequest(parsed, ctx);
    const stream = dispatchOpts?.stream;
    return answer instanceof Promise ? answer.then((a) => single(a, stream)) : single(answer, stream);
  }

  return {
    handle: async (body, ctx) => dispatch(body, ctx),
    dispatch,
    resolve: (name) => table.get(name),
    modules,
  };
}
