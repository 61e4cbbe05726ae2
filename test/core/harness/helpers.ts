// `brain init` / `brain doctor` in a sandbox HOME, with the real agent CLIs on PATH or not.
import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, REPO, type Sandbox } from '../../helpers/env';
import { agentBin } from '../../../scripts/setup/40-agents.mjs';

/** Where the test setup puts the pinned claude, codex and pi (scripts/setup/40-agents.mjs). */
export const BIN = path.dirname(agentBin('claude'));
export const HARNESS_FIXTURES = path.join(REPO, 'test', 'core', 'harness', 'fixtures');

for (const b of ['claude', 'codex', 'pi']) {
  if (!fs.existsSync(path.join(BIN, b))) throw new Error(`${b} is not installed in ${BIN}: run node scripts/setup/40-agents.mjs (the pinned agent CLIs)`);
}

/** PATH with the agent CLIs, or with every folder that holds one of them removed. */
export function pathWith(agents: boolean): string {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((d) => d && !['claude', 'codex', 'pi'].some((b) => fs.existsSync(path.join(d, b))));
  return (agents ? [BIN, ...dirs] : dirs).join(path.delimiter);
}

export interface StepResult {
  step: string;
  status: 'changed' | 'unchanged' | 'skipped' | 'failed' | 'note';
  detail: string;
  fix?: string;
}

export function init(sb: Sandbox, env: NodeJS.ProcessEnv = {}): { code: number | null; results: StepResult[]; step: (name: string) => StepResult } {
  const r = brain(sb, ['init', '--no-timer', '--no-hooks', '--json'], { env });
  assert.ok(r.status === 0 || r.status === 1, `brain init: ${r.status}\n${r.stdout}\n${r.stderr}`);
  const results = JSON.parse(r.stdout) as StepResult[];
  return {
    code: r.status,
    results,
    step(name) {
      const s = results.find((x) => x.step === name);
      assert.ok(s, `init reported no step "${name}": ${JSON.stringify(results, null, 1)}`);
      return s;
    },
  };
}

export interface Check {
  name: string;
  level: 'ok' | 'warn' | 'fail' | 'info';
  detail: string;
  fix?: string;
}

export function doctor(sb: Sandbox, env: NodeJS.ProcessEnv = {}): (name: string) => Check {
  const r = brain(sb, ['doctor', '--offline', '--json'], { env });
  const checks = JSON.parse(r.stdout).checks as Check[];
  return (name) => {
    const c = checks.find((x) => x.name === name);
    assert.ok(c, `doctor reported no check "${name}"`);
    return c;
  };
}

/** A file's bytes and mtime: what "untouched" means. */
export function stamp(file: string): string {
  const st = fs.statSync(file);
  return `${crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')} ${st.mtimeMs} ${(st.mode & 0o777).toString(8)}`;
}
