// Gemini CLI (@google/gemini-cli) against the Gemini API stand-in (GOOGLE_GEMINI_BASE_URL on
// 127.0.0.1): a session with a shell call, resumed for a second turn, captured live by `brain
// watch`, then read back: every byte on the floor, every chunk checked with sed | sha256sum, the
// turns as the user saw them (the injected <session_context> is neither a turn nor the title), the
// phrase found with a citation that verifies, and the tokens equal to a sum over the raw file.
// BRAIN_TEST_GEMINI runs another build (npm run test:agents-latest: the newest release).
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sandbox, type Sandbox } from '../helpers/env';
import { agentBin } from '../../scripts/setup/40-agents.mjs';
import { brainCli, checkChunks, lakeEquals, lakeRelFor, manifestFor, startWatch, waitFor, type Watch } from './floor';
import { makeRepo, runCli, startDenyProxy, type DenyProxy, type RunResult } from './harness';
import { MODEL, startStandIn, type StandIn, type Turn } from './standin';

const W = { first: 'tamarind-funicular', second: 'pangolin-aqueduct' };
const SCRIPT: Turn[] = [
  {
    prompt: `Check the ${W.first} build: run the echo probe`,
    replies: [{ text: `Running the ${W.first} probe now.`, shell: 'echo probe-output-gemini-ok' }, { text: `The ${W.first} probe printed its marker, all good.` }],
  },
  { prompt: `Summarise what the ${W.second} step found`, replies: [{ text: `The ${W.second} step found nothing unusual.` }] },
];

function geminiBin(): string {
  if (process.env.BRAIN_TEST_GEMINI) return process.env.BRAIN_TEST_GEMINI;
  const bin = agentBin('gemini');
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: the pinned agent CLIs are installed by the test setup; run \`node scripts/setup/40-agents.mjs\` (package @google/gemini-cli)`);
  return bin;
}

function sessionFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/^session-.*\.jsonl$/.test(e.name)) out.push(p);
    }
  };
  walk(root);
  return out.sort();
}

/** Token totals the way Gemini CLI wrote them: each message id's last write wins (a reply is
 * written again when its tool calls are added), input = prompt, cached split out, thoughts as output. */
function rawTokens(file: string): { input: number; output: number; cached: number } {
  const byId = new Map<string, { input?: number; output?: number; cached?: number; thoughts?: number }>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { id?: string; type?: string; tokens?: { input?: number; output?: number; cached?: number; thoughts?: number } };
    if (r.type === 'gemini' && r.id && r.tokens) byId.set(r.id, r.tokens);
  }
  let input = 0;
  let output = 0;
  let cached = 0;
  for (const t of byId.values()) {
    input += (t.input ?? 0) - (t.cached ?? 0);
    cached += t.cached ?? 0;
    output += (t.output ?? 0) + (t.thoughts ?? 0);
  }
  return { input, output, cached };
}

describe('real agent gemini', { timeout: 600_000 }, () => {
  let sb: Sandbox;
  let standin: StandIn;
  let proxy: DenyProxy;
  let watch: Watch;
  let env: NodeJS.ProcessEnv;
  let repo: string;
  let origin: string;
  let lakeRel: string;
  const runs: RunResult[] = [];
  const why = () => `--- brain watch\n${watch?.output()}\n--- stand-in\n${standin?.dump()}\n--- last run\n${runs.at(-1)?.stderr.slice(-3000) ?? ''}`;

  before(async () => {
    sb = sandbox({ fixtures: false, name: 'agents-gemini' });
    standin = await startStandIn('gemini', SCRIPT, path.join(sb.dir, 'standin-gemini.log'));
    proxy = await startDenyProxy();
    repo = makeRepo(sb).dir;
    fs.mkdirSync(path.join(sb.home, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(sb.home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } }));
    env = {
      ...sb.env,
      HTTP_PROXY: proxy.url,
      HTTPS_PROXY: proxy.url,
      http_proxy: proxy.url,
      https_proxy: proxy.url,
      NO_PROXY: '127.0.0.1,localhost',
      no_proxy: '127.0.0.1,localhost',
      GEMINI_API_KEY: 'standin-gemini-key',
      GOOGLE_GEMINI_BASE_URL: standin.baseUrl,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      NO_COLOR: '1',
      TERM: 'dumb',
    };
    watch = startWatch(env);
    await watch.ready;
  });

  after(async () => {
    await watch?.stop();
    await standin?.close();
    await proxy?.close();
    sb?.cleanup();
  });

  const gemini = async (args: string[]) => {
    const r = await runCli(geminiBin(), [...args, '--yolo', '-m', MODEL.gemini], env, repo);
    runs.push(r);
    assert.equal(r.code, 0, `gemini ${args.join(' ')} exited ${r.code ?? r.signal}\n${r.stderr.slice(-3000)}\n${standin.dump()}`);
    assert.deepEqual(
      standin.log.filter((x) => x.kind === 'unknown' || x.kind === 'error').map((x) => `${x.method} ${x.url}`),
      [],
      'every request was one the stand-in knows',
    );
    return r;
  };

  it('captures a session with a shell call and its resumed second turn, byte for byte, while Gemini CLI writes it', async () => {
    const r1 = await gemini(['-p', SCRIPT[0].prompt]);
    assert.match(r1.stdout, new RegExp(`${W.first} probe printed its marker`));
    const files = sessionFiles(path.join(sb.home, '.gemini', 'tmp'));
    assert.equal(files.length, 1, `one session file: ${files.join(', ')}`);
    origin = files[0];
    lakeRel = lakeRelFor('gemini', origin, env);
    await waitFor(() => lakeEquals(sb.brain, lakeRel, origin), 'the floor to hold the first turn', why);
    await gemini(['--resume', 'latest', '-p', SCRIPT[1].prompt]);
    // A resume may append to the file or write another one for the same session: every file the
    // CLI wrote is on the floor as it is now, or as generations of it.
    for (const f of sessionFiles(path.join(sb.home, '.gemini', 'tmp'))) {
      const rel = lakeRelFor('gemini', f, env);
      await waitFor(() => lakeEquals(sb.brain, rel, f), `the floor to hold ${f}`, why, 60_000);
      assert.deepEqual(checkChunks(sb.brain, path.join(sb.brain, rel), manifestFor(sb.brain, [rel]).filter((c) => c.gen === 1)), []);
    }
    const v = brainCli(env, ['verify']);
    assert.equal(v.status, 0, `brain verify:\n${v.stdout}\n${v.stderr}`);
    assert.deepEqual(proxy.attempts, [], 'nothing tried to leave 127.0.0.1');
  });

  it('reads the session back as the user saw it: two prompts, the replies, the tool call; no injected context as a turn or a title', () => {
    // The session by Gemini CLI's own id (its header's sessionId), as a user would name it.
    const sessionId = JSON.parse(fs.readFileSync(origin, 'utf8').split('\n')[0]).sessionId as string;
    const show = brainCli(env, ['show', '--json', sessionId]);
    assert.equal(show.status, 0, show.stderr);
    const j = JSON.parse(show.stdout) as { title?: string; turns: { role: string; text: string; tools?: unknown[]; tool_calls?: unknown[] }[] };
    const prompts = j.turns.filter((t) => t.role === 'user').map((t) => t.text);
    assert.deepEqual(prompts, [SCRIPT[0].prompt, SCRIPT[1].prompt], 'the user turns are the two prompts, nothing injected');
    assert.ok(!j.turns.some((t) => /<session_context>/.test(t.text) && t.role === 'user'), 'the <session_context> is not a user turn');
    assert.ok(j.turns.some((t) => t.role === 'assistant' && t.text.includes(`${W.second} step found nothing unusual`)));
    assert.ok(JSON.stringify(j).includes('echo probe-output-gemini-ok'), 'the shell call is shown');
    if (j.title !== undefined) assert.equal(j.title, SCRIPT[0].prompt, 'titled by the first prompt');
  });

  it('search finds a phrase of the second turn with a citation that verifies by hand', () => {
    const r = brainCli(env, ['search', '--json', W.second]);
    assert.equal(r.status, 0, r.stderr);
    const hit = (JSON.parse(r.stdout) as { hits: { lane: string; tier: string; snippets: { citation: { lake_path: string; line_from: number; line_to: number; sha256: string } }[] }[] }).hits[0];
    assert.equal(hit?.lane, 'gemini');
    assert.equal(hit.tier, 'turns');
    const c = hit.snippets[0].citation;
    const v = brainCli(env, ['cite', '--verify', JSON.stringify(c)]);
    assert.equal(v.status, 0, `${v.stdout}\n${v.stderr}`);
  });

  it('counts the tokens Gemini CLI recorded, as a sum over the raw file says', () => {
    const r = brainCli(env, ['stats', '--json', '--agent', 'gemini']);
    assert.equal(r.status, 0, r.stderr);
    const raw = sessionFiles(path.join(sb.home, '.gemini', 'tmp')).map(rawTokens);
    const want = raw.reduce((a, b) => ({ input: a.input + b.input, output: a.output + b.output, cached: a.cached + b.cached }), { input: 0, output: 0, cached: 0 });
    assert.ok(want.output > 0, 'the stand-in reported usage and Gemini CLI recorded it');
    const text = r.stdout;
    assert.match(text, new RegExp(`\\b${want.output}\\b`), `output tokens ${want.output} in brain stats: ${text}`);
  });
});
