// A sandbox whose agent folders hold the planted sessions, recorded with the real `brain record`,
// and the checks every secret test repeats: citations by sed | sha256sum, and "the floor is as it was".
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readManifest, type ManifestLine } from '../../../src/core/floor/manifest';
import type { SecretFinding } from '../../../src/core/secrets/cache';
import { brain, listFiles, sandbox, type Sandbox } from '../../helpers/env';
import { ccSession, codexSession, piSession, plantedKeys, toFile, type Planted, type PlantedLine } from './plant';

export interface PlantedFile {
  origin: string;
  lines: PlantedLine[];
}

export interface PlantedFloor {
  sb: Sandbox;
  keys: Planted[];
  files: PlantedFile[];
}

export function plantSessions(sb: Sandbox, seed = 7): PlantedFloor {
  const keys = plantedKeys(seed);
  const files: PlantedFile[] = [
    { origin: path.join(sb.home, '.claude', 'projects', '-work-proj', '6f1c2d3e-0000-4000-8000-00000000aaaa.jsonl'), lines: ccSession(keys, '6f1c2d3e-0000-4000-8000-00000000aaaa') },
    { origin: path.join(sb.home, '.codex', 'sessions', '2026', '01', '06', 'rollout-2026-01-06T09-00-00-019c0000-0000-7000-8000-000000000001.jsonl'), lines: codexSession(keys) },
    { origin: path.join(sb.home, '.pi', 'agent', 'sessions', '--work-proj--', '2026-01-07T08-00-00-000Z_pi-planted-1.jsonl'), lines: piSession(keys) },
  ];
  for (const f of files) {
    fs.mkdirSync(path.dirname(f.origin), { recursive: true });
    fs.writeFileSync(f.origin, toFile(f.lines));
  }
  return { sb, keys, files };
}

export function plantedFloor(name: string, seed = 7): PlantedFloor {
  const sb = sandbox({ name });
  const pf = plantSessions(sb, seed);
  record(sb);
  return pf;
}

export function record(sb: Sandbox): void {
  const r = brain(sb, ['record', '--no-caches']);
  assert.equal(r.status, 0, `brain record failed: ${r.stderr}`);
}

export function manifest(sb: Sandbox): ManifestLine[] {
  return readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl')).lines;
}

/** The lake path (relative to BRAIN_HOME) the manifest gives an origin. */
export function lakePathOf(sb: Sandbox, origin: string): string {
  const m = manifest(sb).filter((x) => x.origin_path === origin);
  assert.ok(m.length > 0, `no manifest line for ${origin}`);
  return m[m.length - 1].lake_path;
}

/** `sed -n 'Np' FILE | sha256sum`, by the shell, as a user would check it. */
export function sedSha(file: string, line: number): string {
  const r = spawnSync('sh', ['-c', `sed -n "\${N}p" "$F" | sha256sum`], { env: { ...process.env, F: file, N: String(line) }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split(' ')[0];
}

/** Every planted key is found on its line with a citation the shell confirms. */
export function assertAllFound(pf: PlantedFloor, findings: SecretFinding[]): void {
  let expected = 0;
  for (const f of pf.files) {
    const lake = lakePathOf(pf.sb, f.origin);
    f.lines.forEach((l, i) => {
      for (const k of l.keys) {
        expected++;
        const hit = findings.find((x) => x.citation.lake_path === lake && x.citation.line_from === i + 1 && x.kind === k.kind && x.preview.length <= 7 && samePreview(x.preview, k.masked));
        assert.ok(hit, `${k.name} not found at ${lake}:${i + 1}`);
        const c = hit.citation;
        assert.equal(c.line_to, c.line_from);
        assert.equal(c.sha256, sedSha(path.join(pf.sb.brain, c.lake_path), c.line_from), `${k.name}: citation does not check`);
        const bytes = fs.readFileSync(path.join(pf.sb.brain, c.lake_path)).subarray(c.byte_from, c.byte_to);
        assert.equal(bytes.toString(), `${l.text}\n`, `${k.name}: byte range is not the line`);
        assert.equal(createHash('sha256').update(bytes).digest('hex'), c.sha256);
        assert.equal(hit.origin_path, f.origin);
        assert.equal(c.machine, 'testbox');
      }
    });
  }
  assert.equal(findings.length, expected, `expected ${expected} findings, got ${findings.length}`);
}

function samePreview(preview: string, secret: string): boolean {
  return preview === `${secret.slice(0, 4)}…${secret.slice(-2)}`;
}

/** No 10-character window of any planted key's random body appears in `s`. */
export function assertMasked(pf: PlantedFloor, s: string, where: string): void {
  for (const k of pf.keys) {
    assert.ok(!s.includes(k.secret), `${where} holds the whole ${k.name}`);
    for (let i = 0; i + 10 <= k.body.length; i += 5) {
      assert.ok(!s.includes(k.body.slice(i, i + 10)), `${where} holds part of ${k.name}`);
    }
  }
}

/** Everything the guard may write: the cache and health/. */
export function guardOutputs(sb: Sandbox): { file: string; text: string }[] {
  const out = [{ file: 'secrets.json', text: fs.readFileSync(path.join(sb.brain, 'secrets.json'), 'utf8') }];
  for (const f of listFiles(path.join(sb.brain, 'health'))) out.push({ file: `health/${f}`, text: fs.readFileSync(path.join(sb.brain, 'health', f), 'latin1') });
  return out;
}

/** sha256, size and mtime of every floor file (lake, manifest, offsets, meta). */
export function floorSnapshot(sb: Sandbox): Record<string, string> {
  const snap: Record<string, string> = {};
  for (const dir of ['lake', 'manifest', 'offsets', 'meta']) {
    for (const f of listFiles(path.join(sb.brain, dir))) {
      const p = path.join(sb.brain, dir, f);
      const st = fs.statSync(p);
      snap[`${dir}/${f}`] = `${createHash('sha256').update(fs.readFileSync(p)).digest('hex')} ${st.size} ${st.mtimeMs}`;
    }
  }
  return snap;
}
