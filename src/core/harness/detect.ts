// Which harnesses are on this machine: the CLI on PATH, or the folder it keeps its settings in
// (a harness installed as an editor extension has the folder but no CLI on PATH).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ccConfigDir } from '../agents/cc/paths';
import { codexHome } from '../agents/codex/paths';
import { piAgentDir } from '../agents/pi/paths';
import type { Env } from '../home';

export type Harness = 'cc' | 'codex' | 'pi';

export const HARNESS_LABEL: Record<Harness, string> = { cc: 'Claude Code', codex: 'Codex', pi: 'Pi' };
export const HARNESS_BIN: Record<Harness, string> = { cc: 'claude', codex: 'codex', pi: 'pi' };

/** An executable named `name` on env.PATH, as an absolute path. */
export function which(name: string, env: Env): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.resolve(dir, name);
    try {
      const st = fs.statSync(p);
      if (st.isFile()) {
        fs.accessSync(p, fs.constants.X_OK);
        return p;
      }
    } catch {
      /* not here */
    }
  }
  return null;
}

export function harnessConfigDir(h: Harness, env: Env): string {
  return h === 'cc' ? ccConfigDir(env) : h === 'codex' ? codexHome(env) : piAgentDir(env);
}

export function harnessPresent(h: Harness, env: Env): boolean {
  return which(HARNESS_BIN[h], env) !== null || fs.existsSync(harnessConfigDir(h, env));
}
