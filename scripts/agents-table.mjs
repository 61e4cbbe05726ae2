#!/usr/bin/env node
// Writes docs/agents.md's table of recorded agents from the registry (src/core/agents): one row per
// agent with its lane, names, the folders (or databases) it is read from on Linux, macOS and
// Windows, and the variables that move them. Run: node --import tsx scripts/agents-table.mjs.
// test/core/agents/table.test.ts fails when the page and the registry differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentsTable } from '../src/core/agents/table.ts';

const root = new URL('..', import.meta.url).pathname;
const file = join(root, 'docs', 'agents.md');
const text = readFileSync(file, 'utf8');
const re = /(<!-- agents:begin[^>]*-->\n)[\s\S]*?(<!-- agents:end -->)/;
if (!re.test(text)) {
  console.error('docs/agents.md has no <!-- agents:begin --> … <!-- agents:end --> markers');
  process.exit(3);
}
writeFileSync(file, text.replace(re, (_m, a, b) => `${a}${agentsTable()}\n${b}`));
