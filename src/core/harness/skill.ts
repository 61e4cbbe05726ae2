// The agent skill (skills/brain-recall/SKILL.md, shipped with brain) linked into each harness's
// user skill folder (its harness.ts's skillsDir). Checked against the installed CLIs, each one
// reading a symlinked skill folder and listing its name and description in what it sends the model.
// brain owns only the link named brain-recall, and only while it is a link to a brain-recall skill
// (any install's) or a dangling link to one: a folder or file of that name, or a link elsewhere,
// is someone else's and is left alone.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { harnessAgents } from '../agents';
import type { Env } from '../home';
import { harnessPresent, type Harness } from './detect';

export const SKILL_NAME = 'brain-recall';
/** A line of the skill's frontmatter that says brain wrote it. */
export const SKILL_OWNER = /^\s+owner:\s*agent-brain\s*$/m;

/** The skill folder of this install: beside dist/ (or bin/), found from the brain command. */
export function skillSource(brainCmd: string[]): string | null {
  const cands: string[] = [];
  const script = brainCmd[brainCmd.length - 1];
  if (script) {
    let real = script;
    try {
      real = fs.realpathSync(script);
    } catch {
      /* keep as given */
    }
    cands.push(path.join(path.dirname(real), '..', 'skills', SKILL_NAME));
  }
  // The running code: dist/cli.js (bundled) or src/core/harness/ (tests under tsx).
  cands.push(path.join(__dirname, '..', 'skills', SKILL_NAME), path.join(__dirname, '..', '..', '..', 'skills', SKILL_NAME));
  for (const c of cands) if (fs.existsSync(path.join(c, 'SKILL.md'))) return path.resolve(c);
  return null;
}

export function skillDirs(env: Env): Record<Harness, string> {
  return Object.fromEntries(harnessAgents().flatMap((a) => (a.harness.skillsDir ? [[a.lane, a.harness.skillsDir(env)]] : [])));
}

export interface SkillPlan {
  harness: Harness;
  /** <skills dir>/brain-recall */
  link: string;
  /** absent: the harness is not on this machine; create: no link yet; update: our link points at
   * another (or a vanished) install; ok; foreign: something brain did not make has the name. */
  action: 'absent' | 'create' | 'update' | 'ok' | 'foreign';
  detail: string;
  target: string | null;
}

function isOurSkill(dir: string): boolean {
  try {
    return path.basename(dir) === SKILL_NAME && SKILL_OWNER.test(fs.readFileSync(path.join(dir, 'SKILL.md'), 'utf8'));
  } catch {
    return false;
  }
}

/** `alsoPresent`: a harness a step before this one will set up (a dry run, where it has not yet). */
export function planSkill(source: string | null, env: Env, alsoPresent?: (h: Harness) => boolean): SkillPlan[] {
  const dirs = skillDirs(env);
  return (Object.keys(dirs) as Harness[]).map((h) => {
    const link = path.join(dirs[h], SKILL_NAME);
    const base = { harness: h, link, target: source };
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(link);
    } catch {
      /* nothing there */
    }
    if (!st) {
      if (!harnessPresent(h, env) && !alsoPresent?.(h)) return { ...base, action: 'absent', detail: 'harness not found' };
      if (!source) return { ...base, action: 'foreign', detail: 'this install of brain has no skills/brain-recall folder to link', target: null };
      return { ...base, action: 'create', detail: `links ${source}` };
    }
    if (!st.isSymbolicLink()) return { ...base, action: 'foreign', detail: `${st.isDirectory() ? 'a folder' : 'a file'} brain did not make has this name; left alone` };
    const to = path.resolve(path.dirname(link), fs.readlinkSync(link));
    const exists = fs.existsSync(to);
    const ours = exists ? isOurSkill(to) : path.basename(to) === SKILL_NAME && path.basename(path.dirname(to)) === 'skills';
    if (!ours) return { ...base, action: 'foreign', detail: `a link to ${to}, not brain's skill; left alone` };
    if (source && to === source) return { ...base, action: 'ok', detail: `linked to ${source}` };
    if (!source) return { ...base, action: exists ? 'ok' : 'foreign', detail: exists ? `linked to ${to}` : `links to ${to}, which is gone, and this install has no skill to link`, target: null };
    return { ...base, action: 'update', detail: `relinks from ${to}${exists ? '' : ' (gone)'} to ${source}` };
  });
}

/** Makes the planned links; a replaced link is swapped in by rename, never left missing. */
export function applySkill(plan: SkillPlan[]): SkillPlan[] {
  for (const p of plan) {
    if ((p.action !== 'create' && p.action !== 'update') || !p.target) continue;
    fs.mkdirSync(path.dirname(p.link), { recursive: true });
    const tmp = `${p.link}.brain-tmp-${process.pid}`;
    fs.rmSync(tmp, { force: true });
    fs.symlinkSync(p.target, tmp, 'dir');
    fs.renameSync(tmp, p.link);
  }
  return plan;
}
