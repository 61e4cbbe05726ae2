// `brain init` as a list of steps, each idempotent: it looks at what is there and changes only
// what is not right yet, so a second init changes nothing. Steps report; they never throw for a
// problem the user can fix (they say how). Later steps (MCP registration, skill links) are one more
// InitStep in the CLI's list.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'smol-toml';
import { parseStoreArg, readConfig, renderConfig, tomlErrorMessage, validateConfig, type TemplateValues } from '../config';
import { BrainError, describe, notWritable } from '../errors';
import { ensureHome, layout, mkdirPrivate, type Env } from '../home';
import { writeFileAtomic } from '../floor/durable';
import { applyHooks, planHooks } from './hooks';
import { installTimer, timerPlan, type Platform } from './timer';

export interface InitOptions {
  /** --store PATH | HOST:PATH */
  store?: string;
  machine?: string;
  sshMuxOnly?: boolean;
  hooks?: boolean;
  timer?: boolean;
}

export interface InitContext {
  home: string;
  env: Env;
  /** [node, brain script], pinned into hooks and the timer. */
  brainCmd: string[];
  platform?: Platform;
  opts: InitOptions;
  /** --dry-run: each step says what it would change (status 'would change'), and nothing is written. */
  dryRun?: boolean;
}

export interface StepResult {
  step: string;
  status: 'changed' | 'unchanged' | 'skipped' | 'failed' | 'note' | 'would change';
  detail: string;
  fix?: string;
}

export interface InitStep {
  name: string;
  run(ctx: InitContext): Promise<StepResult[]>;
}

/** `command -v rsync` as an absolute path, so the timer finds the same one. */
export function resolveRsync(env: Env): string {
  const r = spawnSync('sh', ['-c', 'command -v rsync'], { encoding: 'utf8', env: env as NodeJS.ProcessEnv });
  const p = r.stdout?.trim();
  return r.status === 0 && p && path.isAbsolute(p) ? p : 'rsync';
}

export const configStep: InitStep = {
  name: 'config',
  async run(ctx) {
    const l = layout(ctx.home);
    if (!ctx.dryRun) ensureHome(ctx.home);
    const file = l.config;
    let existing: Record<string, unknown> | null = null;
    if (fs.existsSync(file)) {
      try {
        existing = parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      } catch (e) {
        return [
          {
            step: 'config',
            status: 'failed',
            detail: `${tomlErrorMessage(file, e)}; it is never overwritten`,
            fix: `fix it by hand, or move it away and run brain init again`,
          },
        ];
      }
    }
    const want: TemplateValues = {};
    const cur = (existing ?? {}) as { machine?: string; rsync_path?: string; interval?: number; store?: { path?: string; host?: string; ssh_mux_only?: boolean } };
    want.machine = ctx.opts.machine ?? (typeof cur.machine === 'string' ? cur.machine : undefined);
    want.rsync_path = typeof cur.rsync_path === 'string' ? cur.rsync_path : resolveRsync(ctx.env);
    want.interval = typeof cur.interval === 'number' ? cur.interval : undefined;
    let newStore: { path: string; host?: string } | undefined;
    if (ctx.opts.store) newStore = parseStoreArg(ctx.opts.store);
    if (newStore) want.store = { ...newStore, ssh_mux_only: ctx.opts.sshMuxOnly ?? (newStore.host && cur.store?.host === newStore.host ? cur.store?.ssh_mux_only : undefined) };
    else if (cur.store && typeof cur.store.path === 'string') want.store = { path: cur.store.path, host: cur.store.host, ssh_mux_only: ctx.opts.sshMuxOnly ?? cur.store.ssh_mux_only };
    else if (ctx.opts.sshMuxOnly) return [{ step: 'config', status: 'failed', detail: '--ssh-mux-only needs an ssh store', fix: 'brain init --store HOST:/PATH --ssh-mux-only' }];

    const same =
      existing !== null &&
      (want.machine ?? undefined) === (cur.machine ?? undefined) &&
      (want.store?.path ?? undefined) === (cur.store?.path ?? undefined) &&
      (want.store?.host ?? undefined) === (cur.store?.host ?? undefined) &&
      !!want.store?.ssh_mux_only === !!cur.store?.ssh_mux_only;
    const results: StepResult[] = [];
    if (same) {
      const r = readConfig(ctx.home, { ...ctx.env, BRAIN_MACHINE: undefined });
      if (r.kind === 'invalid') return [{ step: 'config', status: 'failed', detail: r.error.message, fix: r.error.hint }];
      results.push({ step: 'config', status: 'unchanged', detail: `${file} is up to date` });
      if (!want.store) results.push({ step: 'config', status: 'note', detail: 'no store yet: nothing is backed up', fix: 'brain init --store PATH   (or --store HOST:PATH)' });
      return results;
    }
    // The store folder is created once, only when this init names it: a path already in the
    // config that has gone missing (an unmounted disk) must fail, not be recreated empty.
    const named = newStore && !newStore.host && newStore.path !== cur.store?.path;
    if (named && newStore && path.isAbsolute(newStore.path) && !fs.existsSync(newStore.path)) {
      if (ctx.dryRun) results.push({ step: 'store folder', status: 'would change', detail: `would create ${newStore.path}` });
      else try {
        mkdirPrivate(newStore.path);
        results.push({ step: 'store folder', status: 'changed', detail: `created ${newStore.path}` });
      } catch (e) {
        return [{ step: 'store folder', status: 'failed', detail: `cannot create ${newStore.path}: ${describe(e)}`, fix: 'create it yourself (or mount the disk), then run brain init again' }];
      }
    }
    const text = renderConfig(want);
    // A dry run did not make the store folder it names: the check that it exists is the real run's.
    if (!(ctx.dryRun && named)) try {
      validateConfig(parse(text) as Record<string, unknown>, file, { ...ctx.env, BRAIN_MACHINE: undefined });
    } catch (e) {
      if (e instanceof BrainError) return [...results, { step: 'config', status: 'failed', detail: e.message, fix: e.hint }];
      throw e;
    }
    if (ctx.dryRun) {
      results.push({ step: 'config', status: 'would change', detail: `would ${existing ? 'update' : 'write'} ${file}` });
      return results;
    }
    writeFileAtomic(file, text);
    results.push({ step: 'config', status: 'changed', detail: `${existing ? 'updated' : 'wrote'} ${file}${want.store ? ` (store ${want.store.host ? `${want.store.host}:` : ''}${want.store.path})` : ''}` });
    if (!want.store) results.push({ step: 'config', status: 'note', detail: 'no store yet: nothing is backed up', fix: 'brain init --store PATH   (or --store HOST:PATH)' });
    else if (want.store.host) results.push({ step: 'config', status: 'note', detail: `the folder ${want.store.path} must exist on ${want.store.host}; each sync creates only its own <machine>/ inside it`, fix: `ssh ${want.store.host} mkdir -p ${want.store.path}` });
    return results;
  },
};

export const hooksStep: InitStep = {
  name: 'hooks',
  async run(ctx) {
    if (ctx.opts.hooks === false) return [{ step: 'hooks', status: 'skipped', detail: '--no-hooks' }];
    const planned = planHooks(ctx.brainCmd, ctx.env);
    const plan = ctx.dryRun ? planned : applyHooks(planned);
    const done = ctx.dryRun ? 'would change' : 'changed';
    return plan.map((p) => ({
      step: `hook ${p.agent}`,
      status: p.action === 'ok' ? 'unchanged' : p.action === 'unparsable' || p.action === 'foreign' ? 'failed' : done,
      detail: `${p.file}: ${p.detail}${p.note && p.action !== 'ok' ? ` (${p.note})` : ''}`,
      fix: p.action === 'unparsable' ? `fix ${p.file}, then brain init` : p.action === 'foreign' ? `move ${p.file} away, then brain init` : undefined,
    }));
  },
};

export const timerStep: InitStep = {
  name: 'timer',
  async run(ctx) {
    if (ctx.opts.timer === false) return [{ step: 'timer', status: 'skipped', detail: '--no-timer' }];
    if (ctx.dryRun) {
      const plan = timerPlan(ctx.brainCmd, ctx.env, ctx.platform);
      const out: StepResult[] = [];
      for (const f of plan.files) {
        let old: string | null = null;
        try {
          old = fs.readFileSync(f.path, 'utf8');
        } catch {
          /* new */
        }
        out.push(old === f.content ? { step: 'timer', status: 'unchanged', detail: `${f.path} up to date` } : { step: 'timer', status: 'would change', detail: `would write ${f.path} and enable the timer` });
      }
      return out;
    }
    const r = installTimer(ctx.brainCmd, ctx.env, ctx.platform);
    const out: StepResult[] = [];
    for (const f of r.written) out.push({ step: 'timer', status: 'changed', detail: `wrote ${f}` });
    if (r.written.length === 0 && r.unchanged.length > 0) out.push({ step: 'timer', status: 'unchanged', detail: `${r.unchanged.join(', ')} up to date${r.activated ? ', running' : ''}` });
    if (r.note) out.push({ step: 'timer', status: 'note', detail: r.note });
    return out;
  },
};

export const STORE_INIT_STEPS: InitStep[] = [configStep, hooksStep, timerStep];

export async function runInit(ctx: InitContext, steps: InitStep[] = STORE_INIT_STEPS): Promise<StepResult[]> {
  const out: StepResult[] = [];
  for (const s of steps) {
    try {
      out.push(...(await s.run(ctx)));
    } catch (e) {
      out.push({ step: s.name, status: 'failed', detail: describe(notWritable(e, ctx.home) ?? e) });
    }
  }
  return out;
}
