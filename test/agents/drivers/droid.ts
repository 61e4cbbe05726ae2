// Factory Droid (npm `droid`) against the chat-completions stand-in: a customModels entry of
// provider generic-chat-completion-api at 127.0.0.1 in ~/.factory/settings.json (no Factory account
// is needed for it). `droid exec -s <id>` fetches a session from Factory's servers, so the second
// turn is sent in the same process (--input-format stream-json, one {"role":"user"} line each).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Sandbox } from '../../helpers/env';
import { binFor, registerDriver, type RunResult } from '../harness';
import { MODEL, type StandIn } from '../standin';

registerDriver('droid', { bin: 'droid', pkg: 'droid', env: 'BRAIN_TEST_DROID' }, () => Promise.reject(new Error('Droid cannot resume a session offline: drive it with runDroid (test/agents/drivers/droid.ts)')));

/** The sandbox's Droid folder, set up to use the stand-in; returns the env for its runs. */
export function droidSetup(sb: Sandbox, standin: StandIn, env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; sessionsDir: string } {
  const dir = path.join(sb.home, '.factory');
  fs.mkdirSync(dir, { recursive: true });
  const model = { model: MODEL.chat, displayName: 'Standin', baseUrl: standin.baseUrl, apiKey: 'sk-standin-000', provider: 'generic-chat-completion-api', maxOutputTokens: 4096 };
  fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ customModels: [model] }, null, 2));
  // Its own OpenTelemetry export and remote config off: fewer calls for the guard to refuse.
  return { env: { ...env, FACTORY_HOME_OVERRIDE: sb.home, FACTORY_OTEL_ENABLED: 'false', FACTORY_DISABLE_DYNAMIC_CONFIG: '1' }, sessionsDir: path.join(dir, 'sessions') };
}

/** One `droid exec` process that sends `prompts` in order as one session. */
export function runDroid(env: NodeJS.ProcessEnv, cwd: string, prompts: string[], timeoutMs = 120_000): Promise<RunResult> {
  const bin = binFor('droid');
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(bin, ['exec', '--auto', 'high', '-m', `custom:${MODEL.chat}`, '--input-format', 'stream-json', '-o', 'stream-json'], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end(prompts.map((p) => `${JSON.stringify({ role: 'user', content: p })}\n`).join(''));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

/** The session id Droid printed (its init line). */
export function droidSession(r: RunResult): string {
  for (const line of r.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const o = JSON.parse(line) as { type?: string; session_id?: string };
    if (o.type === 'system' && o.session_id) return o.session_id;
  }
  throw new Error(`Droid printed no session id: ${r.stdout.slice(0, 500)}\n${r.stderr.slice(-1000)}`);
}
