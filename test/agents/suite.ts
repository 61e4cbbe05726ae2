// The shared body of the real-agent suite, run once per agent (cc.test.ts, codex.test.ts,
// pi.test.ts). One sandbox HOME per agent for all its cases, to keep the wall time small: the
// cases run in order and each builds on what the earlier ones left on the floor.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sandbox, type Sandbox } from '../helpers/env';
import { AGENT_FACTORIES, outbound, type Agent, type AgentLane } from './harness';
import { brainCli, checkChunks, floorState, generations, lakeEquals, lakeRelFor, manifestFor, startWatch, waitFor, type Watch } from './floor';
import type { Turn } from './standin';
import { expectedTurns, readTurns, sameTurns } from './turns';

/** Words chosen per agent so a search for one can only mean that agent's session. */
const WORDS: Record<AgentLane, { first: string; second: string }> = {
  cc: { first: 'periwinkle-lighthouse', second: 'quokka-harbour' },
  codex: { first: 'saffron-gondola', second: 'marmot-viaduct' },
  pi: { first: 'juniper-observatory', second: 'ocelot-causeway' },
};

/** Two user turns, the first with a shell tool call, plus a decoy session that only runs a
 * command mentioning the first word (so search has a tool-output-only match to rank below). */
export function conversation(lane: AgentLane): { main: Turn[]; decoy: Turn } {
  const w = WORDS[lane];
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
}

/** Registers the live-capture, verify, turns and search cases for one agent; `more` adds the
 * agent's own cases (hooks, rewrites) to the same describe, sharing its sandbox. */
export function agentSuite(lane: AgentLane, more?: (ctx: () => SuiteContext) => void): void {
  const { main, decoy } = conversation(lane);
  const ctx = {} as SuiteContext;

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
      // A failed run keeps its sandbox for a look (it lives under .test-work/, which is ignored).
      if (!process.exitCode) ctx.sb?.cleanup();
    });

    it('captures a scripted multi-turn conversation with a tool call while the agent writes it', async () => {
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
      const midSize = () => fs.statSync(ctx.origin).size;
      await waitFor(() => midSize() > 0 && lakeEquals(sb.brain, ctx.lakeRel, ctx.origin), 'the floor to hold the half-written session', why);
      const mid = fs.readFileSync(path.join(sb.brain, ctx.lakeRel));
      assert.ok(mid.includes(`probe-output-${lane}-ok`), 'mid-run lake file holds the tool output already');
      pause.release();
      const { session } = await started;
      ctx.session = session;
      assert.deepEqual(agent.files(session), [ctx.origin], 'the session lives in one file');
      await waitFor(() => lakeEquals(sb.brain, ctx.lakeRel, ctx.origin), 'the floor to catch up with the first turn', why);

      // Second user turn: a new agent process continuing the same session.
      await agent.resume(session, main[1].prompt);
      const files = agent.files(session);
      await waitFor(() => files.every((f) => lakeEquals(sb.brain, lakeRelFor(lane, f, agent.env), f)), 'the floor to catch up with the resumed session', why);
      assert.deepEqual(files, [ctx.origin], `${agent.label} kept the resumed session in the same file`);

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

    it('captures the decoy session too, and brain verify is clean', async () => {
      const { agent, sb } = ctx;
      const { session } = await agent.start(decoy.prompt);
      const [file] = agent.files(session);
      const rel = lakeRelFor(lane, file, agent.env);
      await waitFor(() => lakeEquals(sb.brain, rel, file), 'the decoy session on the floor', () => floorState(sb, rel, file));
      await ctx.watch!.stop();
      ctx.watch = undefined;
      const v = brainCli(agent.env, ['verify']);
      assert.equal(v.status, 0, `brain verify failed:\n${v.stdout}\n${v.stderr}`);
      const deep = brainCli(agent.env, ['verify', '--deep']);
      assert.equal(deep.status, 0, `brain verify --deep failed:\n${deep.stdout}\n${deep.stderr}`);
    });

    it('normalises the captured session into exactly the scripted turns', () => {
      const { sb } = ctx;
      const got = readTurns(lane, sb, ctx.lakeRel, ctx.session);
      const want = expectedTurns(main, lane);
      const diff = sameTurns(got, want);
      assert.equal(diff, '', diff);
    });

    it('brain search finds a phrase from each turn, this session first', () => {
      const { sb, agent } = ctx;
      for (const phrase of [WORDS[lane].first, WORDS[lane].second, `${WORDS[lane].first} probe printed`]) {
        const r = brainCli(agent.env, ['search', phrase, '--json']);
        assert.equal(r.status, 0, `brain search ${phrase} failed:\n${r.stdout}\n${r.stderr}`);
        const hits = searchHits(r.stdout);
        assert.ok(hits.length > 0, `brain search "${phrase}" found nothing:\n${r.stdout}`);
        assert.equal(hits[0].session, ctx.session, `brain search "${phrase}": first hit is ${hits[0].session}, not the captured session ${ctx.session}:\n${r.stdout.slice(0, 3000)}`);
        assert.equal(hits[0].agent === lane || hits[0].lane === lane || hits[0].agent === agentName(lane), true, `first hit's agent is ${hits[0].agent}`);
      }
      void sb;
    });

    more?.(() => ctx);
  });
}

function agentName(lane: AgentLane): string {
  return { cc: 'claude-code', codex: 'codex', pi: 'pi' }[lane];
}

/** `brain search --json` hits, whether the JSON is an array or an object with a hits/results list. */
export function searchHits(stdout: string): { session: string; agent?: string; lane?: string }[] {
  const j = JSON.parse(stdout) as unknown;
  const list = Array.isArray(j) ? j : ((j as { hits?: unknown[]; results?: unknown[] }).hits ?? (j as { results?: unknown[] }).results ?? []);
  return list as { session: string; agent?: string; lane?: string }[];
}

function transcripts(root: string): string[] {
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
