#!/usr/bin/env node
// Writes docs/configuration.md's table of BRAIN_* variables from src/core/settings.ts (between the settings
// markers). Run: node --import tsx scripts/settings-table.mjs. test/core/settings.test.ts fails
// when that table and the module differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { settingsTable } from '../src/core/settings.ts';

const root = new URL('..', import.meta.url).pathname;
const file = join(root, 'docs', 'configuration.md');
const text = readFileSync(file, 'utf8');
const re = /(<!-- settings:begin[^>]*-->\n)[\s\S]*?(<!-- settings:end -->)/;
if (!re.test(text)) {
  console.error('docs/configuration.md has no <!-- settings:begin --> … <!-- settings:end --> markers');
  process.exit(3);
}
writeFileSync(file, text.replace(re, (_m, a, b) => `${a}${settingsTable()}\n${b}`));
