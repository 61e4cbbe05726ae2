// Every other machine's sessions at an ssh store, for the Sessions view: asked of the store host in
// the background (one connection, the store side lists them where they are), kept in memory and in
// BRAIN_HOME/store-sessions.json (a cache: shown at once after a restart, replaced by the next
// answer), asked again after each sync and every ten minutes. A local store folder needs none of
// this: the floor view reads its machines directly.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readConfig } from '../../core/config';
import { describe } from '../../core/errors';
import type { Env } from '../../core/home';
import type { ListedSession, SessionView } from '../../core/recall/floorview';
import { readEverywhere, storeSessions } from '../../core/remote/everywhere';

export const STORE_SESSIONS_EVERY_MS = 600_000;

export class StoreSessions {
  private list: ListedSession[] = [];
  private at = 0;
  private busy: Promise<number> | null = null;
  /** Why the last ask failed (null when it answered). */
  problem: string | null = null;

  constructor(
    private readonly home: string,
    private readonly env: Env,
    private readonly onChange: (n: number) => void = () => undefined,
  ) {
    this.list = this.readCache();
  }

  private cacheFile(): string {
    return path.join(this.home, 'store-sessions.json');
  }

  private sshStore(): boolean {
    const c = readConfig(this.home, this.env);
    return c.kind === 'ok' && !!c.config.store?.host;
  }

  private readCache(): ListedSession[] {
    if (!this.sshStore()) return [];
    try {
      const j = JSON.parse(fs.readFileSync(this.cacheFile(), 'utf8')) as { sessions?: ListedSession[] };
      return Array.isArray(j.sessions) ? j.sessions : [];
    } catch {
      return [];
    }
  }

  sessions(): ListedSession[] {
    return this.sshStore() ? this.list : [];
  }

  /** Asks the store when due (`force`: now). Resolves with the sessions that changed (0 when none,
   * or when the store could not be asked; `problem` says why). */
  refresh(force = false): Promise<number> {
    if (this.busy) return this.busy;
    if (!this.sshStore() || (!force && Date.now() - this.at < STORE_SESSIONS_EVERY_MS)) return Promise.resolve(0);
    this.busy = this.ask().finally(() => (this.busy = null));
    return this.busy;
  }

  private async ask(): Promise<number> {
    this.at = Date.now();
    const r = await storeSessions(this.env);
    if (!r.ok) {
      this.problem = `${r.label}: ${r.message}`;
      return 0;
    }
    this.problem = null;
    const before = new Map(this.list.map((s) => [`${s.machine}\0${s.lane}\0${s.session}`, JSON.stringify(s)]));
    const changed = r.sessions.filter((s) => before.get(`${s.machine}\0${s.lane}\0${s.session}`) !== JSON.stringify(s)).length + Math.max(0, before.size - r.sessions.length);
    this.list = r.sessions;
    try {
      const tmp = `${this.cacheFile()}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify({ at: new Date(this.at).toISOString(), store: r.label, sessions: r.sessions }), { mode: 0o600 });
      fs.renameSync(tmp, this.cacheFile());
    } catch (e) {
      this.problem = `cannot keep the store's sessions in ${this.cacheFile()}: ${describe(e)}`;
    }
    if (changed > 0) this.onChange(changed);
    return changed;
  }

  /** Another machine's session, read where the store keeps it; undefined when it is not one of
   * the store's (the caller's own view answers for this machine). */
  async view(session: string, machine?: string): Promise<SessionView | undefined> {
    if (!machine || !this.sshStore()) return undefined;
    const info = this.list.find((s) => s.machine === machine && (s.session === session || s.native_session === session));
    const r = await readEverywhere({ session, machine, max_chars: 4000 }, this.env, { index: 'off' });
    return { info: info ?? { ...r.session, project: r.session.project ?? '(unknown)', title: r.session.title || `(${r.session.session})`, agentLabel: r.session.agent, lakePath: r.turns[0]?.citation.lake_path ?? '', root: '', bytes: 0, lines: 0 }, turns: r.turns };
  }
}
