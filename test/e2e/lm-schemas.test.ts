// The LM tools' input schemas in package.json are the core's declared inputs, byte for byte in
// JSON terms (the e2e suite checks the same on the tools VS Code registered).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RECALL_TOOLS } from '../../src/core/recall/types';
import { CORE_TOOL, SQL_INPUT_SCHEMA, TOOL_NAMES } from '../../src/extension/recall';
import { REPO } from '../helpers/env';

it('package.json declares each LM tool with the core input schema', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  const tools = pkg.contributes.languageModelTools as { name: string; inputSchema: unknown; modelDescription: string }[];
  assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
  for (const t of tools) {
    const want = t.name === 'brain_sql' ? SQL_INPUT_SCHEMA : RECALL_TOOLS.find((x) => x.name === CORE_TOOL[t.name])?.inputSchema;
    assert.ok(want, `${t.name} maps to a core tool`);
    assert.deepEqual(t.inputSchema, JSON.parse(JSON.stringify(want)), `${t.name}: package.json inputSchema differs from the core's`);
    assert.ok(t.modelDescription.length > 80, `${t.name} has a modelDescription`);
  }
  // Every core recall tool is offered to models.
  for (const c of RECALL_TOOLS) assert.ok(Object.values(CORE_TOOL).includes(c.name), `${c.name} has an LM tool`);
});
