import { loadConfig } from '../core/config';
import { brainHome } from '../core/home';
import { ageText, listMachines } from '../core/store/machines';
import { humanBytes, write, type Verb } from './args';

export const machines: Verb = {
  name: 'machines',
  summary: 'List every machine in the store: versions, newest file, size.',
  usage: 'machines [--json]',
  details: 'Reads the store (one ssh connection for an ssh store). Exit 0, or 3 when the store cannot be read.',
  options: [{ name: 'json', type: 'bool', help: 'machine-readable' }],
  async run(args, ctx) {
    const cfg = loadConfig(brainHome(ctx.env), ctx.env);
    const r = await listMachines(cfg, ctx.env);
    if (args.opts.json) {
      write(ctx.stdout, JSON.stringify(r));
      return r.ok ? 0 : 3;
    }
    if (!r.ok) {
      write(ctx.stderr, `${r.label}: ${r.message}\n  ${r.hint}`);
      return 3;
    }
    const now = Date.now();
    for (const m of r.machines) {
      write(ctx.stdout, `${m.machine}${m.machine === cfg.machine ? ' (this machine)' : ''}\t${m.versions.join(',') || '-'}\t${ageText(m.newest, now)}\t${m.files} files\t${humanBytes(m.bytes)}`);
    }
    if (r.machines.length === 0) write(ctx.stdout, 'no machines in the store yet');
    return 0;
  },
};
