// scripts/longest.mjs: function lengths measured by Biome's parser, and lint's check over them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(__dirname, '..', '..');

type Long = { file: string; line: number; name: string; lines: number };
type Mod = {
  lengths: (min: number, dirs?: string[], base?: string) => Long[];
  problems: (dirs?: string[], base?: string, allowed?: Record<string, string>, limit?: number) => string[];
  nameAt: (line: string, column: number) => string;
};
const load = async () => (await import(path.join(ROOT, 'scripts', 'longest.mjs'))) as Mod;

/** A body of `n` lines, with a brace in a string, a comment and a template literal among them. */
const body = (n: number) =>
  Array.from({ length: n }, (_, i) => (i === 0 ? "  const open = '{';" : i === 1 ? '  // } not a brace' : i === 2 ? '  const t = `$' + '{open}}`;' : `  void ${i};`)).join('\n');

test('longest: every kind of function is measured by its body, nested ones inside their outer one too, and named', async () => {
  const { lengths } = await load();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brain-longest-'));
  try {
    fs.mkdirSync(path.join(tmp, 'src'));
    const text = [
      `export function plain(): void {\n${body(12)}\n}`,
      `export const arrow = async (a: number): Promise<void> => {\n${body(8)}\n  void a;\n}`,
      `export class K {\n  private method(): void {\n${body(10)}\n  }\n}`,
      `export function outer(): number[] {\n  return [1].map((v) => {\n${body(6)}\n    return v;\n  });\n}`,
      `export function short(): void {\n${body(3)}\n}`,
    ].join('\n');
    fs.writeFileSync(path.join(tmp, 'src', 'a.ts'), `${text}\n`);
    const got = lengths(9, ['src'], tmp).map((f) => `${f.file}:${f.line} ${f.name} ${f.lines}`);
    assert.deepEqual(got, ['src/a.ts:1 plain 12', 'src/a.ts:27 method 10', 'src/a.ts:15 arrow 9']);
    const all = lengths(2, ['src'], tmp).map((f) => `${f.name} ${f.lines}`);
    assert.ok(all.includes('outer 8') && all.includes('callback of map 7') && all.includes('short 3'), all.join('\n'));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('longest: lint reports a function over the limit, not one the allow-list names, and an allow-list entry no longer needed', async () => {
  const { problems } = await load();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brain-longest-'));
  try {
    fs.mkdirSync(path.join(tmp, 'src'));
    fs.writeFileSync(path.join(tmp, 'src', 'a.ts'), `export function long(): void {\n${body(11)}\n}\nexport function kept(): void {\n${body(11)}\n}\nexport function fine(): void {\n${body(10)}\n}\n`);
    const p = problems(['src'], tmp, { 'src/a.ts:kept': 'a reason', 'src/a.ts:fine': 'a reason' }, 10);
    assert.equal(p.length, 2, p.join('\n'));
    assert.match(p[0], /^src\/a\.ts:1: function long has 11 lines, over 10/);
    assert.match(p[1], /LONG_OK names src\/a\.ts:fine, which is no longer over 10 lines/);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('longest: names where Biome places a function start', async () => {
  const { nameAt } = await load();
  assert.equal(nameAt('export async function go(a) {', 1), 'go');
  assert.equal(nameAt('  static async *gen<T>(x: T) {', 3), 'gen');
  assert.equal(nameAt('export const h: Handler = async (a) => {', 27), 'h');
  assert.equal(nameAt('const o = { k: function (a) {', 16), 'k');
  assert.equal(nameAt("  context.subscriptions.push(vscode.commands.registerCommand('x', () => {", 67), 'callback of vscode.commands.registerCommand');
});
