// Cline CLI (npm `cline`) against the chat stand-in: `cline auth openai-compatible --baseurl`
// points it at 127.0.0.1; a prompt runs to its end headless; a session is continued only in the
// terminal UI (`cline --id` opens it), so the second turn is typed into it under tmux, on a tmux
// server of its own, and the UI is closed once the reply is in the session's messages file.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MODEL } from '../standin';
import { runTo, type WholeFileAgent } from './wholefile';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tmux(socket: string, args: string[]): string {
  const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error('tmux is missing: apt-get install -y tmux');
  return r.stdout ?? '';
}

/** The Cline hub daemons this sandbox started (their command line names its folder). */
function hubDaemons(dir: string): number[] {
  const out: number[] = [];
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    let cmd = '';
    try {
      cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmd.includes('--cline-hub-daemon') && cmd.includes(dir)) out.push(Number(p));
  }
  return out;
}

export const clineCliAgent: WholeFileAgent = {
  lane: 'cline_cli',
  agent: 'cline-cli',
  label: 'Cline CLI',
  bin: 'cline',
  binEnv: 'BRAIN_TEST_CLINE',
  pkg: 'cline',
  shellTool: 'run_commands',
  // Its telemetry and feature flags (set when its binary is built, no setting turns them off) and
  // the models.dev catalogue.
  ownHosts: /^CONNECT ([a-z]+\.)?(cline\.bot|models\.dev):443$/,
  rewritten: (files) => files.find((f) => f.endsWith('.messages.json')) ?? '',
  async start({ sb, bin, env, repo, standin }) {
    const sessions = path.join(sb.home, '.cline', 'data', 'sessions');
    await runTo(bin, ['auth', 'openai-compatible', '-k', 'sk-standin-000', '-m', MODEL.chat, '-b', standin.baseUrl], env, repo, 'cline auth');
    const socket = `brain-cline-${process.pid}`;
    const list = () => (fs.existsSync(sessions) ? fs.readdirSync(sessions) : []);
    const messagesOf = (session: string) => path.join(sessions, session, `${session}.messages.json`);
    return {
      async first(prompt) {
        const before = new Set(list());
        await runTo(bin, ['--auto-approve', 'true', prompt], env, repo, `cline "${prompt}"`);
        const made = list().filter((s) => !before.has(s));
        if (made.length !== 1) throw new Error(`Cline CLI: expected one new session folder in ${sessions}, found ${made.join(', ') || 'none'}`);
        return made[0];
      },
      async second(session, prompt) {
        // The UI gets the run's environment through a script: a tmux server keeps its own.
        const script = path.join(sb.dir, 'cline-resume.sh');
        const vars = Object.entries(env).filter(([, v]) => v !== undefined).map(([k, v]) => `export ${k}=${JSON.stringify(v)}`);
        fs.writeFileSync(script, `${vars.join('\n')}\ncd ${JSON.stringify(repo)}\nexec ${JSON.stringify(bin)} --id ${JSON.stringify(session)}\n`, { mode: 0o700 });
        tmux(socket, ['new-session', '-d', '-s', 'cline', '-x', '200', '-y', '50', `sh ${JSON.stringify(script)}`]);
        try {
          const until = async (what: string, ok: () => boolean) => {
            for (let i = 0; i < 360; i++) {
              if (ok()) return;
              await sleep(500);
            }
            throw new Error(`Cline CLI: timed out waiting for ${what}\n--- screen\n${tmux(socket, ['capture-pane', '-p', '-t', 'cline'])}`);
          };
          await until('its prompt', () => /Ask anything/.test(tmux(socket, ['capture-pane', '-p', '-t', 'cline'])));
          tmux(socket, ['send-keys', '-t', 'cline', '-l', prompt]);
          await sleep(300);
          tmux(socket, ['send-keys', '-t', 'cline', 'Enter']);
          const reply = standin.script.find((t) => t.prompt === prompt)?.replies.at(-1)?.text ?? '';
          await until('the reply in the messages file', () => {
            try {
              const doc = JSON.parse(fs.readFileSync(messagesOf(session), 'utf8'));
              const last = doc.messages?.[doc.messages.length - 1];
              return last?.role === 'assistant' && JSON.stringify(last.content).includes(reply);
            } catch {
              return false;
            }
          });
          // The manifest is written after the messages: let the UI settle before it is closed.
          await sleep(1500);
        } finally {
          tmux(socket, ['kill-server']);
        }
      },
      files(session) {
        const dir = path.join(sessions, session);
        return fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => path.join(dir, f)).sort() : [];
      },
      async close() {
        tmux(socket, ['kill-server']);
        for (const sig of ['SIGTERM', 'SIGKILL'] as const) {
          for (const pid of hubDaemons(sb.dir)) {
            try {
              process.kill(pid, sig);
            } catch {
              /* gone already */
            }
          }
          await sleep(1000);
        }
      },
    };
  },
};
