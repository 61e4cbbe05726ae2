// package.json's contributed texts are the code's: the LM tools' input schemas are the core's, and
// every text that lists agents lists the registry's. package.json is static JSON, so this fails
// when it drifts (node scripts/sync-manifest.mjs, which the build runs, writes it again).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BUILTIN, defineAgent } from '../../src/core/agents';
import { contributedTexts, syncedPackageJson } from '../../src/extension/contributes';
import { REPO } from '../helpers/env';

const pkgText = () => fs.readFileSync(path.join(REPO, 'package.json'), 'utf8');

test('package.json holds the texts the code generates', () => {
  assert.equal(syncedPackageJson(pkgText()), pkgText(), 'package.json drifted: run node scripts/sync-manifest.mjs');
  const r = spawnSync(process.execPath, [path.join(REPO, 'scripts', 'sync-manifest.mjs'), '--check'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});

test('every agent of the registry is named in the search tool and the welcome view', () => {
  const pkg = JSON.parse(pkgText());
  const search = pkg.contributes.languageModelTools.find((t: { name: string }) => t.name === 'brain_search');
  const welcome = pkg.contributes.viewsWelcome.find((w: { view: string }) => w.view === 'agentBrain.sessions').contents;
  for (const a of BUILTIN.list) {
    assert.ok(search.modelDescription.includes(a.label), `${a.label} in brain_search's modelDescription`);
    assert.ok(welcome.includes(a.label), `${a.label} in the welcome text`);
    assert.ok(search.inputSchema.properties.agent.description.includes(a.lane), `${a.lane} in the agent filter's description`);
  }
  // A registry with one more agent names it everywhere (the texts are not a copy of today's list).
  const toy = defineAgent({ ...BUILTIN.list[0], lane: 'toy', agent: 'toy-agent', label: 'Toy Agent', aliases: [], views: '/nonexistent' });
  const t = contributedTexts(BUILTIN.with(toy));
  assert.match(t.languageModelTools.brain_search.modelDescription ?? '', /Toy Agent/);
  assert.match(t.languageModelTools.brain_sql.modelDescription ?? '', /v_toy/);
  assert.match(t.viewsWelcome['agentBrain.sessions'], /Toy Agent/);
  assert.notEqual(syncedPackageJson(pkgText(), t), pkgText());
});
