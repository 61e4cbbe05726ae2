// The brain-recall skill: its SKILL.md has the frontmatter the harnesses require and documents only
// commands and options brain has; `brain init` links it into each harness's skill folder (a symlink
// to this install's copy), idempotently, relinks a link of an older install, and leaves anything
// of that name it did not make alone. (test/core/harness/live.test.ts shows each real CLI reading it.)
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, REPO, sandbox, type Sandbox } from '../../helpers/env';
import { doctor, init, pathWith } from './helpers';

const SKILL = path.join(REPO, 'skills', 'brain-recall');

function frontmatter(text: string): Record<string, string> {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  assert.ok(m, 'SKILL.md starts with a --- frontmatter block');
  const out: Record<string, string> = {};
  for (const line of m[1].split('\n')) {
    const kv = /^([a-z][\w-]*):\s*(.*)$/.exec(line);
    if (kv) out[kv[1]] = kv[2];
  }
  return out;
}

test('SKILL.md: a name and description as the Agent Skills format (Claude Code, Codex, Pi) requires', () => {
  const text = fs.readFileSync(path.join(SKILL, 'SKILL.md'), 'utf8');
  const fm = frontmatter(text);
  assert.equal(fm.name, 'brain-recall');
  assert.equal(fm.name, path.basename(SKILL), 'the name is the folder\'s');
  assert.match(fm.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
  assert.ok(fm.description.length > 100 && fm.description.length <= 1024, `description of ${fm.description.length} characters`);
  assert.match(fm.description, /Use when/);
  assert.match(text, /^ {2}owner: agent-brain$/m, 'the owner line brain init recognises its skill by');
});

test('SKILL.md documents only brain verbs and options that exist', () => {
  const sb = sandbox({ name: 'skill-doc' });
  try {
    const text = fs.readFileSync(path.join(SKILL, 'SKILL.md'), 'utf8');
    const uses = [...text.matchAll(/(?:^|[`\s])brain ([a-z]+)((?: [^`\n]*)?)/gm)];
    assert.ok(uses.length >= 5);
    const help = new Map<string, string>();
    for (const [, verb, rest] of uses) {
      if (!help.has(verb)) {
        const r = brain(sb, [verb, '--help']);
        assert.equal(r.status, 0, `brain ${verb} is a verb`);
        help.set(verb, r.stdout);
      }
      for (const [opt] of rest.matchAll(/--[a-z][a-z-]*/g)) assert.ok(help.get(verb)!.includes(opt), `brain ${verb} has ${opt}`);
    }
  } finally {
    sb.cleanup();
  }
});

function linked(sb: Sandbox): Record<string, string> {
  const dirs = { cc: path.join(sb.home, '.claude', 'skills'), codex: path.join(sb.home, '.codex', 'skills'), pi: path.join(sb.home, '.pi', 'agent', 'skills') };
  return Object.fromEntries(Object.entries(dirs).map(([h, d]) => [h, path.join(d, 'brain-recall')]));
}

test('init links the skill into Claude Code, Codex and Pi; a second init changes nothing; doctor agrees', () => {
  const sb = sandbox({ name: 'skill-link' });
  try {
    sb.env.PATH = pathWith(true);
    const r = init(sb);
    const links = linked(sb);
    for (const [h, l] of Object.entries(links)) {
      assert.equal(r.step(`skill ${h}`).status, 'changed');
      assert.ok(fs.lstatSync(l).isSymbolicLink(), `${l} is a link`);
      assert.equal(fs.realpathSync(l), fs.realpathSync(SKILL));
      assert.ok(fs.existsSync(path.join(l, 'SKILL.md')));
      assert.equal(doctor(sb)(`skill ${h}`).level, 'ok');
    }
    const before = Object.values(links).map((l) => `${fs.readlinkSync(l)} ${fs.lstatSync(l).mtimeMs}`);
    const again = init(sb);
    for (const h of Object.keys(links)) assert.equal(again.step(`skill ${h}`).status, 'unchanged');
    assert.deepEqual(
      Object.values(links).map((l) => `${fs.readlinkSync(l)} ${fs.lstatSync(l).mtimeMs}`),
      before,
    );
  } finally {
    sb.cleanup();
  }
});

test('a link left by an older install (gone) is relinked; a folder or someone else\'s link of that name is left alone', () => {
  const sb = sandbox({ name: 'skill-owned' });
  try {
    sb.env.PATH = pathWith(true);
    const links = linked(sb);
    for (const l of Object.values(links)) fs.mkdirSync(path.dirname(l), { recursive: true });
    // Claude Code: a dangling link into an old install's skills/ folder.
    fs.symlinkSync('/opt/brain-0.0.9/skills/brain-recall', links.cc);
    // Codex: the user's own folder that happens to have the name.
    fs.mkdirSync(links.codex);
    fs.writeFileSync(path.join(links.codex, 'SKILL.md'), '---\nname: brain-recall\ndescription: my notes\n---\n');
    // Pi: a link to someone else's skill of that name.
    const theirs = path.join(sb.home, 'my-skills', 'brain-recall');
    fs.mkdirSync(theirs, { recursive: true });
    fs.writeFileSync(path.join(theirs, 'SKILL.md'), '---\nname: brain-recall\ndescription: another tool\n---\n');
    fs.symlinkSync(theirs, links.pi);
    assert.equal(doctor(sb)('skill cc').level, 'warn');

    const r = init(sb);
    assert.equal(r.step('skill cc').status, 'changed');
    assert.match(r.step('skill cc').detail, /relinks from \/opt\/brain-0\.0\.9\/skills\/brain-recall \(gone\)/);
    assert.equal(fs.realpathSync(links.cc), fs.realpathSync(SKILL));
    assert.equal(r.step('skill codex').status, 'failed');
    assert.ok(fs.lstatSync(links.codex).isDirectory() && !fs.lstatSync(links.codex).isSymbolicLink());
    assert.match(fs.readFileSync(path.join(links.codex, 'SKILL.md'), 'utf8'), /my notes/);
    assert.equal(r.step('skill pi').status, 'failed');
    assert.equal(fs.readlinkSync(links.pi), theirs);
    assert.equal(r.code, 1);
    assert.equal(doctor(sb)('skill pi').level, 'fail');
  } finally {
    sb.cleanup();
  }
});

test('no harness on the machine: no skill folder is made', () => {
  const sb = sandbox({ name: 'skill-none' });
  try {
    sb.env.PATH = pathWith(false);
    const r = init(sb);
    for (const h of ['cc', 'codex', 'pi']) assert.equal(r.step(`skill ${h}`).status, 'skipped');
    for (const d of ['.claude', '.codex', '.pi']) assert.equal(fs.existsSync(path.join(sb.home, d)), false, `${d} not created`);
    assert.equal(r.code, 0);
  } finally {
    sb.cleanup();
  }
});
