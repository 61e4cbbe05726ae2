// The shared body of the real-agent suite, run once per agent (cc.test.ts, codex.test.ts,
// pi.test.ts). One sandbox HOME per agent for all its cases, to keep the wall time small: the
// cases run in order and each builds on what the earlier ones left on the floor.
import { after, before, describe, it, type TestContext } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES, sandbox, type Sandbox } from '../helpers/env';
import { AGENT_FACTORIES, agentVersion, outbound, type Agent, type AgentLane } from './harness';
import { brainCli, checkChunks, floorState, generations, lakeEquals, lakeRelFor, manifestFor, startWatch, waitFor, type Watch } from './floor';
import type { Turn } from './standin';
import { expectedTurns, readTurns, sameTurns } from './turns';
import { hookFiles } from '../../src/core/setup/hooks';
import type { SearchOutput } from '../../src/core/recall/types';
import { agentByLane } from '../../src/core/agents';

/** The meta record `brain hook` writes (fields this suite checks). */
interface MetaRecord {
  session: string;
  cwd?: string;
  source?: string | null;
  hook_event?: string | null;
  git?: { branch?: string | null; commit?: string | null; remote?: string | null; common_dir?: string } | null;
}

let failed = false;

/** `it`, remembering a failure so the sandbox is kept for a look (under .test-work/, ignored by git). */
export function step(name: string, fn: (t: TestContext) => unknown): void {
  it(name, async (t) => {
    try {
      await fn(t);
    } catch (e) {
      failed = true;
      throw e;
    }
  });
}

/** Words chosen per agent so a search for one can only mean that agent's session (a lane without
 * its own pair gets two named after it). */
const WORDS: Record<AgentLane, { first: string; second: string }> = {
  cc: { first: 'periwinkle-lighthouse', second: 'quokka-harbour' },
  codex: { first: 'saffron-gondola', second: 'marmot-viaduct' },
  pi: { first: 'juniper-observatory', second: 'ocelot-causeway' },
};

function wordsOf(lane: AgentLane): { first: string; second: string } {
  const l = lane.replace(/_/g, '-');
  return WORDS[lane] ?? { first: `${l}-lanternfish`, second: `${l}-millpond` };
}

/** Two user turns, the first with a shell tool call, plus a decoy session that only runs a
 * command mentioning the first word (so search has a tool-output-only match to rank below). */
export function conversation(lane: AgentLane): { main: Turn[]; decoy: Turn } {
  const w = wordsOf(lane);
  return {
    main: [
      {
        prompt: `Check the ${w.first} build: run the echo probe`,
        replies: [{ text: `Running the ${w.first} probe now.`, shell: `echo probe-output-${lane}-ok` }, { text: `The ${w.first} probe printed its marker, all good.` }],
      },
      { prompt: `Summarise what the ${w.second} step found`, replies: [{ text: `The ${w.second} step found nothing unusual.` }] },
    ],
    decoy: { prompt: 'Run the decoy listing', replies: [{ shell: `echo ${w.first} decoy-output` }, { text: 'Decoy listing finished.' }] },
  };
}

export interface SuiteContext {
  sb: Sandbox;
  agent: Agent;
  watch: Watch | undefined;
  session: string;
  /** The main session's transcript in the agent's home. */
  origin: string;
  lakeRel: string;
  /** What the first `brain init` printed. */
  initOutput: string;
}

/** Registers the live-capture, verify, turns and search cases for one agent; `more` adds the
 * agent's own cases (hooks, rewrites) to the same describe, sharing its sandbox. */
export function agentSuite(lane: AgentLane, more?: (ctx: () => SuiteContext) => void): void {
  const { main, decoy } = conversation(lane);
  const ctx = {} as SuiteContext;

  // The hook cases belong to agents brain sets up hooks for (a harness); others have none to test.
  const hookStep: typeof step = agentByLane(lane)?.harness ? step : () => undefined;

  describe(`real agent ${lane}`, () => {
    before(async () => {
      ctx.sb = sandbox({ fixtures: true, name: `agents-${lane}` });
      ctx.agent = await AGENT_FACTORIES[lane](ctx.sb, [...main, decoy]);
      ctx.watch = startWatch(ctx.agent.env);
      await ctx.watch.ready;
    });

    after(async () => {
      await ctx.watch?.stop();
      await ctx.agent?.close();
      if (ctx.sb && process.env.BRAIN_AGENTS_KEEP) keepTranscripts(ctx, process.env.BRAIN_AGENTS_KEEP);
      if (failed) console.error(`# kept the ${lane} sandbox for a look: ${ctx.sb?.dir}`);
      else ctx.sb?.cleanup();
    });

    step('captures a scripted multi-turn conversation with a tool call while the agent writes it', async () => {
      const { agent, sb } = ctx;
      const why = () => `${floorState(sb, ctx.lakeRel ?? '?', ctx.origin)}\n--- brain watch\n${ctx.watch?.output()}\n${agent.diagnose()}`;
      // Hold the model's second reply: the agent has written the prompt, the tool call and its
      // output, and waits. The floor must have those bytes before the agent goes on.
      const pause = agent.standin.pauseBefore(0, 1);
      const before = new Set(transcripts(agent.originRoot));
      const started = agent.start(main[0].prompt);
      await pause.reached;
      ctx.origin = await waitForNewFile(agent, before);
      ctx.lakeRel = lakeRelFor(lane, ctx.origin, agent.env);
      // The agent may still append a line or two after asking for the held reply; let it settle.
      await settled(ctx.origin);
      await waitFor(() => lakeEquals(sb.brain, ctx.lakeRel, ctx.origin), 'the floor to hold the half-written session', why);
      const mid = fs.readFileSync(path.join(sb.brain, ctx.lakeRel));
      assert.ok(mid.includes(`probe-output-${lane}-ok`), 'mid-run lake file holds the tool output already');
      pause.release();
      const { session } = await started;
      ctx.session = session;
      assert.deepEqual(agent.files(session), [ctx.origin], 'the session lives in one file');
      await waitFor(() => lakeEquals(sb.brain, ctx.lakeRel, ctx.origin), 'the floor to catch up with the first turn', why);

      // Second user turn: a new agent process continuing the same session.
      const changes = await actAndCheckLossless(ctx, () => agent.resume(session, main[1].prompt));
      const inPlace = changes.length === 1 && changes[0].file === ctx.origin && changes[0].how === 'appended' && changes[0].sameInode;
      if (!inPlace) assert.fail(`${agent.label} ${agentVersion(lane)} no longer appends a resumed session to its file in place (${describeChanges(changes, agent.originRoot)}): capture held, but test/agents/FINDINGS.md needs an update`);

      const gens = generations(sb.brain, ctx.lakeRel);
      assert.deepEqual(gens, [path.join(sb.brain, ctx.lakeRel)], 'appending turns opens no new generation');
      const chunks = manifestFor(sb.brain, [ctx.lakeRel]);
      assert.ok(chunks.length >= 3, `captured in several live chunks (mid-run, end of run, after resume): got ${chunks.length}\n${why()}`);
      assert.ok(
        chunks.every((c) => c.source === 'watch' && c.lane === lane && c.session === session && c.gen === 1),
        `every chunk came from watch, lane ${lane}, session ${session}, generation 1:\n${JSON.stringify(chunks, null, 1)}`,
      );
      assert.deepEqual(checkChunks(sb.brain, path.join(sb.brain, ctx.lakeRel), chunks), []);
      assert.ok(
        chunks.some((c) => c.byte_to === mid.length),
        'one chunk ends exactly where the agent had paused: capture happened while the agent was running',
      );
      assert.deepEqual(outbound(agent), [], 'nothing tried to leave 127.0.0.1');
    });

    step('captures a second session (the decoy) beside the first', async () => {
      const { agent, sb } = ctx;
      const { session } = await agent.start(decoy.prompt);
      const files = agent.files(session);
      assert.equal(files.length, 1, `one transcript for the decoy session: ${files.join(', ')}`);
      const rel = lakeRelFor(lane, files[0], agent.env);
      await waitFor(() => lakeEquals(sb.brain, rel, files[0]), 'the decoy session on the floor', () => floorState(sb, rel, files[0]));
      assert.ok(lakeEquals(sb.brain, ctx.lakeRel, ctx.origin), 'the first session is still byte-exact');
    });

    step('normalises the captured session into exactly the scripted turns', () => {
      const { sb } = ctx;
      const got = readTurns(lane, sb, ctx.lakeRel);
      const want = expectedTurns(main, lane);
      const diff = sameTurns(got, want);
      assert.equal(diff, '', diff);
    });

    step('brain search finds a phrase from each turn, this session first, with a citation that checks out', () => {
      const { sb, agent } = ctx;
      const w = wordsOf(lane);
      for (const phrase of [w.first, w.second, `${w.first} probe printed`]) {
        const r = brainCli(agent.env, ['search', phrase, '--json']);
        assert.equal(r.status, 0, `brain search ${phrase} failed:\n${r.stdout}\n${r.stderr}`);
        const out = JSON.parse(r.stdout) as SearchOutput;
        const top = out.hits[0];
        assert.ok(top, `brain search "${phrase}" found nothing:\n${r.stdout}`);
        assert.equal(top.session, ctx.session, `brain search "${phrase}": first hit ${top.session}, not the captured session ${ctx.session}\n${out.header}\n${out.hits.map((h) => `${h.session} ${h.lane} ${h.tier} ${h.matching_turns}`).join('\n')}`);
        assert.equal(top.lane, lane);
        assert.equal(top.tier, 'turns', 'found in what the user or the assistant said');
        // The snippet's citation, checked as the README tells a user to.
        const cite = top.snippets[0]?.citation;
        assert.ok(cite, `the first hit has a snippet with a citation: ${JSON.stringify(top)}`);
        const file = path.join(sb.brain, cite.lake_path);
        const sha = spawnSync('sh', ['-c', `sed -n '${cite.line_from},${cite.line_to}p' "$1" | sha256sum`, 'sh', file], { encoding: 'utf8' }).stdout.split(' ')[0];
        assert.equal(sha, cite.sha256, `sed -n '${cite.line_from},${cite.line_to}p' ${cite.lake_path} | sha256sum`);
        assert.ok(fs.readFileSync(file).subarray(cite.byte_from, cite.byte_to).toString('utf8').toLowerCase().includes(phrase.split(' ')[0].toLowerCase()), 'the cited bytes hold the phrase');
      }
      // The decoy only ran a command naming the first word: it may be listed, but never above.
      const r = brainCli(agent.env, ['search', w.first, '--json']);
      const hits = (JSON.parse(r.stdout) as SearchOutput).hits;
      for (const h of hits.slice(1)) assert.notEqual(h.tier === 'turns' && h.session !== ctx.session && h.lane === lane, true, `another ${lane} session ranks as a turn-text hit: ${h.session}`);
    });

    hookStep('after brain init, the SessionStart hook records the repository, branch and commit of a new session', async (t) => {
      const { agent, sb } = ctx;
      const init = brainCli(agent.env, ['init', '--store', path.join(sb.dir, 'store'), '--no-timer']);
      assert.equal(init.status, 0, `brain init failed:\n${init.stdout}\n${init.stderr}`);
      ctx.initOutput = init.stdout;
      const hookFile = hookFiles(agent.env)[lane];
      assert.ok(fs.existsSync(hookFile), `brain init installed no hook for ${lane} at ${hookFile}:\n${init.stdout}`);
      const again = brainCli(agent.env, ['init', '--store', path.join(sb.dir, 'store'), '--no-timer', '--json']);
      assert.equal(again.status, 0, `a second brain init failed:\n${again.stdout}\n${again.stderr}`);

      addTurn(ctx, { prompt: 'Hooked session: say hello', replies: [{ text: 'Hello from the hooked session.' }] });
      // Codex runs a hook only once the user has trusted it (/hooks in its TUI); the flag stands in
      // for that one-time step.
      const { session, run } = await agent.start('Hooked session: say hello', { args: lane === 'codex' ? ['--dangerously-bypass-hook-trust'] : [] });
      const metaFile = path.join(sb.brain, 'meta', lane, `${session}.json`);
      // Pi's extension runs the hook detached, so its record may land just after pi exits.
      await waitFor(() => fs.existsSync(metaFile), `the meta record ${metaFile}`, () => `brain init: ${init.stdout}\n${agent.diagnose()}\nrun stderr: ${run.stderr}`, 15_000);
      const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as MetaRecord;
      const repo = agent.repoInfo;
      assert.equal(meta.session, session);
      assert.equal(meta.git?.branch, repo.branch, `branch in ${metaFile}`);
      assert.equal(meta.git?.commit, repo.commit, `commit in ${metaFile}`);
      assert.equal(meta.git?.remote, repo.remote, `remote in ${metaFile}`);
      assert.equal(fs.realpathSync(String(meta.cwd)), fs.realpathSync(repo.dir), `cwd in ${metaFile}`);
      assert.equal(fs.realpathSync(String(meta.git?.common_dir)), fs.realpathSync(path.join(repo.dir, '.git')), `git common dir in ${metaFile}`);
      t.diagnostic(`hook payload source=${meta.source} event=${meta.hook_event}`);
      if (lane === 'cc') for (const h of hookAttachments(agent.files(session)[0])) t.diagnostic(`Claude Code ran \`${h.command}\`: exit ${h.exitCode} in ${h.durationMs} ms`);

      // How long the hook itself takes, as the harness runs it (reported, not asserted: speed is the bench's).
      const payload = JSON.stringify({ session_id: 'timing-probe', transcript_path: agent.files(session)[0], cwd: repo.dir, hook_event_name: 'SessionStart', source: 'startup' });
      const t0 = process.hrtime.bigint();
      const h = brainCli(agent.env, ['hook', lane], { input: payload });
      t.diagnostic(`brain hook ${lane}: exit ${h.status} in ${Number(process.hrtime.bigint() - t0) / 1e6} ms`);
      assert.equal(h.status, 0);
    });

    hookStep('the hook never fails the agent, even when BRAIN_HOME cannot be written', async (t) => {
      const { agent, sb } = ctx;
      // Root ignores permission bits, so "cannot be written" is a BRAIN_HOME under a regular file.
      const blocker = path.join(sb.dir, 'not-a-directory');
      fs.writeFileSync(blocker, 'brain cannot make a folder under a file\n');
      const badHome = path.join(blocker, 'brain');
      addTurn(ctx, { prompt: 'Unwritable floor: say goodbye', replies: [{ text: 'Goodbye despite the broken floor.' }] });
      const { session, run } = await agent.start('Unwritable floor: say goodbye', {
        env: { BRAIN_HOME: badHome },
        args: lane === 'codex' ? ['--dangerously-bypass-hook-trust'] : [],
      });
      assert.equal(run.code, 0);
      const [file] = agent.files(session);
      assert.ok(fs.readFileSync(file, 'utf8').includes('Goodbye despite the broken floor.'), 'the agent finished its reply');
      assert.ok(fs.statSync(blocker).isFile() && !fs.existsSync(badHome), 'nothing was created at the unwritable BRAIN_HOME');
      if (lane === 'cc') {
        // Claude Code records each hook run in the transcript: proof the hook ran, failed softly, exited 0.
        const runs = hookAttachments(file);
        assert.equal(runs.length, 1, `one SessionStart hook run recorded in ${file}`);
        assert.equal(runs[0].exitCode, 0);
        assert.match(String(runs[0].command), /brain['"]? hook cc$/);
        assert.match(String(runs[0].stderr), /ENOTDIR|not a directory/);
      }
      // The direct call says what went wrong, on stderr, and still exits 0.
      const h = brainCli({ ...agent.env, BRAIN_HOME: badHome }, ['hook', lane], { input: JSON.stringify({ session_id: session, cwd: agent.repo }) });
      assert.equal(h.status, 0, `brain hook must exit 0: ${h.stderr}`);
      assert.match(h.stderr, /not-a-directory|ENOTDIR|cannot/i, 'the hook names the problem on stderr');
    });

    more?.(() => ctx);

    // Last, so it covers everything the cases above (and the agent's own ones) put on the floor.
    step('brain verify is clean, and --deep finds every origin prefix intact', async () => {
      const { agent } = ctx;
      await ctx.watch?.stop();
      ctx.watch = undefined;
      const v = brainCli(agent.env, ['verify']);
      assert.equal(v.status, 0, `brain verify failed:\n${v.stdout}\n${v.stderr}`);
      const deep = brainCli(agent.env, ['verify', '--deep']);
      assert.equal(deep.status, 0, `brain verify --deep failed:\n${deep.stdout}\n${deep.stderr}`);
      assert.deepEqual(outbound(agent), [], 'nothing tried to leave 127.0.0.1');
    });
  });
}

/** Copies the transcripts the agent wrote in this run (not the fixtures) to `dest/<lane>/`, for
 * scripts/agents-latest.mjs to compare the formats of two CLI versions. */
function keepTranscripts(c: SuiteContext, dest: string): void {
  const fixtureDir = ({ cc: 'claude/projects', codex: 'codex/sessions', pi: 'pi/agent/sessions' } as Record<string, string>)[c.agent.lane] ?? c.agent.fixtures;
  for (const f of transcripts(c.agent.originRoot)) {
    const rel = path.relative(c.agent.originRoot, f);
    if (fixtureDir && fs.existsSync(path.join(FIXTURES, fixtureDir, rel))) continue;
    const to = path.join(dest, c.agent.lane, rel);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(f, to);
  }
}

/** What an agent run did to the transcript files under its origin root. */
export interface FileChange {
  file: string;
  /** 'appended' (same file, old bytes kept), 'rewritten' (old bytes changed, same or new inode),
   * 'new' (a file that did not exist before), 'untouched'. */
  how: 'appended' | 'rewritten' | 'new' | 'untouched';
  sameInode: boolean;
  before: number;
  after: number;
  /** Lake generations of the file once capture caught up. */
  generations?: number;
}

/** Runs `act` (an agent run that resumes, forks or reopens a session) with watch running, then
 * checks that whatever the agent did to its files reached the floor without loss:
 * - every file it touched or made: the newest lake generation equals the file now;
 * - a file whose old bytes changed: a new generation was opened and the previous one still holds
 *   exactly the old bytes; a file that only grew: no new generation.
 * Returns what happened to each file, for the findings and the test's diagnostics. */
export async function actAndCheckLossless(c: SuiteContext, act: () => Promise<unknown>): Promise<FileChange[]> {
  const { agent, sb } = c;
  const lane = agent.lane;
  const snap = new Map<string, { bytes: Buffer; ino: number; gens: string[] }>();
  for (const f of transcripts(agent.originRoot)) {
    const rel = lakeRelFor(lane, f, agent.env);
    snap.set(f, { bytes: fs.readFileSync(f), ino: fs.statSync(f).ino, gens: generations(sb.brain, rel) });
  }
  // The floor must hold every file as it is before the act, or "lossless" would mean nothing.
  for (const [f, s] of snap) {
    const last = () => generations(sb.brain, lakeRelFor(lane, f, agent.env)).at(-1);
    await waitFor(() => !!last() && fs.readFileSync(last()!).equals(s.bytes) && lakeEquals(sb.brain, path.relative(sb.brain, last()!), f), `${f} on the floor before the agent runs`, () => floorState(sb, lakeRelFor(lane, f, agent.env), f));
    s.gens = generations(sb.brain, lakeRelFor(lane, f, agent.env));
  }
  await act();
  const changes: FileChange[] = [];
  for (const f of transcripts(agent.originRoot)) {
    const now = fs.readFileSync(f);
    const old = snap.get(f);
    const how: FileChange['how'] = !old ? 'new' : now.equals(old.bytes) ? 'untouched' : now.subarray(0, old.bytes.length).equals(old.bytes) ? 'appended' : 'rewritten';
    changes.push({ file: f, how, sameInode: !!old && old.ino === fs.statSync(f).ino, before: old?.bytes.length ?? 0, after: now.length });
  }
  for (const ch of changes.filter((x) => x.how !== 'untouched')) {
    const rel = lakeRelFor(lane, ch.file, agent.env);
    const last = () => generations(sb.brain, rel).at(-1);
    await waitFor(() => !!last() && lakeEquals(sb.brain, path.relative(sb.brain, last()!), ch.file), `the floor to catch up with ${ch.how} ${ch.file}`, () => `${floorState(sb, rel, ch.file)}\n${c.watch?.output()}`);
    const gens = generations(sb.brain, rel);
    ch.generations = gens.length;
    const old = snap.get(ch.file);
    if (ch.how === 'appended') assert.equal(gens.length, old!.gens.length, `${ch.file} only grew: no new generation (${gens.join(', ')})`);
    if (ch.how === 'rewritten') {
      assert.ok(gens.length > old!.gens.length, `${ch.file} was rewritten: a new generation must open (${gens.join(', ')})`);
      assert.ok(fs.readFileSync(old!.gens.at(-1)!).equals(old!.bytes), `${ch.file}: the generation before the rewrite still holds exactly the old bytes`);
    }
    for (const g of gens) {
      const grel = path.relative(sb.brain, g);
      assert.deepEqual(checkChunks(sb.brain, g, manifestFor(sb.brain, [grel])), [], `manifest of ${grel}`);
    }
  }
  // Every file the agent left as it was is still byte-exact on the floor.
  for (const ch of changes.filter((x) => x.how === 'untouched')) {
    const last = generations(sb.brain, lakeRelFor(lane, ch.file, agent.env)).at(-1);
    assert.ok(last && fs.readFileSync(last).equals(fs.readFileSync(ch.file)), `${ch.file} untouched and still byte-exact`);
  }
  return changes.filter((x) => x.how !== 'untouched');
}

/** One line per changed file, for t.diagnostic and the findings. */
export function describeChanges(changes: FileChange[], root: string): string {
  return changes.map((c) => `${c.how}${c.how === 'new' ? '' : c.sameInode ? ' (same inode)' : ' (new inode)'}: ${path.relative(root, c.file)} ${c.before} -> ${c.after} bytes, ${c.generations ?? '?'} lake generation(s)`).join('; ');
}

/** Claude Code's record of each hook it ran (an `attachment` line of type hook_success/…). */
function hookAttachments(file: string): { command?: string; exitCode?: number; stderr?: string; durationMs?: number }[] {
  const out: { command?: string; exitCode?: number; stderr?: string; durationMs?: number }[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.includes('"hookEvent":"SessionStart"')) continue;
    const a = (JSON.parse(line) as { attachment?: { hookEvent?: string; command?: string; exitCode?: number; stderr?: string; durationMs?: number } }).attachment;
    if (a?.hookEvent === 'SessionStart') out.push(a);
  }
  return out;
}

/** Adds one scripted turn to the stand-in (for a case's extra prompt). */
export function addTurn(c: SuiteContext, turn: Turn): void {
  c.agent.standin.script = [...c.agent.standin.script, turn];
}

/** Waits until a file has not changed size for a while (the paused agent has written all it will). */
async function settled(file: string, quietMs = 400): Promise<void> {
  let size = -1;
  let since = Date.now();
  await waitFor(
    () => {
      const now = fs.statSync(file).size;
      if (now !== size) {
        size = now;
        since = Date.now();
      }
      return now > 0 && Date.now() - since >= quietMs;
    },
    `${file} to stop growing`,
    () => `size ${size}`,
  );
}

export function transcripts(root: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.jsonl')) found.push(p);
    }
  };
  walk(root);
  return found.sort();
}

/** Waits for the agent to create one new transcript file (it does so at its first line); the
 * fixtures share the origin root, so "new" is against the listing taken before the run. */
async function waitForNewFile(agent: Agent, before: Set<string>): Promise<string> {
  let made: string[] = [];
  await waitFor(
    () => (made = transcripts(agent.originRoot).filter((f) => !before.has(f))).length === 1,
    `${agent.label} to create its transcript`,
    () => `new files: ${made.join(', ') || 'none'}\n${agent.diagnose()}`,
  );
  return made[0];
}
