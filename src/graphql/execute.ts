/**
 * One GraphQL request from text to answer: parse, validate, price the query (Besu's complexity
 * rule), execute against the resolvers with a per-request loader, and write the answer with Besu's
 * error shapes (graphql-java's messages and `classification` extensions) and status: 200 without
 * errors, 400 with, 504 when the request ran past its deadline.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ASTVisitor,
  buildSchema,
  type DocumentNode,
  execute,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLFormattedError,
  type GraphQLNamedType,
  GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  parse,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  specifiedRules,
  TypeMetaFieldDef,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
  ValuesOfCorrectTypeRule,
  validate,
  visitInParallel,
} from 'graphql';
import { logger } from '../log.js';
import type { Services } from '../rpc/services.js';
import { Lru } from '../util/lru.js';
import { GraphQLArgumentError, GraphQLCodedError, ResultBoundError, TimeoutError } from './errors.js';
import { RequestLoader } from './loader.js';
import { resolvers } from './resolvers.js';
import { literalText, ScalarInputError, scalars } from './scalars.js';

/** Besu's bound on a query's complexity (each field 1 plus its children; `Transaction.block` and `__Type.fields` 100). */
export const MAX_COMPLEXITY = 200;
/** Tokens a query text may hold (parsing is refused past this). */
export const MAX_TOKENS = 10_000;
/** List items (blocks, transactions, logs, ommers, withdrawals, access-list entries …) one answer may hold. */
export const MAX_LIST_ITEMS = 100_000;
/** Seconds a request may run before it is answered 504 (Besu's default HTTP timeout). */
export const TIMEOUT_SECONDS = 30;

export interface GraphQLRequest {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

export interface GraphQLAnswer {
  status: number;
  /** The JSON answer; undefined with a 504. */
  body?: Record<string, unknown>;
}

const SCHEMA_FILE = join(dirname(fileURLToPath(import.meta.url)), '../../src/graphql/schema.graphql');

let cachedSchema: GraphQLSchema | undefined;

/** The schema of `schema.graphql` with Alder's scalars and resolvers. */
export function alderSchema(): GraphQLSchema {
  if (cachedSchema) return cachedSchema;
  const schema = buildSchema(readFileSync(SCHEMA_FILE, 'utf8'));
  for (const [name, impl] of Object.entries(scalars)) {
    const t = schema.getType(name);
    if (!t) throw new Error(`schema.graphql lacks the scalar ${name}`);
    Object.assign(t, {
      serialize: impl.serialize,
      parseValue: impl.parseValue,
      parseLiteral: impl.parseLiteral,
    });
  }
  for (const [typeName, fields] of Object.entries(resolvers)) {
    const type = schema.getType(typeName);
    if (!(type instanceof GraphQLObjectType)) throw new Error(`schema.graphql lacks the type ${typeName}`);
    const defs = type.getFields();
    for (const [fieldName, fn] of Object.entries(fields)) {
      const def = defs[fieldName];
      if (!def) throw new Error(`schema.graphql lacks ${typeName}.${fieldName}`);
      def.resolve = (source, args, ctx: { loader: RequestLoader }) => fn(source as never, args, ctx.loader);
    }
  }
  cachedSchema = schema;
  return schema;
}

// ------------------------------------------------------------------------------------------- validation

/**
 * graphql-js's check of argument literals, with a scalar's refusal worded as graphql-java words it
 * (which is what Besu answers): `Validation error (WrongType@[block/call]) : argument 'data.data' with
 * value 'StringValue{value='12'}' is not a valid 'Bytes' - Bytes value '12' is not prefixed with 0x`,
 * located at the argument.
 */
const WrongTypeRule: ValidationRule = (context: ValidationContext): ASTVisitor => {
  const fields: string[] = [];
  const inputPath: string[] = [];
  let argument: { name: string; node: ValueNode; at: import('graphql').ArgumentNode } | undefined;
  const proxy = Object.create(context) as ValidationContext;
  proxy.reportError = (error: GraphQLError) => {
    const original = error.originalError;
    if (original instanceof ScalarInputError && argument) {
      const valueNode = error.nodes?.[0] as ValueNode | undefined;
      const typeName = getNamedType(context.getInputType() ?? undefined)?.name ?? '';
      context.reportError(
        new GraphQLError(
          `Validation error (WrongType@[${fields.join('/')}]) : argument '${inputPath.join('.')}' with value '${valueNode ? literalText(valueNode) : ''}' is not a valid '${typeName}' - ${original.message}`,
          { nodes: argument.at, extensions: { classification: 'ValidationError' } },
        ),
      );
      return;
    }
    context.reportError(error);
  };
  const tracker: ASTVisitor = {
    Field: {
      enter: (node) => {
        fields.push(node.name.value);
      },
      leave: () => {
        fields.pop();
      },
    },
    Argument: {
      enter: (node) => {
        argument = { name: node.name.value, node: node.value, at: node };
        inputPath.push(node.name.value);
      },
      leave: () => {
        argument = undefined;
        inputPath.pop();
      },
    },
    ObjectField: {
      enter: (node) => {
        inputPath.push(node.name.value);
      },
      leave: () => {
        inputPath.pop();
      },
    },
  };
  return visitInParallel([tracker, ValuesOfCorrectTypeRule(proxy)]);
};

const RULES = specifiedRules.map((r) => (r === ValuesOfCorrectTypeRule ? WrongTypeRule : r));

// ------------------------------------------------------------------------------------------- complexity

function fieldDef(
  parent: GraphQLNamedType,
  name: string,
  schema: GraphQLSchema,
): GraphQLField<unknown, unknown> | undefined {
  if (name === '__schema' && parent === schema.getQueryType()) return SchemaMetaFieldDef;
  if (name === '__type' && parent === schema.getQueryType()) return TypeMetaFieldDef;
  if (isObjectType(parent) || isInterfaceType(parent)) return parent.getFields()[name];
  return undefined;
}

/** Besu's price of a selection: each field 1 plus its children, `Transaction.block` and `__Type.fields` 100. */
function complexityOf(
  set: SelectionSetNode | undefined,
  parent: GraphQLNamedType,
  schema: GraphQLSchema,
  fragments: Map<string, FragmentDefinitionNode>,
): number {
  if (!set) return 0;
  let total = 0;
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      total += fieldCost(sel, parent, schema, fragments);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      const on = sel.typeCondition ? (schema.getType(sel.typeCondition.name.value) ?? parent) : parent;
      total += complexityOf(sel.selectionSet, on, schema, fragments);
    } else {
      const frag = fragments.get(sel.name.value);
      if (frag) {
        const on = schema.getType(frag.typeCondition.name.value) ?? parent;
        total += complexityOf(frag.selectionSet, on, schema, fragments);
      }
    }
  }
  return total;
}

function fieldCost(
  node: FieldNode,
  parent: GraphQLNamedType,
  schema: GraphQLSchema,
  fragments: Map<string, FragmentDefinitionNode>,
): number {
  const name = node.name.value;
  const def = fieldDef(parent, name, schema);
  const child = def ? complexityOf(node.selectionSet, getNamedType(def.type), schema, fragments) : 0;
  const heavy =
    (parent.name === 'Transaction' && name === 'block') || (parent.name === '__Type' && name === 'fields');
  return child + (heavy ? 100 : 1);
}

function selectedOperation(
  doc: DocumentNode,
  name: string | null | undefined,
): OperationDefinitionNode | undefined {
  const ops = doc.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (name) return ops.find((o) => o.name?.value === name);
  return ops.length === 1 ? ops[0] : undefined;
}

export function queryComplexity(
  schema: GraphQLSchema,
  doc: DocumentNode,
  operationName?: string | null,
): number {
  const op = selectedOperation(doc, operationName);
  if (!op) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const root =
    op.operation === 'mutation'
      ? schema.getMutationType()
      : op.operation === 'subscription'
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  return root ? complexityOf(op.selectionSet, root, schema, fragments) : 0;
}

// ------------------------------------------------------------------------------------------- answers

function plainErrors(errors: readonly GraphQLError[], classification: string): GraphQLFormattedError[] {
  return errors.map((e) => {
    const out: Record<string, unknown> = { message: e.message };
    if (e.locations) out.locations = e.locations;
    out.extensions = {
      ...(e.extensions ?? {}),
      classification: e.extensions?.classification ?? classification,
    };
    return out as unknown as GraphQLFormattedError;
  });
}

/** graphql-java's result path: `/blocks[0]/transactions[1]/hash`. */
function pathText(path: readonly (string | number)[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `/${p}`;
  return out;
}

const log = logger('graphql');

function executionError(e: GraphQLError): GraphQLFormattedError {
  const original = e.originalError;
  const out: Record<string, unknown> = {};
  if (!original || original instanceof GraphQLError) {
    // A variable or a value that could not be coerced, or a null in a non-null field.
    out.message = e.message;
    if (e.locations) out.locations = e.locations;
    if (e.path) out.path = e.path;
    out.extensions = { classification: e.path ? 'NullValueInNonNullableField' : 'ValidationError' };
    return out as unknown as GraphQLFormattedError;
  }
  const at = pathText(e.path ?? []);
  let message: string;
  const extensions: Record<string, unknown> = {};
  if (original instanceof GraphQLCodedError) {
    message = original.spec.message;
    extensions.errorCode = original.spec.code;
    extensions.errorMessage = original.spec.message;
  } else if (original instanceof GraphQLArgumentError || original instanceof ResultBoundError) {
    message = original.message;
  } else {
    log.error({ err: original, path: at }, 'GraphQL field failed');
    message = 'Internal error';
  }
  extensions.classification = 'DataFetchingException';
  out.message = `Exception while fetching data (${at}) : ${message}`;
  if (e.locations) out.locations = e.locations;
  if (e.path) out.path = e.path;
  out.extensions = extensions;
  return out as unknown as GraphQLFormattedError;
}

/**
 * Parsed and validated documents by query text: clients send the same few queries again and again,
 * and parsing and validating cost more than answering most of them.
 */
const documents = new Lru<string, { doc: DocumentNode } | { refusal: GraphQLAnswer }>(512);

/**
 * The deepest nesting of braces in a query's text, outside strings and comments. graphql-js parses,
 * validates and prices a query recursively, one call per level: a query nested deeper than any query
 * within the complexity bound (each level costs at least 1) is refused before it is parsed.
 */
function braceDepth(query: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < query.length; i++) {
    const c = query.charCodeAt(i);
    if (c === 0x23 /* # */) {
      while (i < query.length && query.charCodeAt(i) !== 0x0a && query.charCodeAt(i) !== 0x0d) i++;
    } else if (c === 0x22 /* " */) {
      if (query.startsWith('"""', i)) {
        const end = query.indexOf('"""', i + 3);
        i = end < 0 ? query.length : end + 2;
      } else {
        for (i++; i < query.length && query.charCodeAt(i) !== 0x22; i++)
          if (query.charCodeAt(i) === 0x5c) i++;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return deepest;
}

function checkDocument(
  schema: GraphQLSchema,
  query: string,
): { doc: DocumentNode } | { refusal: GraphQLAnswer } {
  const known = documents.get(query);
  if (known) return known;
  let checked: { doc: DocumentNode } | { refusal: GraphQLAnswer };
  try {
    const depth = braceDepth(query);
    if (depth > MAX_COMPLEXITY) {
      const refusal: GraphQLAnswer = {
        status: 400,
        body: {
          errors: [
            {
              message: `maximum query depth exceeded ${depth} > ${MAX_COMPLEXITY}`,
              extensions: { classification: 'ExecutionAborted' },
            },
          ],
        },
      };
      documents.set(query, { refusal });
      return { refusal };
    }
    const doc = parse(query, { maxTokens: MAX_TOKENS });
    const invalid = validate(schema, doc, RULES);
    checked =
      invalid.length > 0
        ? { refusal: { status: 400, body: { errors: plainErrors(invalid, 'ValidationError') } } }
        : { doc };
  } catch (err) {
    if (!(err instanceof GraphQLError)) throw err;
    checked = { refusal: { status: 400, body: { errors: plainErrors([err], 'InvalidSyntax') } } };
  }
  documents.set(query, checked);
  return checked;
}

export interface GraphQLLimits {
  /** List items one answer may hold (default MAX_LIST_ITEMS). */
  maxItems?: number;
  /** Milliseconds before the request is abandoned with 504 (default TIMEOUT_SECONDS). */
  timeoutMs?: number;
}

/** Runs one request against the services. */
export async function runGraphQL(
  services: Services,
  request: GraphQLRequest,
  limits: GraphQLLimits = {},
): Promise<GraphQLAnswer> {
  const schema = alderSchema();
  const checked = checkDocument(schema, request.query);
  if ('refusal' in checked) return checked.refusal;
  const doc = checked.doc;
  const complexity = queryComplexity(schema, doc, request.operationName);
  if (complexity > MAX_COMPLEXITY) {
    return {
      status: 400,
      body: {
        errors: [
          {
            message: `maximum query complexity exceeded ${complexity} > ${MAX_COMPLEXITY}`,
            extensions: { classification: 'ExecutionAborted' },
          },
        ],
      },
    };
  }
  const loader = new RequestLoader(services, {
    maxItems: limits.maxItems ?? MAX_LIST_ITEMS,
    deadline: Date.now() + (limits.timeoutMs ?? TIMEOUT_SECONDS * 1000),
  });
  const result = await execute({
    schema,
    document: doc,
    variableValues: request.variables ?? undefined,
    operationName: request.operationName ?? undefined,
    contextValue: { loader },
  });
  if (loader.timedOut || result.errors?.some((e) => e.originalError instanceof TimeoutError)) {
    return { status: 504 };
  }
  if (result.errors && result.errors.length > 0) {
    const body: Record<string, unknown> = { errors: result.errors.map(executionError) };
    if (result.data !== undefined) body.data = result.data;
    return { status: 400, body };
  }
  return { status: 200, body: { data: result.data } };
}
