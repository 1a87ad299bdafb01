/** README.md's option table is the one the option declarations render (`npm run docs:options`). */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderOptionsMarkdown } from '../../src/config/options.js';

describe('README option table', () => {
  it('matches the declared options', () => {
    const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
    const table = readme
      .slice(readme.indexOf('<!-- options:begin -->') + 22, readme.indexOf('<!-- options:end -->'))
      .trim();
    expect(table).toBe(renderOptionsMarkdown().trim());
  });
});
