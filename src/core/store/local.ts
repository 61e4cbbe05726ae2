// The store as a local folder (a mounted disk, a synced folder): read directly, pushed with a
// local rsync behind the same store-side step as over ssh (script.ts run by `sh`).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Config } from '../config';
import type { Env } from '../home';
import { within } from '../safepath';
import { statOrNull, walkTree } from '../walk';
import { push, runCapture } from './rsync';
import type { Failure, PushRequest, Result, StoreEntry, StoreTransport } from './transport';

export class LocalFolder implements StoreTransport {
  readonly label: string;
  private readonly root: string;

  constructor(
    private readonly cfg: Config,
    private readonly env: Env,
  ) {
    this.root = cfg.store!.path;
    this.label = this.root;
  }

  /** Always true: nothing to connect to. */
  async ready(): Promise<boolean> {
    return true;
  }

  private missing(): Failure | null {
    if (statOrNull(this.root)?.isDirectory()) return null;
    return { label: 'store folder missing', message: `${this.root} does not exist`, hint: 'mount the store disk or fix [store] path' };
  }

  /** Errors: 'store folder missing' when the root is not a folder. An entry that vanishes while
   * it is walked is left out. */
  async list(): Promise<Result<StoreEntry[]>> {
    const m = this.missing();
    if (m) return { ok: false, failure: m };
    const out: StoreEntry[] = [];
    walkTree(this.root, (e) => {
      if (e.dir) out.push({ rel: e.rel, isDir: true, size: 0, mtime: 0 });
      else {
        const st = statOrNull(e.abs);
        if (st) out.push({ rel: e.rel, isDir: false, size: st.size, mtime: st.mtimeMs });
      }
    });
    return { ok: true, value: out };
  }

  /** Errors: 'store folder missing'; 'store not readable' when the file exists but cannot be read;
   * a path leading out of the store is refused the same way. Absent: null. */
  async readFile(rel: string): Promise<Result<string | null>> {
    const m = this.missing();
    if (m) return { ok: false, failure: m };
    try {
      return { ok: true, value: fs.readFileSync(within(this.root, rel, { what: 'a store path' }), 'utf8') };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, value: null };
      return { ok: false, failure: { label: 'store not readable', message: `cannot read ${path.join(this.root, rel)}: ${(e as Error).message}`, hint: "check the store folder's owner and permissions" } };
    }
  }

  /** Errors: 'store folder missing'; 'sync failed' naming rsync's exit for anything else. Files
   * not at the store are left out (rsync's exit 23). */
  async fetch(rels: string[], into: string): Promise<Result<void>> {
    const m = this.missing();
    if (m) return { ok: false, failure: m };
    const from = path.join(this.root, this.cfg.machine);
    const list = `${into.replace(/\/+$/, '')}.brain-fetch-list`;
    fs.writeFileSync(list, rels.join('\n') + '\n');
    try {
      const r = await runCapture(this.cfg.rsync_path, ['-a', '--files-from', list, `${from}/`, `${into}/`], this.env);
      if (r.code === 0 || r.code === 23) return { ok: true, value: undefined };
      return { ok: false, failure: { label: 'sync failed', message: `rsync from ${from} exited ${r.code ?? 'by signal'}: ${r.stderr.trim().split('\n').pop() ?? ''}`, hint: 'check the store folder' } };
    } finally {
      fs.rmSync(list, { force: true });
    }
  }

  /** Never rejects; see push in rsync.ts for run.failure. */
  push(o: PushRequest): ReturnType<StoreTransport['push']> {
    return push({ ...o, cfg: this.cfg, env: this.env });
  }
}
