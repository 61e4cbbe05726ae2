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
  assert.match(t.walkthroughs[0].description, new RegExp(`${BUILTIN.list.length + 1} coding agents`));
  assert.match(t.walkthroughs[0].steps[0].description, /Toy Agent/);
  assert.notEqual(syncedPackageJson(pkgText(), t), pkgText());
});

test('a Getting Started walkthrough: set up the store, first search, the tools in chat', () => {
  const pkg = JSON.parse(pkgText());
  const [w, ...others] = pkg.contributes.walkthroughs;
  assert.equal(others.length, 0);
  assert.equal(w.id, 'agentBrain.gettingStarted');
  assert.deepEqual(w.steps.map((s: { id: string }) => s.id), ['store', 'search', 'chat']);
  // The walkthrough counts the agents (the registry's count); its first step names each.
  assert.ok(w.description.includes(`${BUILTIN.list.length} coding agents`), 'the count of agents in the walkthrough');
  for (const a of BUILTIN.list) assert.ok(w.steps[0].description.includes(a.label), `${a.label} in the walkthrough's first step`);
  // Each step links to commands that exist: the extension's own, or the workbench's chat.
  const ours = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
  for (const step of w.steps) {
    const linked = [...step.description.matchAll(/\(command:([\w.]+)/g)].map((m) => m[1]);
    assert.ok(linked.length > 0, `${step.id} links to a command`);
    for (const c of [...linked, ...step.completionEvents.map((e: string) => e.replace(/^onCommand:/, ''))]) {
      assert.ok(ours.has(c) || c === 'workbench.action.chat.open', `${step.id}: ${c} is a contributed command`);
    }
    assert.ok(fs.existsSync(path.join(REPO, step.media.markdown)), `${step.media.markdown} exists`);
  }
  // The chat step names every LM tool by the name chat knows it by.
  const refs = pkg.contributes.languageModelTools.map((t: { toolReferenceName: string }) => `#${t.toolReferenceName}`);
  for (const r of refs) assert.ok(w.steps[2].description.includes(r), `${r} in the chat step`);
  // The welcome view opens it.
  const welcome = pkg.contributes.viewsWelcome.find((v: { view: string }) => v.view === 'agentBrain.sessions').contents;
  assert.match(welcome, /workbench\.action\.openWalkthrough\?%22agent-brain\.agent-brain%23agentBrain\.gettingStarted%22/);
  assert.equal(`${pkg.publisher}.${pkg.name}`, 'agent-brain.agent-brain');
});
