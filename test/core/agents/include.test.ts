// Which files each agent's roots take as sessions (issue 13 item 8): a `*.json` manifest in Codex's
// sessions folder was captured and listed as a session. On the real fixtures laid out as agent
// homes: every file a root includes is one its dialect reads, or a companion the agent declares
// on purpose (a Claude Code sub-agent's .meta.json; a Codex TS-era rollout-*.json), and `brain
// record` puts no other file on the floor.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, listFiles, sandbox } from '../../helpers/env';
import { registry } from '../../../src/core/agents';
import { readManifest } from '../../../src/core/floor/manifest';

const COMPANION: Record<string, RegExp> = {
  cc: /\/subagents\/[^/]+\.meta\.json$/,
  codex: /(^|\/)rollout-[^/]*\.json$/,
  // Droid keeps a session's token totals in <id>.settings.json beside its conversation.
  droid: /\.settings\.json$/,
  // A VS Code workspace's workspace.json names the project of the Copilot Chat sessions beside it.
  copilot: /^workspaceStorage\/[^/]+\/workspace\.json$/,
  // A task folder is one session: what went to the model and the task's metadata are kept beside
  // the chat the turns come from.
  cline: /(^|\/)(api_conversation_history|task_metadata)\.json$/,
  roo: /(^|\/)(api_conversation_history|task_metadata)\.json$/,
  kilo_ext: /(^|\/)(api_conversation_history|task_metadata)\.json$/,
};

test('every file an agent includes is a session its dialect reads (or a declared companion)', () => {
  const sb = sandbox({ fixtures: true, name: 'include' });
  try {
    let seen = 0;
    for (const a of registry().list) {
      for (const root of a.roots(sb.env)) {
        if (!fs.existsSync(root.dir)) continue;
        for (const rel of listFiles(root.dir)) {
          if (!root.include(rel)) continue;
          seen++;
          const lakeRel = root.lakePrefix ? `${root.lakePrefix}/${rel}` : rel;
          const ok = a.dialect.reads(lakeRel) || COMPANION[a.lane]?.test(rel);
          assert.ok(ok, `${a.lane}: ${rel} is included but no dialect reads it`);
        }
      }
    }
    assert.ok(seen > 30, 'the fixtures were walked');
    // The Codex fixture folder does hold a non-session JSON file.
    assert.ok(fs.existsSync(path.join(sb.home, '.codex', 'sessions', '2026', '02', '23', 'localpush-manifest.json')));
  } finally {
    sb.cleanup();
  }
});

test('brain record leaves a Codex manifest JSON off the floor, and lists no session for it', () => {
  const sb = sandbox({ fixtures: true, name: 'include-record' });
  try {
    const r = brain(sb, ['record'], { env: { BRAIN_QUIET_SECONDS: '0' } });
    assert.equal(r.status, 0, r.stderr);
    const lines = readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl')).lines;
    assert.ok(lines.some((l) => l.lane === 'codex'), 'Codex rollouts are recorded');
    assert.deepEqual(
      lines.filter((l) => l.lane === 'codex' && !l.lake_path.endsWith('.jsonl')).map((l) => l.lake_path),
      [],
    );
    assert.ok(!listFiles(path.join(sb.brain, 'lake', 'codex')).some((f) => f.endsWith('manifest.json')));
  } finally {
    sb.cleanup();
  }
});
