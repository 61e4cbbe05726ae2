import { readConfig } from '../core/config';
import { brainHome } from '../core/home';
import { machineName } from '../core/machine';
import { ageText, listMachines } from '../core/store/machines';
import { syncPaths } from '../core/store/paths';
import { retentionGuard, retentionWarning } from '../core/store/retention';
import { effectiveWarning, mtimeOf } from '../core/store/state';
import { recordingProblem } from '../core/floor/health';
import { recentFailures } from '../core/floor/failures';
import { VERSION } from '../core/store/version';
import { humanBytes, write, type Verb } from './args';

export const status: Verb = {
  name: 'status',
  summary: "This machine's last sync and warning, and every machine in the store with its versions.",
  usage: 'status [--local] [--json]',
  details: `The warning is what every front end shows ('' while backups work; "backup stale" when a change has
waited over max(30 min, interval + 10 min) for a sync that worked; "recording failing: disk full" and the
like, first, when the last capture pass failed or the disk has no room left). The sync and capture failures of the
last 24 h (failures.jsonl) are listed even when the last run worked. The store part reads the store (one ssh
connection for an ssh store); --local skips it. Exit 0 when no warning, 1 otherwise.`,
  options: [
    { name: 'local', type: 'bool', help: 'do not read the store' },
    { name: 'json', type: 'bool', help: 'machine-readable' },
  ],
  async run(args, ctx) {
    const home = brainHome(ctx.env);
    const now = Date.now();
    const eff = effectiveWarning(home, ctx.env, now);
    const lastOk = mtimeOf(syncPaths(home).lastOk);
    const ret = retentionGuard(home, ctx.env, now);
    const retWarn = retentionWarning(ret, now);
    const cfg = readConfig(home, ctx.env);
    // Without a config the floor is still recorded, under BRAIN_MACHINE or the host name.
    const me = cfg.kind === 'ok' ? cfg.config.machine : machineName(home, ctx.env);
    const machines = !args.opts.local && cfg.kind === 'ok' && cfg.config.store ? await listMachines(cfg.config, ctx.env) : null;
    // What is not recorded cannot be backed up: a recording problem comes first.
    const rec = recordingProblem(home);
    const warning = rec?.label || eff.warning || (retWarn ? 'sessions due for deletion not backed up' : '');
    // The last result alone hides a backup that fails every other run: the failures of the last day.
    const fails = recentFailures(home, now);
    if (args.opts.json) {
      write(
        ctx.stdout,
        JSON.stringify({
          version: VERSION,
          machine: me,
          warning,
          recording: rec,
          message: eff.message,
          hint: eff.hint,
          state: eff.state,
          last_ok: lastOk !== null ? new Date(lastOk).toISOString() : null,
          pending: eff.pending,
          retention: ret,
          failures: fails,
          store: machines,
        }),
      );
      return warning ? 1 : 0;
    }
    write(ctx.stdout, `This machine: ${me} (brain ${VERSION})`);
    if (rec) write(ctx.stdout, `  ${rec.label} — ${rec.message}${rec.hint ? `\n    ${rec.hint}` : ''}`);
    const st = eff.state;
    if (st) write(ctx.stdout, `  last sync: ${st.status} ${ageText(Date.parse(st.time), now)}: ${st.message}`);
    else write(ctx.stdout, '  last sync: never');
    write(ctx.stdout, `  last sync that worked: ${lastOk !== null ? ageText(lastOk, now) : 'none'}`);
    if (eff.pending && eff.pending.files > 0) write(ctx.stdout, `  waiting for a sync: ${eff.pending.files} file(s)`);
    write(ctx.stdout, `  warning: ${eff.warning || '(none)'}${eff.warning ? ` — ${eff.message}` : ''}`);
    if (eff.hint && eff.warning) write(ctx.stdout, `    ${eff.hint}`);
    for (const f of st?.findings ?? []) write(ctx.stdout, `  ${f.code}: ${f.message}`);
    if (fails) {
      const last = fails.entries[fails.entries.length - 1];
      write(ctx.stdout, `  failures: ${fails.summary}\n    last ${ageText(Date.parse(last.last_at ?? last.at), now)}: ${last.message}`);
    }
    if (retWarn) write(ctx.stdout, `  retention: ${retWarn}\n    run: brain record && brain sync --now`);
    if (machines) {
      if (!machines.ok) write(ctx.stdout, `Store: ${machines.label}: ${machines.message}\n  ${machines.hint}`);
      else {
        write(ctx.stdout, `Store: ${cfg.kind === 'ok' && cfg.config.store ? (cfg.config.store.host ? `${cfg.config.store.host}:` : '') + cfg.config.store.path : ''}`);
        for (const m of machines.machines) {
          write(
            ctx.stdout,
            `  ${m.machine.padEnd(20)} ${(m.versions.join(', ') || 'no version file').padEnd(16)} newest file ${ageText(m.newest, now)}, ${m.files} files, ${humanBytes(m.bytes)}${m.replaced ? `, ${m.replaced} copies moved aside by repairs` : ''}`,
          );
        }
      }
    }
    return warning ? 1 : 0;
  },
};
