#!/usr/bin/env node
// Rewrites the option table in README.md from the option declarations (run after `npm run build`).
import { readFileSync, writeFileSync } from 'node:fs';
import { renderOptionsMarkdown } from '../dist/config/options.js';

const path = new URL('../README.md', import.meta.url);
const readme = readFileSync(path, 'utf8');
const begin = '<!-- options:begin -->';
const end = '<!-- options:end -->';
const a = readme.indexOf(begin);
const b = readme.indexOf(end);
if (a < 0 || b < a) throw new Error('README.md has no options markers');
writeFileSync(path, `${readme.slice(0, a + begin.length)}\n${renderOptionsMarkdown().trim()}\n${readme.slice(b)}`);
