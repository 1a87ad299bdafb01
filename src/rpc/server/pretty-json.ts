/**
 * JSON in the layout of Jackson's default pretty printer, which Besu uses for `--json-pretty-print-enabled`
 * and for the health endpoints: `{` newline, two-space indent per enclosing object, `"key" : value`, arrays inline as
 * `[ a, b ]`, empty containers as `{ }` and `[ ]`.
 */
export function prettyJson(value: unknown): string {
  return write(value, 0);
}

function write(value: unknown, depth: number): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[ ]';
    // Arrays are inline and do not deepen the indentation of the objects inside them.
    const items = value.map((v) => write(v === undefined ? null : v, depth));
    return `[ ${items.join(', ')} ]`;
  }
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined);
    if (keys.length === 0) return '{ }';
    const inner = '  '.repeat(depth + 1);
    const fields = keys.map(
      (k) => `${inner}${JSON.stringify(k)} : ${write((value as Record<string, unknown>)[k], depth + 1)}`,
    );
    return `{\n${fields.join(',\n')}\n${'  '.repeat(depth)}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
