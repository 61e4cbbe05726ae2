// One name per recall tool, declared in core (TOOL_NAMES) with its input schema (INPUT_SCHEMAS):
// package.json's LM tools are those names with the brain_ prefix and those schemas, byte for byte
// in JSON terms, and the MCP server's table offers each under the same name (the e2e suite checks
// the tools VS Code registered, and test/mcp/server.test.ts what an MCP client lists).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { INPUT_SCHEMAS, RECALL_TOOLS, TOOL_NAMES, lmToolName } from '../../../src/core/recall/types';
import { TOOLS } from '../../../src/core/tools';
import { REPO } from '../../helpers/env';

it('package.json declares each LM tool under the core name with the core input schema', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  const tools = pkg.contributes.languageModelTools as { name: string; inputSchema: unknown; modelDescription: string }[];
  assert.deepEqual(
    tools.map((t) => t.name),
    TOOL_NAMES.map(lmToolName),
  );
  for (const [k, name] of TOOL_NAMES.entries()) {
    const t = tools[k];
    assert.deepEqual(t.inputSchema, JSON.parse(JSON.stringify(INPUT_SCHEMAS[name])), `${t.name}: package.json inputSchema differs from the core's`);
    assert.ok(t.modelDescription.length > 80, `${t.name} has a modelDescription`);
  }
});

it('the MCP server and the core declarations use the same names and schemas', () => {
  assert.deepEqual(
    TOOLS.map((t) => t.name),
    [...TOOL_NAMES],
  );
  for (const t of TOOLS) assert.equal(t.inputSchema, INPUT_SCHEMAS[t.name], `${t.name}: the core's schema object`);
  for (const c of RECALL_TOOLS) {
    assert.ok(TOOL_NAMES.includes(c.name), `${c.name} is a core tool name`);
    assert.equal(c.inputSchema, INPUT_SCHEMAS[c.name]);
  }
});
