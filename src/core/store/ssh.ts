// The store as host:path over ssh. Every call is one connection with the sync's ssh options
// (BatchMode, ConnectTimeout, ServerAlive; ssh_mux_only: the master only, sshcmd.ts). Reads ride
// rsync (list, fetch) or a plain ssh command (readFile), each behind the same guard as the push:
// a store folder that is not there is named as such, not as a failed transfer.
import * as fs from 'node:fs';
import type { Config } from '../config';
import type { Env } from '../home';
import { classifyFailure, push, runCapture } from './rsync';
import { muxCheck, sshBase, sshOptions } from './sshcmd';
import { scriptSafe } from './script';
import type { Failure, PushRequest, Result, StoreEntry, StoreTransport } from './transport';
import { setting } from '../settings';

/** Parses `rsync --list-only --no-human-readable` lines (run with TZ=UTC). */
export function parseListing(out: string): StoreEntry[] {
  const res: StoreEntry[] = [];
  for (const line of out.split('\n')) {
    const m = /^([-dlpscb])[rwxsStT-]{9}\S*\s+([\d,]+)\s+(\d{4})\/(\d\d)\/(\d\d) (\d\d):(\d\d):(\d\d) (.+)$/.exec(line);
    if (!m) continue;
    const rel = m[9].replace(/\/$/, '');
    if (rel === '.') continue;
    res.push({
      rel,
      isDir: m[1] === 'd',
      size: Number(m[2].replace(/,/g, '')),
      mtime: Date.UTC(+m[3], +m[4] - 1, +m[5], +m[6], +m[7], +m[8]),
    });
  }
  return res;
}

const MISSING = /^brain-store-missing (.*)$/m;

export class SshHost implements StoreTransport {
  readonly label: string;
  private readonly host: string;
  private readonly root: string;

  constructor(
    private readonly cfg: Config,
    private readonly env: Env,
  ) {
    const s = cfg.store!;
    this.host = s.host!;
    this.root = s.path;
    this.label = `${this.host}:${this.root}`;
  }

  /** ssh_mux_only: whether the master answers `ssh -O check` (false when it does not or ssh cannot
   * run); otherwise true without connecting (BatchMode makes a connection that would prompt fail). */
  async ready(): Promise<boolean> {
    return this.cfg.store!.ssh_mux_only ? muxCheck(this.cfg, this.env) : true;
  }

  private ssh(): string {
    return [...sshBase(this.env), ...sshOptions(this.cfg, this.env)].join(' ');
  }

  /** The remote rsync, started only when the store folder is there. */
  private guardedRsync(): string {
    if (!scriptSafe(this.root)) throw new Error('store path not shell-safe (config validation should have refused it)');
    return `--rsync-path=sh -c '[ -d "${this.root}" ] || { echo "brain-store-missing ${this.root}" >&2; exit 3; }; exec "$@"' brain-read rsync`;
  }

  private failed(code: number | null, stderr: string): Failure {
    return classifyFailure(this.cfg, code, stderr, false, MISSING.exec(stderr)?.[1])!;
  }

  /** Errors: 'store folder missing' (the guard), else classifyFailure of ssh's and rsync's words:
   * 'store unreachable', 'store refused login', 'store timed out', 'store has no rsync', 'sync failed'. */
  async list(): Promise<Result<StoreEntry[]>> {
    const args = ['-r', '--list-only', '--no-human-readable', `--timeout=${setting(this.env, 'BRAIN_IO_TIMEOUT')}`, '-e', this.ssh(), this.guardedRsync(), `${this.host}:${this.root}/`];
    const r = await runCapture(this.cfg.rsync_path, args, { ...this.env, TZ: 'UTC' });
    if (r.code !== 0) return { ok: false, failure: this.failed(r.code, r.stderr) };
    return { ok: true, value: parseListing(r.stdout) };
  }

  /** Errors as list; a path that is not shell-safe or leads out of the store: 'sync failed'. */
  async readFile(rel: string): Promise<Result<string | null>> {
    if (!scriptSafe(rel) || rel.split('/').includes('..') || rel.startsWith('/') || !scriptSafe(this.root)) {
      return { ok: false, failure: { label: 'sync failed', message: `cannot read ${JSON.stringify(rel)} at the store: not a plain relative path`, hint: 'this is a bug in brain; please report it' } };
    }
    // Exit 3: no store folder; 4: no such file. ssh itself exits 255 when it cannot connect.
    const cmd = `[ -d "${this.root}" ] || { echo "brain-store-missing ${this.root}" >&2; exit 3; }; [ -f "${this.root}/${rel}" ] || exit 4; cat "${this.root}/${rel}"`;
    const base = sshBase(this.env);
    const r = await runCapture(base[0], [...base.slice(1), ...sshOptions(this.cfg, this.env), this.host, cmd], this.env);
    if (r.code === 0) return { ok: true, value: r.stdout };
    if (r.code === 4) return { ok: true, value: null };
    return { ok: false, failure: this.failed(r.code, r.stderr) };
  }

  /** Errors as list. Files not at the store are left out (rsync's exit 23). */
  async fetch(rels: string[], into: string): Promise<Result<void>> {
    const list = `${into.replace(/\/+$/, '')}.brain-fetch-list`;
    fs.writeFileSync(list, rels.join('\n') + '\n');
    try {
      const args = ['-a', `--timeout=${setting(this.env, 'BRAIN_IO_TIMEOUT')}`, '--files-from', list, '-e', this.ssh(), this.guardedRsync(), `${this.host}:${this.root}/${this.cfg.machine}/`, `${into}/`];
      const r = await runCapture(this.cfg.rsync_path, args, this.env);
      if (r.code === 0 || (r.code === 23 && !MISSING.test(r.stderr))) return { ok: true, value: undefined };
      return { ok: false, failure: this.failed(r.code, r.stderr) };
    } finally {
      fs.rmSync(list, { force: true });
    }
  }

  /** Never rejects; see push in rsync.ts for run.failure. */
  push(o: PushRequest): ReturnType<StoreTransport['push']> {
    return push({ ...o, cfg: this.cfg, env: this.env });
  }
}
