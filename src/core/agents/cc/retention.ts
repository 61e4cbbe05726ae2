// Claude Code deletes session files older than `cleanupPeriodDays` (its settings.json, default 30)
// when it starts: what the retention guard needs to know about it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Env } from '../../home';
import type { AgentRetention } from '../types';
import { ccConfigDir } from './paths';

export const DEFAULT_CLEANUP_DAYS = 30;

function period(env: Env): { days: number; file: string; problem?: string } {
  const file = path.join(ccConfigDir(env), 'settings.json');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { days: DEFAULT_CLEANUP_DAYS, file };
  }
  try {
    const j = JSON.parse(text) as { cleanupPeriodDays?: unknown };
    const v = j.cleanupPeriodDays;
    if (v === undefined) return { days: DEFAULT_CLEANUP_DAYS, file };
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return { days: DEFAULT_CLEANUP_DAYS, file, problem: `cleanupPeriodDays = ${JSON.stringify(v)} is not a number of days; assuming ${DEFAULT_CLEANUP_DAYS}` };
    return { days: v, file };
  } catch (e) {
    return { days: DEFAULT_CLEANUP_DAYS, file, problem: `not valid JSON (${(e as Error).message}); assuming ${DEFAULT_CLEANUP_DAYS} days` };
  }
}

/** `<project>/<id>` for `<project>/<id>.jsonl` and for everything under `<project>/<id>/subagents/`. */
function sessionKey(rel: string): string {
  const m = /^(.*?)\/subagents\//.exec(rel);
  return m ? m[1] : rel.replace(/\.jsonl$/, '');
}

export const ccRetention: AgentRetention = { setting: 'cleanupPeriodDays', period, sessionKey };
