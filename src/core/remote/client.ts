// Asking the store: one request, answered where the data is (host.ts). A local store folder is
// answered in this process; an ssh store by `node -` on the store host, over one connection with
// the sync's ssh options (ssh_mux_only: only over a running master, else not at all).
import { childProcess } from '../lazy';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Config } from '../config';
import type { Env } from '../home';
import { classifyFailure, storeLabel } from '../store/rsync';
import { muxCheck, sshBase, sshOptions } from '../store/sshcmd';
import type { Failure } from '../store/transport';
import type { IndexUse } from '../recall/types';
import { BrainError } from '../errors';
import { setting } from '../settings';
import { answer } from './host';
import { encodeRequest, type StoreReplies, type StoreReply, type StoreRequest } from './protocol';

export type StoreAnswer<T> =
  | { kind: 'value'; value: T }
  /** The store side ran and refused (a session not there, a store folder missing). */
  | { kind: 'error'; error: BrainError }
  /** The store could not be asked: no master, no connection, no node there. */
  | { kind: 'unreachable'; failure: Failure };

/** dist/remote.js beside the running bundle, or the built one when running from source. */
export function remoteBundle(): string | null {
  for (const f of [path.join(__dirname, 'remote.js'), path.resolve(__dirname, '..', '..', '..', 'dist', 'remote.js')]) {
    if (fs.existsSync(f)) return f;
  }
  return null;
}

function fromReply<T>(r: StoreReply<T>): StoreAnswer<T> {
  return r.ok ? { kind: 'value', value: r.value } : { kind: 'error', error: new BrainError(r.error.code, r.error.message, r.error.hint) };
}

export async function askStore<K extends StoreRequest['op']>(cfg: Config, env: Env, req: Extract<StoreRequest, { op: K }>, index: IndexUse = 'live'): Promise<StoreAnswer<StoreReplies[K]>> {
  const store = cfg.store;
  if (!store) throw new Error(`${cfg.file} has no [store]`);
  if (!store.host) return fromReply(answer(store.path, req, env, { index }) as StoreReply<StoreReplies[K]>);
  if (store.ssh_mux_only && !(await muxCheck(cfg, env))) {
    return { kind: 'unreachable', failure: { label: `no ssh master for ${store.host}`, message: `no ssh master for ${store.host} (ssh_mux_only), so the store was not asked`, hint: `open one (ssh -fN ${store.host}), then ask again` } };
  }
  const bundle = remoteBundle();
  if (!bundle) return { kind: 'unreachable', failure: { label: 'store search missing', message: 'dist/remote.js, the search sent to the store host, is not beside brain', hint: 'build brain again (node scripts/build.mjs) or reinstall it' } };
  const timeout = setting(env, 'BRAIN_STORE_TIMEOUT');
  // The store side stops at `timeout`; this side waits that long plus the connection's own time,
  // then ends ssh (and, through the closed connection, the store side if it is still there).
  const waitMs = timeout > 0 ? (timeout + (setting(env, 'BRAIN_CONNECT_TIMEOUT') ?? 20) + 10) * 1000 : 0;
  const r = await runSsh(cfg, env, encodeRequest(store.path, req, index === 'off', timeout), fs.readFileSync(bundle), waitMs);
  if (r.timedOut) {
    return { kind: 'unreachable', failure: { label: 'store too slow', message: `the store ${storeLabel(cfg)} did not answer within ${Math.round(waitMs / 1000)} s, so it was left`, hint: 'see `brain doctor`; a store machine folder that costs this much is named by a search with --scan there (BRAIN_STORE_TIMEOUT sets the limit)' } };
  }
  if (r.code === 0) {
    try {
      return fromReply(JSON.parse(r.stdout) as StoreReply<StoreReplies[K]>);
    } catch {
      /* not our answer: said below */
    }
  }
  return { kind: 'unreachable', failure: sideFailure(cfg, r.code, r.stderr) };
}

function sideFailure(cfg: Config, code: number | null, stderr: string): Failure {
  const host = cfg.store!.host!;
  if (code === 127 || /node: (command )?not found|No such file or directory.*node/i.test(stderr)) {
    return { label: 'store has no node', message: `node is not on the PATH of ${host}, so the search cannot run there`, hint: `install Node.js 20 or newer on ${host} (nothing else is needed there); until then brain reads this machine only` };
  }
  if (code === 255 || code === null) return classifyFailure(cfg, code, stderr, false)!;
  const last = stderr.trim().split('\n').pop() ?? '';
  return { label: 'store search failed', message: `the search on ${storeLabel(cfg)} exited ${code}${last ? `: ${last}` : ''}`, hint: `check node on ${host} (ssh ${host} node --version: 20 or newer)` };
}

/** ssh HOST node - ARG, the bundle on stdin. */
function runSsh(cfg: Config, env: Env, arg: string, script: Buffer, waitMs: number): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    let timedOut = false;
    const base = sshBase(env);
    const out: Buffer[] = [];
    let stderr = '';
    const c = childProcess().spawn(base[0], [...base.slice(1), ...sshOptions(cfg, env), cfg.store!.host!, `node - ${arg}`], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...env, LC_ALL: 'C' } as NodeJS.ProcessEnv });
    c.stdout.on('data', (d: Buffer) => out.push(d));
    c.stderr.on('data', (d) => (stderr += d.toString()));
    c.stdin.on('error', () => {
      /* the far side closed early: its exit says why */
    });
    const timer =
      waitMs > 0
        ? setTimeout(() => {
            timedOut = true;
            c.kill('SIGTERM');
          }, waitMs)
        : null;
    c.on('error', (e) => {
      if (timer) clearTimeout(timer);
      resolve({ code: null, stdout: '', stderr: e.message, timedOut });
    });
    c.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr, timedOut });
    });
    c.stdin.end(script);
  });
}
