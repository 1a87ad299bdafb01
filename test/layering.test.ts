/**
 * Layers only look down (DESIGN.md §1). Reads the imports of every file under src/ — value and type
 * imports, re-exports, dynamic `import()` and `import('…')` types alike — and fails on:
 *  - an import of a unit ranked above the importing one (`chain/` → `execution/`, anything → `rpc/`);
 *  - an adapter (`rpc/`, `graphql/`, `engine/`) importing `db/`;
 *  - units of the same rank importing each other in a cycle (`consensus/` ⇄ `mining/`);
 *  - a cycle of files.
 * The violations that exist today are listed in TOLERATED; the test fails as well when one of them
 * is gone, so the list shrinks with every fix and never goes stale.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');

/**
 * Ranks, lowest first. A unit is a top-level folder (`chain/`) or file (`node.ts`) of src/. Units of
 * one rank may import each other as long as they form no cycle.
 */
const RANKS: readonly (readonly string[])[] = [
  // foundations every layer may use
  ['util/', 'crypto/', 'config/', 'log.ts', 'version.ts', 'metrics/'],
  ['db/'],
  ['chain/', 'state/'],
  ['execution/'],
  ['txpool/', 'filters/', 'p2p/', 'privacy/'],
  ['mining/', 'consensus/', 'events/', 'plugins/'],
  // adapters: decode, call a service, encode
  ['rpc/', 'graphql/', 'engine/'],
  // the composition root, then the command line
  ['node.ts'],
  ['cli/'],
];
const ADAPTERS = new Set(['rpc/', 'graphql/', 'engine/']);

/**
 * Violations that exist today, each to be removed from this list by the change that fixes it (the
 * test fails while a listed one is gone, and on any one not listed).
 */
const TOLERATED: readonly string[] = [];

interface Edge {
  from: string;
  to: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every relative module specifier a file names, type-only ones included. */
function specifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined
    ) {
      if (ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      out.push(node.arguments[0].text);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      out.push(node.argument.literal.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const e = node.moduleReference.expression;
      if (ts.isStringLiteral(e)) out.push(e.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out.filter((s) => s.startsWith('.'));
}

const files = sourceFiles(SRC).map((f) => relative(SRC, f));
const unresolved: string[] = [];
const edges: Edge[] = [];
for (const file of files) {
  for (const spec of specifiers(join(SRC, file))) {
    const target = resolve(dirname(join(SRC, file)), spec);
    const candidates = [target.replace(/\.js$/, '.ts'), target, `${target}.ts`, join(target, 'index.ts')];
    const found = candidates.find((c) => existsSync(c) && !c.endsWith('/'));
    if (found === undefined || relative(SRC, found).startsWith('..')) {
      unresolved.push(`${file}: '${spec}'`);
      continue;
    }
    edges.push({ from: file, to: relative(SRC, found) });
  }
}

const unitOf = (file: string): string => (file.includes('/') ? `${file.split('/')[0]}/` : file);
const rankOf = (unit: string): number => RANKS.findIndex((r) => r.includes(unit));

/** Strongly connected components with more than one member (Tarjan). */
function cycles(nodes: Iterable<string>, next: (n: string) => string[]): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const n of nodes) if (!index.has(n)) connect(n);
  return out;
}

function violations(): string[] {
  const found = new Set<string>();
  for (const { from, to } of edges) {
    const a = unitOf(from);
    const b = unitOf(to);
    if (a === b) continue;
    if (rankOf(b) > rankOf(a)) found.add(`above: ${from} → ${to}`);
    if (ADAPTERS.has(a) && b === 'db/') found.add(`adapter reads db/: ${from} → ${to}`);
  }
  const unitEdges = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const a = unitOf(from);
    const b = unitOf(to);
    if (a === b || rankOf(a) !== rankOf(b)) continue;
    if (!unitEdges.has(a)) unitEdges.set(a, new Set());
    unitEdges.get(a)?.add(b);
  }
  for (const c of cycles(unitEdges.keys(), (u) => [...(unitEdges.get(u) ?? [])])) {
    found.add(`same-rank cycle: ${c.join(' ⇄ ')}`);
  }
  const fileEdges = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const { from, to } of edges) fileEdges.get(from)?.push(to);
  for (const c of cycles(files, (f) => fileEdges.get(f) ?? [])) found.add(`file cycle: ${c.join(' ⇄ ')}`);
  return [...found].sort();
}

describe('layering (DESIGN.md §1)', () => {
  it('resolves every relative import to a file under src/', () => {
    expect(unresolved).toEqual([]);
    expect(edges.length).toBeGreaterThan(100);
  });

  it('places every top-level folder and file of src/ in a rank', () => {
    const units = [...new Set(files.map(unitOf))];
    expect(units.filter((u) => rankOf(u) < 0)).toEqual([]);
  });

  it('finds no import against the layers but the tolerated ones, and every tolerated one still', () => {
    const found = violations();
    const tolerated = new Set(TOLERATED);
    expect(
      found.filter((v) => !tolerated.has(v)),
      'new violations',
    ).toEqual([]);
    expect(
      TOLERATED.filter((v) => !found.includes(v)),
      'fixed: remove them from TOLERATED',
    ).toEqual([]);
  });
});
