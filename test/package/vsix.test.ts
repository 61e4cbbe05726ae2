// `npm run package` makes one .vsix per VS Code platform target, each with exactly that platform's
// native binaries: every binary inside is of the target's format and CPU (ELF for Linux, Mach-O
// for macOS, PE for Windows), and the two native modules find theirs. The linux-x64 one's modules
// then load, from the unpacked .vsix, under this Node (≥ 22) and under the e2e VS Code's Node 24,
// with FTS5 trigram working: what the turn index needs.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { REPO } from '../helpers/env';
import { readZip, zipHead, type ZipEntry } from '../helpers/zip';
import { binFormat, type BinFormat } from '../helpers/binformat';

const EXPECT: Record<string, { format: BinFormat; sqlite: string; duckdb: string }> = {
  'linux-x64': { format: 'elf-x64', sqlite: 'linux-x64', duckdb: 'linux-x64' },
  'linux-arm64': { format: 'elf-arm64', sqlite: 'linux-arm64', duckdb: 'linux-arm64' },
  'darwin-x64': { format: 'macho-x64', sqlite: 'darwin-x64', duckdb: 'darwin-x64' },
  'darwin-arm64': { format: 'macho-arm64', sqlite: 'darwin-arm64', duckdb: 'darwin-arm64' },
  'win32-x64': { format: 'pe-x64', sqlite: 'win32-x64', duckdb: 'win32-x64' },
};

test('binary formats are told apart by their bytes', () => {
  const fixtures = path.join(REPO, 'node_modules', 'better-sqlite3', 'prebuilds');
  const seen = Object.fromEntries(fs.readdirSync(fixtures).map((f) => [f, binFormat(fs.readFileSync(path.join(fixtures, f)).subarray(0, 4096))]));
  assert.deepEqual(seen, {
    'darwin-arm64.node': 'macho-arm64',
    'darwin-x64.node': 'macho-x64',
    'linux-arm64.node': 'elf-arm64',
    'linux-x64.node': 'elf-x64',
    'linuxmusl-arm64.node': 'elf-arm64',
    'linuxmusl-x64.node': 'elf-x64',
    'win32-arm64.node': 'pe-arm64',
    'win32-x64.node': 'pe-x64',
  });
  assert.equal(binFormat(Buffer.from('#!/bin/sh\necho hi\n')), 'unknown');
});

const OUT = path.join(REPO, '.test-work', 'vsix-test');

function isNativeName(n: string): boolean {
  return /\.(node|so(\.\d+)*|dylib|dll|exe)$/.test(n);
}

test('one VSIX per platform target, each with only its own platform binaries', () => {
  fs.rmSync(OUT, { recursive: true, force: true });
  const r = spawnSync(process.execPath, [path.join(REPO, 'scripts', 'package.mjs'), '--no-build', '--out-dir', OUT, '--target', Object.keys(EXPECT).join(',')], {
    cwd: REPO,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(r.status, 0, `package.mjs failed:\n${r.stdout}\n${r.stderr}`);
  // vsce packages with the licence and the repository it finds (no --skip-license, no
  // --allow-missing-repository) and has nothing to warn about (e.g. hundreds of unbundled files).
  assert.doesNotMatch(`${r.stdout}\n${r.stderr}`, /WARNING|--skip-license|--allow-missing-repository/, 'vsce warned');
  const version = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version;
  for (const [target, want] of Object.entries(EXPECT)) {
    const file = path.join(OUT, `agent-brain-${target}-${version}.vsix`);
    assert.ok(fs.existsSync(file), `${file} was not written`);
    const { buf, entries } = readZip(file);
    const manifest = zipHead(buf, entries.find((e) => e.name === 'extension.vsixmanifest') as ZipEntry, 1 << 16).toString('utf8');
    assert.match(manifest, new RegExp(`TargetPlatform="${target}"`), `${target}: the manifest names its target`);
    // Every binary in the package, found by its bytes (not only by its name), is the target's kind.
    const binaries: string[] = [];
    for (const e of entries) {
      if (e.size === 0) continue;
      const f = binFormat(zipHead(buf, e));
      const looksNative = f !== 'unknown' || isNativeName(e.name);
      if (!looksNative) continue;
      binaries.push(e.name);
      // DuckDB's macOS packages carry libduckdb.dylib as one universal binary (both Mac CPUs); it
      // must at least hold the target's.
      if (f.startsWith('macho-universal:') && want.format.startsWith('macho-')) {
        assert.ok(f.slice(16).split('+').includes(want.format.slice(6)), `${target}: ${e.name} is ${f}, without ${want.format}`);
      } else assert.equal(f, want.format, `${target}: ${e.name} is ${f}, wanted ${want.format}`);
    }
    assert.ok(entries.some((e) => e.name === 'extension/media/walkthrough/store.md'), `${target}: the walkthrough's pages are packaged`);
    assert.match(manifest, /<Icon>extension\/media\/icon\.png<\/Icon>|Path="extension\/media\/icon\.png"/, `${target}: an icon`);
    assert.match(manifest, /Microsoft\.VisualStudio\.Services\.Links\.Source" Value="https:\/\/github\.com\//, `${target}: the repository`);
    assert.ok(entries.some((e) => /^extension\/LICENSE(\.txt)?$/i.test(e.name)), `${target}: the licence`);
    const readme = entries.find((e) => /^extension\/readme\.md$/i.test(e.name)) as ZipEntry;
    assert.ok(readme, `${target}: a README`);
    const text = zipHead(buf, readme, 1 << 16).toString('utf8');
    assert.ok(text.split('\n').length < 80, `${target}: the details page is the extension's own short README`);
    assert.ok(entries.filter((e) => e.name.endsWith('.js')).length <= 100, `${target}: at most 100 JavaScript files`);
    // The e2e suite's test commands are not in a production package, neither their code nor their entries.
    assert.ok(!entries.some((e) => /testhooks/i.test(e.name)), `${target}: no test hooks`);
    const pkg = zipHead(buf, entries.find((e) => e.name === 'extension/package.json') as ZipEntry, 1 << 20).toString('utf8');
    assert.doesNotMatch(pkg, /agentBrain\.test\./, `${target}: no test commands contributed`);
    const nm = 'extension/node_modules/';
    assert.deepEqual(
      binaries.filter((n) => n.endsWith('.node')).sort(),
      [`${nm}@duckdb/node-bindings-${want.duckdb}/duckdb.node`, `${nm}better-sqlite3/prebuilds/${want.sqlite}.node`].sort(),
      `${target}: exactly one better-sqlite3 and one DuckDB binding`,
    );
    const dirs = new Set(entries.map((e) => e.name.split('/').slice(0, 4).join('/')).filter((n) => n.startsWith(`${nm}@duckdb/node-bindings-`)));
    assert.deepEqual([...dirs], [`${nm}@duckdb/node-bindings-${want.duckdb}`], `${target}: no other platform's DuckDB package`);
  }
});

/** The .vsix's extension/ folder unpacked (node_modules only: what loading needs). */
function unpackModules(file: string, to: string): string {
  const { buf, entries } = readZip(file);
  for (const e of entries) {
    if (!e.name.startsWith('extension/node_modules/') || e.name.endsWith('/')) continue;
    const lh = e.offset;
    const start = lh + 30 + buf.readUInt16LE(lh + 26) + buf.readUInt16LE(lh + 28);
    const raw = buf.subarray(start, start + e.compressed);
    const data = e.method === 0 ? raw : zlib.inflateRawSync(raw);
    const dest = path.join(to, e.name);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.writeFileSync(dest, data);
  }
  return path.join(to, 'extension');
}

test('the linux-x64 VSIX loads its SQLite (FTS5 trigram) and DuckDB under Node 22 and Node 24', async (t) => {
  const version = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version;
  const file = path.join(OUT, `agent-brain-linux-x64-${version}.vsix`);
  assert.ok(fs.existsSync(file), 'the packaging test above writes it');
  const ext = unpackModules(file, path.join(OUT, 'unpacked-linux-x64'));
  const probe = `
    const path = require('path');
    const D = require(path.join(${JSON.stringify(ext)}, 'node_modules', 'better-sqlite3'));
    const db = new D(':memory:');
    db.exec("create virtual table t using fts5(x, tokenize='trigram')");
    db.prepare('insert into t(x) values (?)').run('the needleInHaystack line');
    const n = db.prepare("select count(*) n from t where t match ?").get('"leinhay"').n;
    const { DuckDBInstance } = require(path.join(${JSON.stringify(ext)}, 'node_modules', '@duckdb', 'node-api'));
    DuckDBInstance.create(':memory:').then(async (i) => {
      const c = await i.connect();
      const r = await c.runAndReadAll('select 41 + 1 as v');
      console.log(JSON.stringify({ node: process.versions.node, fts: n, duck: Number(r.getRowObjects()[0].v) }));
    });`;
  const nodes: [string, string][] = [['this Node', process.execPath]];
  const rt = (await import(path.join(REPO, 'scripts', 'setup', '50-e2e.mjs'))).runtime();
  if (fs.existsSync(rt.node)) nodes.push(['the e2e Node 24', rt.node]);
  else t.diagnostic(`the e2e Node 24 is not installed at ${rt.node} (scripts/setup/50-e2e.mjs): checked under this Node only`);
  assert.ok(Number(process.versions.node.split('.')[0]) >= 22, `tests run on Node ≥ 22, this is ${process.versions.node}`);
  for (const [what, node] of nodes) {
    const r = spawnSync(node, ['-e', probe], { encoding: 'utf8', cwd: OUT, env: { PATH: process.env.PATH } });
    assert.equal(r.status, 0, `${what}: ${r.stderr}`);
    const j = JSON.parse(r.stdout.trim());
    assert.deepEqual({ fts: j.fts, duck: j.duck }, { fts: 1, duck: 42 }, `${what} (${j.node})`);
  }
});
