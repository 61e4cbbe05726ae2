// Shared by the cache tests: a sandbox whose floor was captured by the real `capture` from the
// fixture copies, and a few small readers.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO, sandbox, type Sandbox } from '../../helpers/env';
import { capture } from '../../../src/core/floor/capture';

/** Fixture copies in HOME, captured into BRAIN_HOME (unterminated tails captured at once). */
export async function capturedSandbox(name: string, prepare?: (sb: Sandbox) => void, fixtures: true | 'all' = true): Promise<Sandbox> {
  const sb = sandbox({ fixtures, name });
  prepare?.(sb);
  const r = await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
  if (r.applied === 0) throw new Error('capture applied nothing');
  return sb;
}

/** Appends a line to a file (creating folders). */
export function appendLine(file: string, line: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.appendFileSync(file, line.endsWith('\n') ? line : line + '\n');
}

export function writeJsonl(file: string, objs: unknown[]): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, objs.map((o) => (typeof o === 'string' ? o : JSON.stringify(o)) + '\n').join(''));
}

import { createHash } from 'node:crypto';
import { runReadOnlySql } from '../../../src/core/cache';

export const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** Every manifest line of a floor, parsed independently of the code under test. */
export function manifestLines(brain: string): Record<string, unknown>[] {
  const f = path.join(brain, 'manifest', 'manifest.jsonl');
  return fs
    .readFileSync(f, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** All rows of a query (no cap). */
export async function all(brain: string, sql: string): Promise<unknown[][]> {
  const r = await runReadOnlySql(brain, sql, { limit: 10_000_000, timeZone: 'UTC' });
  return r.rows;
}

/** A digest of every cache table's content, to compare two caches of the same floor. */
export async function digest(brain: string): Promise<Record<string, string>> {
  const q = async (sql: string) => String((await all(brain, sql))[0][0]);
  return {
    raw_lines: await q(`SELECT md5(string_agg(concat_ws('|', file_id, witness_gen, byte_offset, line_no, line_sha256, n_bytes,
        utf8_replaced, lane, agent, event_time, captured_at, md5(raw_line)), chr(10) ORDER BY file_id, witness_gen, byte_offset)) FROM floor.raw_lines`),
    files: await q(`SELECT md5(string_agg(concat_ws('|', file_id, machine_id, agent, lane, abs_path, session_hint, first_seen), chr(10) ORDER BY file_id)) FROM floor.files`),
    chunks: await q(`SELECT md5(string_agg(concat_ws('|', manifest_offset, file_id, witness_gen, byte_from, byte_to, captured_at, lake_path), chr(10) ORDER BY manifest_offset)) FROM floor.chunks`),
    witnesses: await q(`SELECT md5(string_agg(concat_ws('|', file_id, observed_at, size_bytes, growth, new_lines), chr(10) ORDER BY file_id, observed_at, size_bytes)) FROM floor.witnesses`),
    ingest_state: await q(`SELECT md5(string_agg(concat_ws('|', file_id, witness_gen, last_size, last_offset, last_line_no, prefix_sha256), chr(10) ORDER BY file_id)) FROM floor.ingest_state`),
    derived_files: await q(`SELECT md5(string_agg(CAST(s AS VARCHAR), chr(10) ORDER BY file_id)) FROM derived.files s`),
    messages: await q(`SELECT md5(string_agg(concat_ws('|', msg_id, agent, session_id, role, model, md5(coalesce(text, '')), event_time, captured_at, turn_id, is_meta, project, machine_id, is_sidechain, parent_session), chr(10) ORDER BY msg_id)) FROM derived.messages`),
    tool_calls: await q(`SELECT md5(string_agg(CAST(t AS VARCHAR), chr(10) ORDER BY CAST(t AS VARCHAR))) FROM derived.tool_calls t`),
    usage_lines: await q(`SELECT md5(string_agg(CAST(u AS VARCHAR), chr(10) ORDER BY CAST(u AS VARCHAR))) FROM derived.usage_lines u`),
  };
}

/** Another process holding brain.duckdb open (read-write or read-only) for `ms`, then a query. */
export function holder(file: string, mode: 'rw' | 'ro', ms: number): Promise<{ child: ChildProcess; done: Promise<string> }> {
  const code = `
    const { DuckDBInstance } = require('@duckdb/node-api');
    (async () => {
      const i = await DuckDBInstance.create(${JSON.stringify(file)}, ${mode === 'ro' ? "{ access_mode: 'READ_ONLY' }" : '{}'});
      const c = await i.connect();
      process.stdout.write('ready\\n');
      await new Promise((r) => setTimeout(r, ${ms}));
      const n = (await c.runAndReadAll('SELECT count(*) FROM floor.raw_lines')).getRows()[0][0];
      process.stdout.write('rows ' + n + '\\n');
      c.closeSync(); i.closeSync();
    })().catch((e) => { process.stdout.write('error ' + e.message + '\\n'); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', code], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const done = new Promise<string>((resolve) => child.on('exit', () => resolve(out)));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready')) resolve({ child, done });
      if (out.includes('error')) reject(new Error(out));
    });
  });
}

/** A Claude Code session of the fixtures, and a user line to append to it. */
export const CC_SESSION = 'ef958aa1-0e93-49f0-bb71-150f63befcd1';

export function ccFile(home: string): string {
  return path.join(home, '.claude', 'projects', '-experiments-worktrees', `${CC_SESSION}.jsonl`);
}

export const userLine = (text: string, ts: string) =>
  JSON.stringify({ type: 'user', timestamp: ts, sessionId: CC_SESSION, cwd: '-experiments/worktrees', message: { role: 'user', content: text } });
