// Runs the real agent CLIs (Claude Code, Codex, Pi) inside a test sandbox against the loopback
// stand-ins: one helper per agent that starts a session, resumes it, and says where its transcript
// is. The binaries are the pinned devDependencies unless BRAIN_TEST_CLAUDE / BRAIN_TEST_CODEX /
// BRAIN_TEST_PI name others (scripts/agents-latest.mjs uses that to try the newest releases).
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Sandbox } from '../helpers/env';
import { agentBin } from '../../scripts/setup/40-agents.mjs';
import { MODEL, startStandIn, type Family, type StandIn, type Turn } from './standin';

export type AgentLane = 'cc' | 'codex' | 'pi';

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface Agent {
  lane: AgentLane;
  label: string;
  bin: string;
  sb: Sandbox;
  standin: StandIn;
  /** The environment every run gets: the sandbox's, the stand-in's, and the outbound guard's. */
  env: NodeJS.ProcessEnv;
  /** A git repository (branch `brain-agents`, one commit) the agent works in. */
  repo: string;
  repoInfo: RepoInfo;
  /** The directory brain watches for this agent (its origin root). */
  originRoot: string;
  /** Starts a new session with `prompt`; returns its session id. `opts.env` adds to the run's
   * environment; `opts.args` are extra CLI options (placed where the CLI takes options). */
  start(prompt: string, opts?: { env?: NodeJS.ProcessEnv; args?: string[] }): Promise<{ session: string; run: RunResult }>;
  /** Continues `session` with `prompt` the way this CLI resumes (flag or subcommand). */
  resume(session: string, prompt: string): Promise<RunResult>;
  /** Runs the CLI with any arguments in the repo (exit 0 and a fully scripted exchange required). */
  exec(args: string[], what?: string): Promise<RunResult>;
  /** The agent's own transcript file(s) for a session, found in its origin root. */
  files(session: string): string[];
  /** Everything useful when an assertion fails: the stand-in's log, outbound attempts, last run. */
  diagnose(): string;
  close(): Promise<void>;
}

function binFor(lane: AgentLane): string {
  const override = { cc: process.env.BRAIN_TEST_CLAUDE, codex: process.env.BRAIN_TEST_CODEX, pi: process.env.BRAIN_TEST_PI }[lane];
  if (override) return override;
  const name = { cc: 'claude', codex: 'codex', pi: 'pi' }[lane];
  const bin = agentBin(name);
  if (!fs.existsSync(bin)) {
    const pkg = { cc: '@anthropic-ai/claude-code', codex: '@openai/codex', pi: '@mariozechner/pi-coding-agent' }[lane];
    throw new Error(`${bin} is missing: the pinned agent CLIs are installed by the test setup; run \`node scripts/setup/40-agents.mjs\` (package ${pkg})`);
  }
  return bin;
}

/** Version string a CLI reports (for logs and for the latest-versions report). */
export function agentVersion(lane: AgentLane): string {
  const r = spawnSync(binFor(lane), ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return (r.stdout || r.stderr || '').trim().split('\n')[0];
}

// ---- the outbound guard -----------------------------------------------------------------------

/** A proxy on 127.0.0.1 that refuses everything and writes down who tried. Every CLI gets it as
 * HTTP(S)_PROXY with NO_PROXY for loopback, so a request meant for the internet ends here instead,
 * and a test can show that nothing tried to leave. */
export interface DenyProxy {
  url: string;
  attempts: string[];
  close(): Promise<void>;
}

export async function startDenyProxy(): Promise<DenyProxy> {
  const attempts: string[] = [];
  const server = http.createServer((req, res) => {
    attempts.push(`${req.method} ${req.url}`);
    res.writeHead(403);
    res.end('the test sandbox allows no traffic off 127.0.0.1');
  });
  server.on('connect', (req, socket) => {
    attempts.push(`CONNECT ${req.url}`);
    // A client that resets the refused tunnel (OpenCode's) must not crash the test process.
    socket.on('error', () => undefined);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    attempts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---- running ---------------------------------------------------------------------------------

export function runCli(bin: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, timeoutMs = 120_000): Promise<RunResult> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    // stdin closed: Codex otherwise waits for extra input on a pipe, and none of these runs is interactive.
    const child = spawn(bin, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

function git(repo: string, args: string[], env: NodeJS.ProcessEnv): string {
  const r = spawnSync('git', ['-C', repo, ...args], { env, encoding: 'utf8' });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error('git is missing: apt-get install -y git');
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout.trim();
}

export interface RepoInfo {
  dir: string;
  branch: string;
  commit: string;
  remote: string;
}

/** A small git repository with one commit on branch `brain-agents` and an origin remote URL. */
export function makeRepo(sb: Sandbox, name = 'work'): RepoInfo {
  const dir = path.join(sb.dir, name);
  fs.mkdirSync(dir, { recursive: true });
  const env = { ...sb.env, GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.invalid', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.invalid' };
  git(dir, ['init', '-q', '-b', 'brain-agents'], env);
  fs.writeFileSync(path.join(dir, 'README.md'), '# test repository for the agent suite\n');
  git(dir, ['add', 'README.md'], env);
  git(dir, ['commit', '-q', '-m', 'initial'], env);
  const remote = 'https://example.invalid/brain/agents-test.git';
  git(dir, ['remote', 'add', 'origin', remote], env);
  return { dir, branch: 'brain-agents', commit: git(dir, ['rev-parse', 'HEAD'], env), remote };
}

/** Environment shared by all agents: the sandbox's HOME and BRAIN_HOME, the outbound guard, no
 * update checks or telemetry. */
export function baseEnv(sb: Sandbox, proxy: DenyProxy): NodeJS.ProcessEnv {
  return {
    ...sb.env,
    HTTP_PROXY: proxy.url,
    HTTPS_PROXY: proxy.url,
    ALL_PROXY: proxy.url,
    http_proxy: proxy.url,
    https_proxy: proxy.url,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    NO_COLOR: '1',
    CI: '1',
  };
}

function findFiles(root: string, match: (name: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (match(e.name)) out.push(p);
    }
  };
  walk(root);
  return out.sort();
}

interface Parts {
  lane: AgentLane;
  label: string;
  family: Family;
  setup(sb: Sandbox, standin: StandIn, env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; originRoot: string };
  startArgs(prompt: string): string[];
  sessionOf(r: RunResult, originRoot: string, before: Set<string>): string;
  resumeArgs(session: string, prompt: string): string[];
  fileMatch(session: string): (name: string) => boolean;
}

async function makeAgent(sb: Sandbox, script: Turn[], parts: Parts): Promise<Agent> {
  const bin = binFor(parts.lane);
  const logFile = path.join(sb.dir, `standin-${parts.lane}.log`);
  const standin = await startStandIn(parts.family, script, logFile);
  const proxy = await startDenyProxy();
  const repo = makeRepo(sb);
  const { env, originRoot } = parts.setup(sb, standin, baseEnv(sb, proxy));
  let last: RunResult | undefined;
  const check = (what: string, r: RunResult) => {
    last = r;
    if (r.code !== 0) throw new Error(`${parts.label} ${what} exited ${r.code ?? r.signal}\nstdout: ${r.stdout.slice(-2000)}\nstderr: ${r.stderr.slice(-4000)}\n--- stand-in log\n${standin.dump()}`);
    const bad = standin.unknown();
    if (bad.length) throw new Error(`${parts.label} ${what}: the stand-in got requests it has no answer for:\n${bad.map((b) => `${b.method} ${b.url} [${b.kind}] ${b.note ?? ''}`).join('\n')}\n(full log: ${logFile})`);
  };
  const agent: Agent = {
    lane: parts.lane,
    label: parts.label,
    bin,
    sb,
    standin,
    env,
    repo: repo.dir,
    repoInfo: repo,
    originRoot,
    async start(prompt, opts = {}) {
      const before = new Set(findFiles(originRoot, (n) => n.endsWith('.jsonl')));
      const args = parts.startArgs(prompt);
      // Options go after a subcommand (codex exec ...), else first.
      const at = args[0] === 'exec' ? 1 : 0;
      args.splice(at, 0, ...(opts.args ?? []));
      const r = await runCli(bin, args, { ...env, ...(opts.env ?? {}) }, repo.dir);
      check(`start "${prompt}"`, r);
      return { session: parts.sessionOf(r, originRoot, before), run: r };
    },
    async resume(session, prompt) {
      const r = await runCli(bin, parts.resumeArgs(session, prompt), env, repo.dir);
      check(`resume ${session} "${prompt}"`, r);
      return r;
    },
    async exec(args, what) {
      const r = await runCli(bin, args, env, repo.dir);
      check(what ?? args.join(' '), r);
      return r;
    },
    files(session) {
      return findFiles(originRoot, parts.fileMatch(session));
    },
    diagnose() {
      return [
        `--- ${parts.label} (${bin})`,
        last ? `last run exit ${last.code} in ${last.ms} ms\nstdout: ${last.stdout.slice(-1500)}\nstderr: ${last.stderr.slice(-3000)}` : 'no run yet',
        `--- stand-in requests (${logFile})`,
        standin.dump(),
        `--- outbound attempts refused: ${proxy.attempts.length ? proxy.attempts.join(', ') : 'none'}`,
      ].join('\n');
    },
    async close() {
      await standin.close();
      await proxy.close();
    },
  };
  Object.defineProperty(agent, 'outbound', { get: () => proxy.attempts });
  return agent;
}

/** Requests that tried to leave 127.0.0.1 during this agent's runs (refused by the guard). */
export function outbound(agent: Agent): string[] {
  return (agent as unknown as { outbound: string[] }).outbound;
}

// ---- Claude Code --------------------------------------------------------------------------

export function claudeCode(sb: Sandbox, script: Turn[]): Promise<Agent> {
  return makeAgent(sb, script, {
    lane: 'cc',
    label: 'Claude Code',
    family: 'anthropic',
    setup(_sb, standin, env) {
      return {
        env: {
          ...env,
          ANTHROPIC_BASE_URL: standin.baseUrl,
          ANTHROPIC_API_KEY: 'sk-ant-standin-000',
          ANTHROPIC_MODEL: MODEL.anthropic,
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_ERROR_REPORTING: '1',
        },
        originRoot: path.join(sb.home, '.claude', 'projects'),
      };
    },
    // Bash is allowed explicitly: as root Claude Code refuses --dangerously-skip-permissions.
    startArgs: (prompt) => ['-p', prompt, '--output-format', 'json', '--allowedTools', 'Bash'],
    resumeArgs: (session, prompt) => ['-p', prompt, '--output-format', 'json', '--allowedTools', 'Bash', '--resume', session],
    sessionOf(r) {
      const out = JSON.parse(r.stdout) as { session_id?: string };
      if (!out.session_id) throw new Error(`Claude Code printed no session_id: ${r.stdout.slice(0, 500)}`);
      return out.session_id;
    },
    fileMatch: (session) => (name) => name === `${session}.jsonl`,
  });
}

// ---- Codex --------------------------------------------------------------------------------

export function codex(sb: Sandbox, script: Turn[]): Promise<Agent> {
  return makeAgent(sb, script, {
    lane: 'codex',
    label: 'Codex',
    family: 'responses',
    setup(sb, standin, env) {
      const codexHome = path.join(sb.home, '.codex');
      fs.mkdirSync(codexHome, { recursive: true });
      // Sandbox and approvals off: the test HOME is the sandbox, and exec runs must never wait for a human.
      fs.writeFileSync(
        path.join(codexHome, 'config.toml'),
        [
          `model = "${MODEL.responses}"`,
          'model_provider = "standin"',
          'check_for_update_on_startup = false',
          'sandbox_mode = "danger-full-access"',
          'approval_policy = "never"',
          '',
          '[analytics]',
          'enabled = false',
          '',
          // Plugin and app discovery reach github.com and chatgpt.com at start-up; nothing here needs them.
          '[features]',
          'plugins = false',
          'remote_plugin = false',
          'apps = false',
          '',
          '[model_providers.standin]',
          'name = "Stand-in"',
          `base_url = "${standin.baseUrl}"`,
          'wire_api = "responses"',
          'env_key = "STANDIN_OPENAI_KEY"',
          'request_max_retries = 0',
          'stream_max_retries = 0',
          '',
        ].join('\n'),
      );
      return { env: { ...env, CODEX_HOME: codexHome, STANDIN_OPENAI_KEY: 'sk-standin-000' }, originRoot: path.join(codexHome, 'sessions') };
    },
    startArgs: (prompt) => ['exec', '--json', '--skip-git-repo-check', prompt],
    resumeArgs: (session, prompt) => ['exec', 'resume', '--json', '--skip-git-repo-check', session, prompt],
    sessionOf(r) {
      for (const line of r.stdout.split('\n')) {
        if (!line.startsWith('{')) continue;
        const ev = JSON.parse(line) as { type?: string; thread_id?: string };
        if (ev.type === 'thread.started' && ev.thread_id) return ev.thread_id;
      }
      throw new Error(`Codex printed no thread.started event: ${r.stdout.slice(0, 500)}`);
    },
    fileMatch: (session) => (name) => name.startsWith('rollout-') && name.endsWith(`-${session}.jsonl`),
  });
}

// ---- Pi -----------------------------------------------------------------------------------

export function pi(sb: Sandbox, script: Turn[]): Promise<Agent> {
  return makeAgent(sb, script, {
    lane: 'pi',
    label: 'Pi',
    family: 'chat',
    setup(sb, standin, env) {
      const agentDir = path.join(sb.home, '.pi', 'agent');
      fs.mkdirSync(agentDir, { recursive: true });
      const model = { id: MODEL.chat, name: 'Stand-in chat', reasoning: false, input: ['text'], contextWindow: 128000, maxTokens: 8192, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
      fs.writeFileSync(
        path.join(agentDir, 'models.json'),
        JSON.stringify({ providers: { standin: { baseUrl: standin.baseUrl, api: 'openai-completions', apiKey: 'STANDIN_OPENAI_KEY', models: [model] } } }, null, 2),
      );
      return {
        env: { ...env, PI_CODING_AGENT_DIR: agentDir, STANDIN_OPENAI_KEY: 'sk-standin-000', PI_OFFLINE: '1', PI_TELEMETRY: '0' },
        originRoot: path.join(agentDir, 'sessions'),
      };
    },
    startArgs: (prompt) => ['--provider', 'standin', '--model', MODEL.chat, '-p', prompt],
    // Pi resumes a given session with --session <id>; --continue would take the newest in the cwd.
    resumeArgs: (session, prompt) => ['--provider', 'standin', '--model', MODEL.chat, '--session', session, '-p', prompt],
    sessionOf(_r, originRoot, before) {
      const made = findFiles(originRoot, (n) => n.endsWith('.jsonl')).filter((f) => !before.has(f));
      if (made.length !== 1) throw new Error(`Pi: expected one new session file under ${originRoot}, found ${made.length}`);
      const first = JSON.parse(fs.readFileSync(made[0], 'utf8').split('\n')[0]) as { id?: string };
      if (!first.id) throw new Error(`Pi: ${made[0]} has no session header`);
      return first.id;
    },
    fileMatch: (session) => (name) => name.endsWith(`_${session}.jsonl`),
  });
}

export const AGENT_FACTORIES: Record<AgentLane, (sb: Sandbox, script: Turn[]) => Promise<Agent>> = { cc: claudeCode, codex, pi };
