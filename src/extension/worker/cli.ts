// The CLI (the same core) as a child of the worker: for sync, status, doctor, backup, the DuckDB
// cache and brain_sql, whose work must not run inside the editor's process.
import { spawn, type ChildProcess } from 'node:child_process';
import * as os from 'node:os';
import { BrainError } from '../../core/errors';
import { brainHome } from '../../core/home';
import type { SqlResult } from '../../core/cache';
import type { CliRun, InitParams } from '../protocol';
import { sqlCommand } from '../recall';

export interface CliOptions {
  timeoutMs?: number;
  started?: (c: ChildProcess) => void;
  /** Background work: lower priority, and DuckDB kept to one thread. */
  background?: boolean;
}

export function runCli(params: InitParams, args: string[], opts: CliOptions = {}): Promise<CliRun> {
  const { timeoutMs = 10 * 60_000, started, background = false } = opts;
  return new Promise((resolve) => {
    // The bundled cli.js runs on the editor's own Node: in desktop VS Code process.execPath is
    // Electron, and ELECTRON_RUN_AS_NODE makes it plain Node. agentBrain.cliPath may name any
    // other `brain` executable.
    const js = /\.[cm]?js$/.test(params.cli);
    const child = spawn(js ? process.execPath : params.cli, js ? [params.cli, ...args] : args, {
      // Background work also keeps DuckDB to one thread (about 10% slower than two here).
      env: { ...process.env, ...params.env, ELECTRON_RUN_AS_NODE: '1', ...(background ? { BRAIN_DUCKDB_THREADS: '1' } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started?.(child);
    // Background work yields the CPU to the editor (its main thread shares the machine's cores).
    if (background && child.pid) {
      try {
        os.setPriority(child.pid, 10);
      } catch {
        /* not permitted here: it runs at normal priority */
      }
    }
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const t = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(t);
      resolve({ code: 127, stdout, stderr: stderr + String(e) });
    });
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

/** brain_sql through `brain sql --json`, once `before` (a running cache update, which holds the
 * cache's lock) has ended. */
export async function sqlViaCli(params: InitParams, query: string, limit: number, before: Promise<unknown>): Promise<SqlResult> {
  await before.catch(() => undefined);
  const env = { ...process.env, ...params.env };
  const cmd = sqlCommand(query, limit, brainHome(env), env);
  const r = await runCli(params, cmd.args, { timeoutMs: cmd.killAfterMs });
  if (r.code === 0) return JSON.parse(r.stdout) as SqlResult;
  // `brain sql --json` says its error as JSON on stdout ({error, message, hint}).
  let e: { error?: string; message?: string; hint?: string } = {};
  try {
    e = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
  } catch {
    /* killed before it could say anything: the exit code is all there is */
  }
  throw new BrainError(r.code === 2 ? 'usage' : e.error && e.error !== 'internal' ? e.error : 'sql', e.message || `brain sql exited ${r.code}${r.stderr ? `: ${r.stderr.trim().split('\n')[0]}` : ''}`, e.hint);
}
