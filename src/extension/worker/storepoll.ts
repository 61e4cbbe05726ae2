// The backup state the status bar and the Backup view show: state.json (read every few seconds,
// sent only when it changed) and every machine at the store (slower: a walk, or one rsync listing
// over ssh, so at most once a minute, ten for an ssh store, and on demand).
import { describe } from '../../core/errors';
import { readConfig } from '../../core/config';
import { recordingProblem } from '../../core/floor/health';
import { sqliteLoadError } from '../../core/sqlite';
import { listMachines } from '../../core/store/machines';
import { retentionGuard, retentionWarning } from '../../core/store/retention';
import { effectiveWarning } from '../../core/store/state';
import type { BackupInfo } from '../protocol';
import type { WorkerCtx } from './context';

export class StorePoller {
  private lastJson = '';
  private store: { at: number; machines: BackupInfo['machines']; atRisk: number; label?: string } = { at: 0, machines: [], atRisk: 0 };
  private busy = false;

  constructor(private ctx: Pick<WorkerCtx, 'home' | 'params' | 'view' | 'emit' | 'log'>) {}

  /** Every machine at the store and the retention guard (`force`: now, however recent). */
  async refresh(force = false): Promise<void> {
    const { home, params } = this.ctx;
    const cfg = readConfig(home, params.env);
    const ssh = cfg.kind === 'ok' && !!cfg.config.store?.host;
    if (this.busy || (!force && Date.now() - this.store.at < (ssh ? 600_000 : 60_000))) return;
    this.busy = true;
    try {
      const ret = retentionGuard(home, params.env);
      const risk = retentionWarning(ret);
      let machines: BackupInfo['machines'] = [];
      let label: string | undefined;
      if (cfg.kind === 'ok' && cfg.config.store) {
        const m = await listMachines(cfg.config, params.env);
        if (m.ok) machines = m.machines.map((x) => ({ machine: x.machine, lastSync: x.newest ? new Date(x.newest).toISOString() : null, versions: x.versions, warnings: x.replaced ? [`${x.replaced} store copies replaced by repairs`] : [], atRisk: 0 }));
        else label = m.label;
      }
      const me = machines.find((x) => x.machine === this.ctx.view.machine);
      if (me) {
        me.atRisk = ret.atRisk.length;
        if (risk) me.warnings.push(risk);
      }
      this.store = { at: Date.now(), machines, atRisk: ret.atRisk.length, label };
    } catch (e) {
      this.ctx.log('warn', `reading the store: ${describe(e)}`);
    } finally {
      this.busy = false;
    }
  }

  /** The status bar's label comes from the core's one rule (effectiveWarning); this only sorts it. */
  info(): BackupInfo {
    const { home, params } = this.ctx;
    const cfg = readConfig(home, params.env);
    const store = cfg.kind === 'ok' && cfg.config.store ? (cfg.config.store.host ? `${cfg.config.store.host}:${cfg.config.store.path}` : cfg.config.store.path) : null;
    const eff = effectiveWarning(home, params.env);
    const st = eff.state;
    const w = eff.warning;
    const status: BackupInfo['status'] = !w ? (st?.last_ok ? 'ok' : 'none') : w === 'backup stale' ? 'stale' : /^(no backup yet|backup not set up)$/.test(w) ? 'none' : 'failing';
    const message = [eff.message, eff.hint].filter(Boolean).join(' — ');
    return { warning: w, status, lastOk: st?.last_ok ?? null, message, store, machines: this.store.machines, sqlite: sqliteLoadError() ?? null, recording: recordingProblem(home) };
  }

  /** Sends the backup state when it changed (the store's part refreshed when due). */
  poll(): void {
    void this.refresh().then(() => undefined);
    try {
      const b = this.info();
      const j = JSON.stringify(b);
      if (j !== this.lastJson) {
        this.lastJson = j;
        this.ctx.emit('backup', b);
      }
    } catch (e) {
      this.ctx.log('warn', `reading state.json: ${describe(e)}`);
    }
  }
}
