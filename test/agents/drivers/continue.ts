// Continue's CLI (npm @continuedev/cli, `cn`) against the chat stand-in: a config.yaml whose model
// has `apiBase` on 127.0.0.1, `cn -p` for a prompt, `cn --resume -p` to continue the session.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MODEL } from '../standin';
import { runTo, type WholeFileAgent } from './wholefile';

export const continueAgent: WholeFileAgent = {
  lane: 'continue',
  agent: 'continue-dev',
  label: 'Continue CLI',
  bin: 'cn',
  binEnv: 'BRAIN_TEST_CN',
  pkg: '@continuedev/cli',
  shellTool: 'Bash',
  rewritten: (files) => files[0] ?? '',
  async start({ sb, bin, env, repo, standin }) {
    const dir = path.join(sb.home, '.continue');
    const sessions = path.join(dir, 'sessions');
    fs.mkdirSync(dir, { recursive: true });
    const config = path.join(dir, 'config.yaml');
    fs.writeFileSync(
      config,
      ['name: standin', 'version: 0.0.1', 'schema: v1', 'models:', '  - name: standin', '    provider: openai', `    model: ${MODEL.chat}`, `    apiBase: ${standin.baseUrl}`, '    apiKey: sk-standin-000', '    roles: [chat, edit, apply]', ''].join('\n'),
    );
    const runEnv = { ...env, CONTINUE_CLI_ENABLE_TELEMETRY: '0' };
    const list = () => (fs.existsSync(sessions) ? fs.readdirSync(sessions).filter((f) => f !== 'sessions.json') : []);
    return {
      async first(prompt) {
        const before = new Set(list());
        await runTo(bin, ['--config', config, '--auto', '-p', prompt], runEnv, repo, `cn -p "${prompt}"`);
        const made = list().filter((f) => !before.has(f));
        if (made.length !== 1) throw new Error(`Continue: expected one new session file in ${sessions}, found ${made.join(', ') || 'none'}`);
        return made[0].replace(/\.json$/, '');
      },
      async second(_session, prompt) {
        await runTo(bin, ['--config', config, '--auto', '--resume', '-p', prompt], runEnv, repo, `cn --resume -p "${prompt}"`);
      },
      files: (session) => [path.join(sessions, `${session}.json`)],
      async close() {},
    };
  },
};
