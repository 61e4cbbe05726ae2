#!/usr/bin/env node
// Writes package.json's texts that come from the code (src/extension/contributes.ts: the LM tools'
// input schemas and the descriptions and welcome text that list the registry's agents). The build
// runs it; `--check` only says whether package.json is current (exit 1 when it is not).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
require('tsx/cjs');
const { syncedPackageJson } = require('../src/extension/contributes.ts');

const file = new URL('../package.json', import.meta.url);
const text = readFileSync(file, 'utf8');
const want = syncedPackageJson(text);
if (want === text) process.exitCode = 0;
else if (process.argv.includes('--check')) {
  console.error('package.json is not in step with the code: run node scripts/sync-manifest.mjs');
  process.exitCode = 1;
} else {
  writeFileSync(file, want);
  console.log('package.json: contributed texts updated from src/extension/contributes.ts');
}
