// The live suite for agents whose sessions are JSON documents rewritten whole (Cline CLI,
// Continue): the real CLI against the chat stand-in, a first turn with a shell call, `brain
// record`, a second turn in the same session, `brain record` again. Then the floor must hold each
// file byte for byte with the rewrite as a generation of its own, and messages, the tool call,
// tokens (summed from the raw files by test/helpers/rawusage.ts), search and citations must count
// the session once.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sandbox, type Sandbox } from '../../helpers/env';
import { rawUsage } from '../../helpers/rawusage';
import { agentBin } from '../../../scripts/setup/40-agents.mjs';
import { baseEnv, makeRepo, runCli, startDenyProxy, type DenyProxy } from '../harness';
import { brainCli } from '../floor';
import { startStandIn, type StandIn, type Turn } from '../standin';

export interface WholeFileDriver {
  /** Runs the first prompt in a new session; returns the session's id. */
  first(prompt: string): Promise<string>;
  /** Continues the session with a second prompt. */
  second(session: string, prompt: string): Promise<void>;
  /** The session's files in the agent's home. */
  files(session: string): string[];
  close(): Promise<void>;
}

export interface WholeFileAgent {
  lane: string;
  /** derived.*'s agent column. */
  agent: string;
  label: string;
  /** The pinned CLI's executable name, and the variable that names another build instead. */
  bin: string;
  binEnv: string;
  pkg: string;
  /** The shell tool's name in derived.calls. */
  shellTool: string;
  /** Hosts of the agent's own (telemetry, its model catalogue) it calls whatever it is told, which
   * the outbound guard refuses. */
  ownHosts?: RegExp;
  /** The file of a session that the agent rewrites on every turn. */
  rewritten(files: string[]): string;
  start(ctx: { sb: Sandbox; bin: string; env: NodeJS.ProcessEnv; repo: string; standin: StandIn }): Promise<WholeFileDriver>;
}

export function binOf(a: Pick<WholeFileAgent, 'bin' | 'binEnv' | 'pkg'>): string {
  const bin = process.env[a.binEnv] || agentBin(a.bin);
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: the pinned agent CLIs are installed by the test setup; run \`node scripts/setup/40-agents.mjs\` (package ${a.pkg})`);
  return bin;
}

/** Runs a CLI to its end with stdin closed (not spawnSync: the stand-in answers from this process). */
export async function runTo(bin: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, what: string): Promise<string> {
  const r = await runCli(bin, args, env, cwd, 180_000);
  if (r.code !== 0) throw new Error(`${what} exited ${r.code ?? r.signal}\nstdout: ${r.stdout.slice(-2000)}\nstderr: ${r.stderr.slice(-3000)}`);
  return r.stdout;
}

export function wholeFileSuite(a: WholeFileAgent): void {
  const words = { first: `${a.lane}-tamarind-beacon`, second: `${a.lane}-wombat-ferry` };
  const script: Turn[] = [
    { prompt: `Check the ${words.first} build: run the echo probe`, replies: [{ shell: `echo probe-output-${a.lane}-ok` }, { text: `The ${words.first} probe printed its marker.` }] },
    { prompt: `Summarise what the ${words.second} step found`, replies: [{ text: `The ${words.second} step found nothing unusual.` }] },
  ];
  let sb: Sandbox;
  let standin: StandIn;
  let proxy: DenyProxy;
  let driver: WholeFileDriver;
  let env: NodeJS.ProcessEnv;
  let session = '';
  let files: string[] = [];
  const why = () => `--- stand-in\n${standin?.dump()}\n--- refused: ${proxy?.attempts.join(', ') || 'none'}`;
  const brain = (args: string[]) => {
    const r = brainCli({ ...env, BRAIN_QUIET_SECONDS: '0', BRAIN_REWRITE_QUIET_SECONDS: '0' }, args);
    assert.equal(r.status, 0, `brain ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const sql = (q: string) => JSON.parse(brain(['sql', q, '--json'])) as { rows: unknown[][] };

  describe(`real agent ${a.lane}`, () => {
    before(async () => {
      sb = sandbox({ name: `agents-${a.lane}` });
      standin = await startStandIn('chat', script, path.join(sb.dir, `standin-${a.lane}.log`));
      proxy = await startDenyProxy();
      const repo = makeRepo(sb);
      env = baseEnv(sb, proxy);
      driver = await a.start({ sb, bin: binOf(a), env, repo: repo.dir, standin });
    });
    after(async () => {
      // scripts/agents-latest.mjs compares what the pinned and the newest release wrote.
      const keep = process.env.BRAIN_AGENTS_KEEP;
      if (keep && session) for (const f of driver.files(session)) fs.cpSync(f, path.join(keep, a.lane, path.basename(f)));
      await driver?.close();
      await standin?.close();
      await proxy?.close();
      sb?.cleanup();
    });

    it('records both turns: the rewritten file as two generations, each byte for byte', async () => {
      session = await driver.first(script[0].prompt);
      brain(['record']);
      await driver.second(session, script[1].prompt);
      brain(['record']);
      files = driver.files(session);
      assert.ok(files.length >= 1, `the session's files: ${files.join(', ')}\n${why()}`);
      const rows = sql(`SELECT abs_path, lake_path, witness_gen FROM derived.files WHERE lane = '${a.lane}'`).rows as [string, string, number][];
      for (const f of files) {
        const row = rows.find((r) => r[0] === f);
        assert.ok(row, `${f} is on the floor: ${JSON.stringify(rows)}`);
        assert.ok(fs.readFileSync(path.join(sb.brain, row[1])).equals(fs.readFileSync(f)), `${row[1]} equals ${f}`);
      }
      const re = rows.find((r) => r[0] === a.rewritten(files));
      assert.ok(re && Number(re[2]) >= 2, `the second turn rewrote ${a.rewritten(files)}: a second generation (${JSON.stringify(re)})`);
      brain(['verify']);
      // The model is only on 127.0.0.1; what else tried to leave (the agent's own telemetry, where
      // the build cannot turn it off) was refused by the guard.
      assert.deepEqual(proxy.attempts.filter((x) => !a.ownHosts?.test(x)), [], 'nothing but the agent\'s own telemetry tried to leave 127.0.0.1');
    });

    it('one session: both prompts and replies once, the tool call once, tokens equal the raw files', () => {
      const m = sql(`SELECT role, text FROM derived.messages WHERE agent = '${a.agent}' AND NOT is_meta ORDER BY event_time NULLS LAST, msg_id`).rows;
      assert.deepEqual(
        m.filter((r) => r[0] === 'user').map((r) => r[1]),
        script.map((t) => t.prompt),
      );
      assert.ok(m.some((r) => r[0] === 'assistant' && String(r[1]).includes(`${words.second} step found nothing unusual`)));
      const calls = sql(`SELECT tool_name, count(*) FROM derived.calls WHERE agent = '${a.agent}' GROUP BY 1`).rows;
      assert.deepEqual(calls.map((r) => [r[0], Number(r[1])]), [[a.shellTool, 1]]);
      const st = JSON.parse(brain(['stats', '--json', '--agent', a.lane]));
      const row = st.rows.find((r: any) => r.key === a.agent);
      assert.equal(row.sessions, 1);
      const raw = [...rawUsage(sb.home).values()].filter((t) => t.agent === a.agent);
      assert.ok(raw.length > 0, 'the raw files carry usage');
      const sum = raw.reduce((x, t) => [x[0] + t.input, x[1] + t.output, x[2] + t.cacheCreation, x[3] + t.cacheRead], [0, 0, 0, 0]);
      assert.ok(sum[0] > 0 && sum[1] > 0);
      assert.deepEqual([row.tokens.input, row.tokens.output, row.tokens.cache_creation, row.tokens.cache_read], sum);
    });

    it('search finds the second turn, with a citation that checks', () => {
      const j = JSON.parse(brain(['search', words.second, '--json', '--agent', a.lane]));
      assert.equal(j.hits.length, 1, JSON.stringify(j.hits));
      assert.equal(j.hits[0].session, session);
      const s = j.hits[0].snippets[0];
      const out = execFileSync('sh', ['-c', `sed -n '${s.citation.line_from},${s.citation.line_to}p' "$1" | sha256sum`, 'sh', path.join(sb.brain, s.citation.lake_path)], { encoding: 'utf8' });
      assert.equal(out.split(' ')[0], s.citation.sha256);
    });
  });
}
