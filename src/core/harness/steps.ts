// `brain init` steps for the harnesses (register brain mcp, link the skill) and the matching
// `brain doctor` checks. Both run the same plans, so doctor says exactly what init would change.
import type { DoctorCheck } from '../setup/doctor';
import type { InitStep, StepResult } from '../setup/init';
import type { Env } from '../home';
import { harnessLabel, harnessOf } from './detect';
import { applyMcp, mcpSpec, planMcp, shQuote, type RegPlan } from './mcp-register';
import { applySkill, planSkill, skillSource, type SkillPlan } from './skill';
import { planHooks } from '../setup/hooks';

function regStep(p: RegPlan, applied: { outcome: string; message?: string } | null): StepResult {
  const step = `mcp ${p.harness}`;
  const where = `${harnessLabel(p.harness)} (${p.file})`;
  switch (p.action) {
    case 'absent':
      return { step, status: 'skipped', detail: p.detail };
    case 'ok':
      return { step, status: 'unchanged', detail: `${where}: ${p.detail}` };
    case 'foreign':
    case 'unparsable':
      return { step, status: 'failed', detail: `${where}: ${p.detail}`, fix: p.action === 'unparsable' ? `fix ${p.file} by hand, then brain init` : `rename or remove that "brain" entry, then brain init` };
    default:
      if (applied?.outcome === 'printed') {
        return { step, status: 'note', detail: `${where}: ${harnessOf(p.harness)?.bin} is not on PATH, so brain mcp is not registered; run this where it is:`, fix: applied.message };
      }
      if (applied?.outcome === 'failed') return { step, status: 'failed', detail: `${where}: ${applied.message}` };
      return { step, status: 'changed', detail: `${where}: ${p.detail}` };
  }
}

/** A planned change said as one (--dry-run). */
function wouldChange(r: StepResult): StepResult {
  return r.status === 'changed' ? { ...r, status: 'would change', detail: `would change ${r.detail}` } : r;
}

export const mcpStep: InitStep = {
  name: 'mcp',
  async run(ctx) {
    const spec = mcpSpec(ctx.brainCmd, ctx.env);
    if (ctx.dryRun) return planMcp(spec, ctx.env).map((p) => wouldChange(regStep(p, null)));
    return planMcp(spec, ctx.env).map((p) => regStep(p, applyMcp(p, ctx.env, spec)));
  },
};

function skillStepResult(p: SkillPlan): StepResult {
  const step = `skill ${p.harness}`;
  const where = `${harnessLabel(p.harness)} (${p.link})`;
  if (p.action === 'absent') return { step, status: 'skipped', detail: `${harnessLabel(p.harness)} not found` };
  if (p.action === 'ok') return { step, status: 'unchanged', detail: `${where}: ${p.detail}` };
  if (p.action === 'foreign') return { step, status: 'failed', detail: `${where}: ${p.detail}`, fix: `move ${p.link} away, then brain init` };
  return { step, status: 'changed', detail: `${where}: ${p.detail}` };
}

export const skillStep: InitStep = {
  name: 'skill',
  async run(ctx) {
    if (ctx.dryRun) {
      // The hooks step (before this one) makes a harness's folder where it writes a hook: the real
      // run then finds that harness here.
      const hooked = new Set(ctx.opts.hooks === false ? [] : planHooks(ctx.brainCmd, ctx.env).filter((p) => p.action === 'create' || p.action === 'add').map((p) => p.agent));
      return planSkill(skillSource(ctx.brainCmd), ctx.env, (h) => hooked.has(h)).map((p) => wouldChange(skillStepResult(p)));
    }
    const plan = planSkill(skillSource(ctx.brainCmd), ctx.env);
    return applySkill(plan).map(skillStepResult);
  },
};

/** init's harness steps, after the store's (config, hooks, timer). */
export const HARNESS_INIT_STEPS: InitStep[] = [mcpStep, skillStep];

/** doctor's view of the same: read-only. */
export function harnessChecks(brainCmd: string[], env: Env): DoctorCheck[] {
  const out: DoctorCheck[] = [];
  const spec = mcpSpec(brainCmd, env);
  for (const p of planMcp(spec, env)) {
    const name = `mcp ${p.harness}`;
    if (p.action === 'absent') out.push({ name, level: 'info', detail: p.detail });
    else if (p.action === 'ok') out.push({ name, level: 'ok', detail: `${p.file}: ${p.detail}` });
    else if (p.action === 'foreign' || p.action === 'unparsable') out.push({ name, level: 'fail', detail: `${p.file}: ${p.detail}`, fix: p.action === 'unparsable' ? `fix ${p.file} by hand, then brain init` : 'rename or remove that "brain" entry, then brain init' });
    else {
      const printed = p.commands ? p.commands.map((c) => c.map(shQuote).join(' ')).join(' && ') : undefined;
      out.push({ name, level: 'warn', detail: `${p.file}: brain mcp is not registered as this brain runs it (${p.action}: ${p.detail})`, fix: printed ? `brain init   (or: ${printed})` : 'brain init' });
    }
  }
  for (const p of planSkill(skillSource(brainCmd), env)) {
    const name = `skill ${p.harness}`;
    if (p.action === 'absent') out.push({ name, level: 'info', detail: `${harnessLabel(p.harness)} not found` });
    else if (p.action === 'ok') out.push({ name, level: 'ok', detail: `${p.link}: ${p.detail}` });
    else if (p.action === 'foreign') out.push({ name, level: 'fail', detail: `${p.link}: ${p.detail}`, fix: `move ${p.link} away, then brain init` });
    else out.push({ name, level: 'warn', detail: `${p.link}: ${p.action === 'create' ? 'not linked' : p.detail}`, fix: 'brain init' });
  }
  return out;
}
