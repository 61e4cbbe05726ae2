// Capture of the real fixtures: every origin byte-exact in the lake, every manifest line checked by
// the coreutils a user would use (sed -n 'A,Bp' | sha256sum), chunks contiguous.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, listFiles, sandbox } from '../../helpers/env';
import { readManifest } from '../../../src/core/floor/manifest';
import { registry } from '../../../src/core/agents';

function sedSha(file: string, a: number, b: number): string {
  return execFileSync('sh', ['-c', `sed -n '${a},${b}p' "$1" | sha256sum`, 'sh', file], { encoding: 'utf8' }).split(' ')[0];
}

test('record captures every fixture byte-exact, and every manifest line verifies with sed | sha256sum', () => {
  const sb = sandbox({ fixtures: true, name: 'capture' });
  try {
    const r = brain(sb, ['record', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const rep = JSON.parse(r.stdout);
    // Every agent's roots that the fixtures fill, as the registry declares them (a tool's manifest
    // JSON in Codex's folder is not a session: include() says which files are).
    let compared = 0;
    const perLane = new Map<string, number>();
    for (const a of registry().list) {
      for (const root of a.roots(sb.env)) {
        if (!fs.existsSync(root.dir) || root.flat) continue;
        const files = listFiles(root.dir).filter((f) => root.include(f));
        for (const f of files) {
          const lake = path.join(sb.brain, 'lake', a.lane, root.lakePrefix ? `${root.lakePrefix}/${f}` : f);
          assert.ok(fs.existsSync(lake), `lake copy of ${a.lane}/${f}`);
          assert.ok(fs.readFileSync(lake).equals(fs.readFileSync(path.join(root.dir, f))), `${a.lane}/${f} byte-exact`);
          compared++;
        }
        perLane.set(a.lane, (perLane.get(a.lane) ?? 0) + files.length);
      }
    }
    for (const lane of ['cc', 'codex', 'pi', 'cursor', 'gemini', 'copilot', 'copilot_cli', 'qwen', 'droid', 'cline', 'cline_cli', 'continue']) assert.ok((perLane.get(lane) ?? 0) > 0, `fixtures for ${lane}`);
    for (const [lane, n] of perLane) assert.equal(rep.lanes[lane].new_files, n, `${lane} new files counted`);
    assert.ok(compared >= 40);
    const m = readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl'));
    assert.equal(m.bad.length, 0);
    assert.equal(m.lines.length, compared);
    const byFile = new Map<string, number>();
    for (const line of m.lines) {
      const file = path.join(sb.brain, line.lake_path);
      assert.equal(sedSha(file, line.line_from, line.line_to), line.chunk_sha256, `${line.lake_path} ${line.line_from},${line.line_to}`);
      assert.equal(line.byte_from, byFile.get(line.lake_path) ?? 0, 'contiguous');
      byFile.set(line.lake_path, line.byte_to);
      assert.equal(line.machine_id, 'testbox');
      for (const k of ['v', 'lane', 'agent', 'session', 'gen', 'byte_from', 'byte_to', 'line_from', 'line_to', 'chunk_sha256', 'captured_at', 'event_ts_first', 'machine_id', 'origin_path', 'source', 'lake_path']) {
        assert.ok(k in line, `manifest field ${k}`);
      }
    }
    // A second pass captures nothing and the floor still verifies.
    const again = JSON.parse(brain(sb, ['record', '--json']).stdout);
    assert.equal(Object.values(again.lanes).reduce((n: number, c: any) => n + c.bytes, 0), 0);
    const v = brain(sb, ['verify']);
    assert.equal(v.status, 0, v.stdout + v.stderr);
    // Private permissions whatever the umask.
    assert.equal(fs.statSync(sb.brain).mode & 0o777, 0o700);
    for (const f of listFiles(path.join(sb.brain, 'lake'))) assert.equal(fs.statSync(path.join(sb.brain, 'lake', f)).mode & 0o777, 0o600, f);
  } finally {
    sb.cleanup();
  }
});

test('appends are captured as new contiguous chunks; the session id comes from the file name', () => {
  const sb = sandbox({ fixtures: true, name: 'append' });
  try {
    assert.equal(brain(sb, ['record']).status, 0);
    const f = path.join(sb.home, '.claude', 'projects', 'sample-project', '1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl');
    const before = fs.statSync(f).size;
    fs.appendFileSync(f, '{"type":"user","message":{"role":"user","content":"one more"}}\n{"type":"assistant"}\n');
    assert.equal(brain(sb, ['record']).status, 0);
    const m = readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl')).lines.filter((l) => l.session === '1af7fc5e-8455-4414-9ccd-011d40f70b2a');
    assert.equal(m.length, 2);
    assert.equal(m[1].byte_from, before);
    assert.equal(m[1].line_from, m[0].line_to + 1);
    assert.equal(m[1].line_to, m[0].line_to + 2);
    assert.ok(fs.readFileSync(path.join(sb.brain, m[1].lake_path)).equals(fs.readFileSync(f)));
    assert.equal(brain(sb, ['verify']).status, 0);
  } finally {
    sb.cleanup();
  }
});
