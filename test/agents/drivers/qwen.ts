// Qwen Code (npm @qwen-code/qwen-code) against the chat-completions stand-in, through its OpenAI
// auth type with the base URL at 127.0.0.1. Its background memory extraction (a model call of its
// own after a turn) and usage statistics are turned off in the sandbox's settings.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Sandbox } from '../../helpers/env';
import { findFiles, makeAgent, registerDriver, type Agent } from '../harness';
import { MODEL, type Turn } from '../standin';

export function qwen(sb: Sandbox, script: Turn[]): Promise<Agent> {
  return makeAgent(sb, script, {
    lane: 'qwen',
    label: 'Qwen Code',
    family: 'chat',
    fixtures: 'qwen/projects',
    setup(sb, standin, env) {
      const home = path.join(sb.home, '.qwen');
      fs.mkdirSync(home, { recursive: true });
      fs.writeFileSync(
        path.join(home, 'settings.json'),
        JSON.stringify({ memory: { enableManagedAutoMemory: false }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }, null, 2),
      );
      return {
        env: { ...env, QWEN_HOME: home, OPENAI_API_KEY: 'sk-standin-000', OPENAI_BASE_URL: standin.baseUrl, OPENAI_MODEL: MODEL.chat, QWEN_CODE_SUPPRESS_YOLO_WARNING: '1' },
        originRoot: path.join(home, 'projects'),
      };
    },
    startArgs: (prompt) => ['--auth-type', 'openai', '--yolo', prompt],
    resumeArgs: (session, prompt) => ['--auth-type', 'openai', '--yolo', '--resume', session, prompt],
    sessionOf(_r, originRoot, before) {
      const made = findFiles(originRoot, (n) => n.endsWith('.jsonl')).filter((f) => !before.has(f));
      if (made.length !== 1) throw new Error(`Qwen Code: expected one new session file under ${originRoot}, found ${made.length}`);
      return path.basename(made[0], '.jsonl');
    },
    fileMatch: (session) => (name) => name === `${session}.jsonl`,
  });
}

registerDriver('qwen', { bin: 'qwen', pkg: '@qwen-code/qwen-code', env: 'BRAIN_TEST_QWEN' }, qwen);
