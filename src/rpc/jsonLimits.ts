/**
 * Bounds checked on a request's text before `JSON.parse` builds its tree. Besu's JSON reader (Jackson)
 * refuses documents nested deeper than 1000 levels and numbers longer than 1000 characters; a request
 * beyond either is unparsable (-32700 over HTTP). Alder also bounds the number of values in one request:
 * a few megabytes of `[[[[…` or `{},{},…` would otherwise become millions of objects (hundreds of
 * megabytes) and stall every other client while they are built and answered.
 *
 * The scan is one pass over the characters that stops at the first bound passed. It does not validate
 * the JSON: `JSON.parse` still does that, on text known to be small in depth and count.
 */

/** Deepest nesting of arrays and objects accepted (Jackson's default). */
export const MAX_JSON_DEPTH = 1000;
/** Longest number literal accepted, in characters (Jackson's default). */
export const MAX_JSON_NUMBER_LENGTH = 1000;
/** Most values (of any kind, containers included) one request may hold. */
export const MAX_JSON_VALUES = 100_000;

/** Below this many characters no bound can be passed, so the scan is skipped. */
const SCAN_FROM_LENGTH = Math.min(MAX_JSON_DEPTH, MAX_JSON_NUMBER_LENGTH);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;

function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

/** Why `text` is refused before parsing, or undefined when it is within every bound. */
export function exceedsJsonLimits(text: string): string | undefined {
  const n = text.length;
  if (n <= SCAN_FROM_LENGTH) return undefined;
  let depth = 0;
  let values = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string (its length is bounded by the body size).
      i++;
      while (i < n) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i += 2;
        else if (s === QUOTE) break;
        else i++;
      }
      i++;
      values++;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > MAX_JSON_DEPTH) return `nesting deeper than ${MAX_JSON_DEPTH}`;
      values++;
      i++;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
      i++;
      continue;
    } else if (isNumberChar(c)) {
      const start = i;
      while (i < n && isNumberChar(text.charCodeAt(i))) i++;
      if (i - start > MAX_JSON_NUMBER_LENGTH)
        return `a number longer than ${MAX_JSON_NUMBER_LENGTH} characters`;
      values++;
    } else if (c === COMMA || c === COLON || c <= 0x20) {
      i++;
      continue;
    } else {
      // true, false, null or garbage: one value per run of letters.
      while (i < n) {
        const w = text.charCodeAt(i);
        if (w <= 0x20 || w === COMMA || w === COLON || w === CLOSE_ARRAY || w === CLOSE_OBJECT) break;
        if (w === QUOTE || w === OPEN_ARRAY || w === OPEN_OBJECT) break;
        i++;
      }
      values++;
    }
    if (values > MAX_JSON_VALUES) return `more than ${MAX_JSON_VALUES} values`;
  }
  return undefined;
}
