import { describe, expect, it } from 'vitest';
import { exceedsJsonLimits, MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../src/rpc/jsonLimits.js';

describe('JSON bounds checked before parsing', () => {
  it('accepts depth 1000 and refuses 1001, whatever follows', () => {
    const at = (d: number) => `${'['.repeat(d)}${']'.repeat(d)}`;
    expect(exceedsJsonLimits(at(MAX_JSON_DEPTH))).toBeUndefined();
    expect(exceedsJsonLimits(at(MAX_JSON_DEPTH + 1))).toMatch(/nesting deeper than 1000/);
    expect(exceedsJsonLimits('{"a":'.repeat(2000))).toMatch(/nesting/);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(exceedsJsonLimits(JSON.stringify({ s: `\\"${'['.repeat(5000)}` }))).toBeUndefined();
  });

  it('refuses numbers over 1000 characters and more than 100,000 values', () => {
    expect(exceedsJsonLimits(`[${'9'.repeat(1001)}]`)).toMatch(/number longer/);
    expect(exceedsJsonLimits(`[${'9'.repeat(1000)}]`)).toBeUndefined();
    expect(exceedsJsonLimits(`[${'1,'.repeat(MAX_JSON_VALUES)}1]`)).toMatch(/more than 100000 values/);
    expect(exceedsJsonLimits(`[${'1,'.repeat(MAX_JSON_VALUES - 10)}1]`)).toBeUndefined();
    expect(exceedsJsonLimits(`[${'true,null,'.repeat(60_000)}false]`)).toMatch(/values/);
  });
});
