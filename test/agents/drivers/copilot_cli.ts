// GitHub Copilot CLI (npm @github/copilot) against the chat-completions stand-in: its BYOK
// provider variables point it at 127.0.0.1, and COPILOT_OFFLINE keeps it from GitHub's services.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Sandbox } from '../../helpers/env';
import { findFiles, makeAgent, registerDriver, type Agent } from '../harness';
import { MODEL, type Turn } from '../standin';

export function copilotCli(sb: Sandbox, script: Turn[]): Promise<Agent> {
  return makeAgent(sb, script, {
    lane: 'copilot_cli',
    label: 'Copilot CLI',
    family: 'chat',
    fixtures: 'copilot-cli/session-state',
    setup(sb, standin, env) {
      const home = path.join(sb.home, '.copilot');
      return {
        env: {
          ...env,
          COPILOT_HOME: home,
          COPILOT_OFFLINE: 'true',
          COPILOT_PROVIDER_BASE_URL: standin.baseUrl,
          COPILOT_PROVIDER_API_KEY: 'sk-standin-000',
          COPILOT_MODEL: MODEL.chat,
          COPILOT_AUTO_UPDATE: 'false',
        },
        originRoot: path.join(home, 'session-state'),
      };
    },
    startArgs: (prompt) => ['-p', prompt, '--allow-all-tools'],
    resumeArgs: (session, prompt) => [`--resume=${session}`, '-p', prompt, '--allow-all-tools'],
    // The session is the folder of the one new events.jsonl.
    sessionOf(_r, originRoot, before) {
      const made = findFiles(originRoot, (n) => n === 'events.jsonl').filter((f) => !before.has(f));
      if (made.length !== 1) throw new Error(`Copilot CLI: expected one new events.jsonl under ${originRoot}, found ${made.length}`);
      const first = JSON.parse(fs.readFileSync(made[0], 'utf8').split('\n')[0]) as { type?: string; data?: { sessionId?: string } };
      if (first.type !== 'session.start' || !first.data?.sessionId) throw new Error(`Copilot CLI: ${made[0]} does not open with session.start`);
      return first.data.sessionId;
    },
    fileMatch: () => () => false,
  }).then((a) => {
    // Every session's file is named events.jsonl: its folder names the session.
    a.files = (session: string) => findFiles(path.join(a.originRoot, session), (n) => n === 'events.jsonl');
    return a;
  });
}

registerDriver('copilot_cli', { bin: 'copilot', pkg: '@github/copilot', env: 'BRAIN_TEST_COPILOT_CLI' }, copilotCli);
