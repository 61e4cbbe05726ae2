// Factory Droid (npm `droid`) against the chat-completions stand-in: captured while it writes, a
// second turn in the same session, its turns as scripted, search with checkable citations, its
// tokens (the totals its settings file is rewritten with) in brain stats as the file says, verify
// clean, and nothing sent off 127.0.0.1 (Droid's own calls to factory.ai are refused by the guard). Droid has no offline resume, so the shared suite's
// resume and hook cases do not apply (see test/agents/drivers/droid.ts).
import { after, before, describe } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sandbox, type Sandbox } from '../helpers/env';
import { rawUsage } from '../helpers/rawusage';
import { baseEnv, makeRepo, startDenyProxy, type DenyProxy, type RunResult } from './harness';
import { brainCli, floorState, generations, lakeEquals, lakeRelFor, startWatch, waitFor, type Watch } from './floor';
import { startStandIn, type StandIn } from './standin';
import { expectedTurns, readTurns, sameTurns } from './turns';
import { conversation, step, transcripts } from './suite';
import { droidSession, droidSetup, runDroid } from './drivers/droid';
import type { SearchOutput } from '../../src/core/recall/types';

const { main } = conversation('droid');

describe('real agent droid', () => {
  let sb: Sandbox;
  let standin: StandIn;
  let proxy: DenyProxy;
  let env: NodeJS.ProcessEnv;
  let sessionsDir: string;
  let repo: string;
  let watch: Watch | undefined;
  let origin = '';
  let session = '';
  let run: RunResult | undefined;
  /** The floor's newest generation of `file` holds exactly its bytes. */
  const newestEquals = (file: string) => {
    const g = generations(sb.brain, lakeRelFor('droid', file, env)).at(-1);
    return !!g && lakeEquals(sb.brain, path.relative(sb.brain, g), file);
  };
  const why = () => `${floorState(sb, origin ? lakeRelFor('droid', origin, env) : '?', origin || undefined)}\n--- watch\n${watch?.output()}\n--- droid\n${run?.stderr.slice(-2000) ?? ''}\n--- stand-in\n${standin.dump()}`;

  before(async () => {
    sb = sandbox({ fixtures: true, name: 'agents-droid' });
    standin = await startStandIn('chat', main, path.join(sb.dir, 'standin-droid.log'));
    proxy = await startDenyProxy();
    repo = makeRepo(sb).dir;
    ({ env, sessionsDir } = droidSetup(sb, standin, { ...baseEnv(sb, proxy), BRAIN_REWRITE_QUIET_SECONDS: '1' }));
    watch = startWatch(env);
    await watch.ready;
  });

  after(async () => {
    await watch?.stop();
    await standin?.close();
    await proxy?.close();
    sb?.cleanup();
  });

  step('captures a two-turn session with a tool call while Droid writes it', async () => {
    const known = new Set(transcripts(sessionsDir));
    const pause = standin.pauseBefore(0, 1);
    const running = runDroid(env, repo, main.map((t) => t.prompt));
    await pause.reached;
    await waitFor(() => transcripts(sessionsDir).some((f) => !known.has(f)), 'Droid to create its transcript', why);
    origin = transcripts(sessionsDir).find((f) => !known.has(f))!;
    await waitFor(() => fs.readFileSync(origin, 'utf8').includes('probe-output-droid-ok') && newestEquals(origin), 'the floor to hold the half-written session', why);
    pause.release();
    run = await running;
    assert.equal(run.code, 0, why());
    assert.deepEqual(standin.unknown(), [], standin.dump());
    session = droidSession(run);
    assert.equal(path.basename(origin), `${session}.jsonl`);
    await waitFor(() => newestEquals(origin), 'the floor to catch up with the second turn', why);
    // Droid writes its session_start line before the first prompt and rewrites it once the session
    // has a title: a floor that looked in between keeps that first version as generation 1.
    const gens = generations(sb.brain, lakeRelFor('droid', origin, env));
    assert.ok(gens.length <= 2, `at most the first line's version before the conversation: ${gens.join(', ')}`);
    await waitFor(() => newestEquals(origin.replace(/\.jsonl$/, '.settings.json')), 'the settings file as Droid left it', why);
  });

  step('normalises the captured session into exactly the scripted turns', () => {
    const newest = generations(sb.brain, lakeRelFor('droid', origin, env)).at(-1)!;
    const diff = sameTurns(readTurns('droid', sb, path.relative(sb.brain, newest)), expectedTurns(main, 'droid'));
    assert.equal(diff, '', diff);
  });

  step('brain search finds each turn first in this session, with a citation that checks', () => {
    for (const phrase of [main[0].replies[1].text!, main[1].replies[0].text!]) {
      const r = brainCli(env, ['search', phrase, '--json']);
      assert.equal(r.status, 0, r.stderr);
      const top = (JSON.parse(r.stdout) as SearchOutput).hits[0];
      assert.equal(top?.session, session, r.stdout.slice(0, 2000));
      const c = top.snippets[0].citation;
      const sha = spawnSync('sh', ['-c', `sed -n '${c.line_from},${c.line_to}p' "$1" | sha256sum`, 'sh', path.join(sb.brain, c.lake_path)], { encoding: 'utf8' }).stdout.split(' ')[0];
      assert.equal(sha, c.sha256);
    }
  });

  step('brain stats counts its tokens as its settings files say, once per session', () => {
    const raw = [...rawUsage(sb.home).entries()].filter(([, t]) => t.agent === 'factory-droid');
    assert.ok(raw.some(([f]) => f === origin.replace(/\.jsonl$/, '.settings.json')), 'the live session has token totals');
    const want = raw.reduce((a, [, t]) => ({ input: a.input + t.input, output: a.output + t.output, cache_creation: a.cache_creation + t.cacheCreation, cache_read: a.cache_read + t.cacheRead }), { input: 0, output: 0, cache_creation: 0, cache_read: 0 });
    const r = brainCli(env, ['stats', '--agent', 'droid', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const row = (JSON.parse(r.stdout) as { rows: { tokens: Record<string, number> }[] }).rows[0];
    assert.deepEqual({ input: row.tokens.input, output: row.tokens.output, cache_creation: row.tokens.cache_creation, cache_read: row.tokens.cache_read }, want);
  });

  step('brain verify is clean, and nothing but Droid\'s own service calls tried to leave 127.0.0.1 (refused)', async () => {
    await watch?.stop();
    watch = undefined;
    const v = brainCli(env, ['verify', '--deep']);
    assert.equal(v.status, 0, `${v.stdout}\n${v.stderr}`);
    // Droid calls its own services (api.factory.ai, telemetry.factory.ai, its OpenTelemetry
    // collector) whatever the model: the guard refused them; nothing else was tried.
    assert.deepEqual(proxy.attempts.filter((a) => !/^CONNECT ([a-z.]*\.factory\.ai|otel-collector-[a-z0-9-]+\.[a-z0-9-]+\.run\.app):443$/.test(a)), []);
  });
});
