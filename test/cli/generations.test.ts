// Earlier generations are seen by every recall verb. Each case records a real transcript, rewrites
// its origin the way an agent or a user does (a history edit: truncated and continued differently;
// a Pi compaction; a Gemini whole-file JSON rewrite), and records again, so the floor holds two
// generations made by capture itself. Then: a phrase only generation 1 holds is found by search
// (index and --scan) naming generation 1 and citing its lines; show's one timeline holds it,
// marked; show --gen 1 shows it and --gen 2 does not; and the counts (show, stats, DuckDB's
// derived.messages and derived.usage) equal those of a floor that recorded every distinct turn
// once, in one file that was never rewritten (not the sum over generations).
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, FIXTURES, sandbox, type Sandbox } from '../helpers/env';
import { readManifest } from '../../src/core/floor/manifest';

const ENV = { BRAIN_QUIET_SECONDS: '0', BRAIN_REWRITE_QUIET_SECONDS: '0' };

interface Case {
  name: string;
  agent: string;
  /** Where the origin lives under HOME, and the fixture it starts as. */
  origin: string;
  fixture: string;
  session: string;
  /** From generation 1's bytes: the rewritten file, the file a never-rewritten session holding
   * every distinct turn once would be, a phrase only generation 1 holds, and one only generation 2 does. */
  rewrite(v1: string): { v2: string; union: string; gone: string; fresh: string };
  tokens: boolean;
}

const lines = (s: string) => s.split('\n').filter((l) => l.length > 0);

const CASES: Case[] = [
  {
    name: 'claude code, history edited: truncated and continued differently',
    agent: 'claude-code',
    origin: '.claude/projects/-misc-git-ai/example-claude-code.jsonl',
    fixture: 'claude/projects/-misc-git-ai/example-claude-code.jsonl',
    session: 'example-claude-code',
    rewrite(v1) {
      const l = lines(v1);
      const first = JSON.parse(l[0]);
      const prompt = JSON.stringify({ ...first, uuid: 'f00dfeed-0000-4000-8000-000000000001', timestamp: '2025-09-01T12:00:00.000Z', message: { role: 'user', content: 'Use purple and orange instead, the quasarflux palette' } });
      // Lines 19.. held the rest of the work; the user cut them and asked for something else.
      return { v2: [...l.slice(0, 18), prompt].join('\n') + '\n', union: [...l, prompt].join('\n') + '\n', gone: 'Now I understand - you want to change the player colors', fresh: 'quasarflux palette' };
    },
    tokens: true,
  },
  {
    name: 'pi, compacted: early entries replaced by a summary',
    agent: 'pi',
    origin: '.pi/agent/sessions/--Users-badlogic-workspaces-pi-mono--/large-session.jsonl',
    fixture: 'pi/agent/sessions/--Users-badlogic-workspaces-pi-mono--/large-session.jsonl',
    session: 'large-session',
    rewrite(v1) {
      const l = lines(v1);
      const summary = JSON.stringify({ type: 'compaction', timestamp: '2025-11-21T09:00:00.000Z', summary: 'Ported the theme docs; the zyglophone refactor is next.', firstKeptEntryIndex: 1, tokensBefore: 120000 });
      // The header, the summary, then the entries from line 101 on, as they were.
      return { v2: [l[0], summary, ...l.slice(100)].join('\n') + '\n', union: [...l, summary].join('\n') + '\n', gone: "alright, i think there's only one", fresh: 'zyglophone refactor' };
    },
    tokens: true,
  },
  {
    name: 'gemini, the chat document rewritten whole with early messages gone and a new one',
    agent: 'gemini-cli',
    origin: '.gemini/tmp/proj/chats/agent-sessions-large.json',
    fixture: 'gemini/tmp/fixtures/chats/agent-sessions-large.json',
    session: 'agent-sessions-large',
    rewrite(v1) {
      const d = JSON.parse(v1);
      const added = { id: 'm7', type: 'user', timestamp: '2025-12-16T23:48:00.000Z', content: 'Now the marzipanic step' };
      const v2 = { ...d, lastUpdated: '2025-12-16T23:48:00.000Z', messages: [...d.messages.slice(3), added] };
      const union = { ...d, lastUpdated: v2.lastUpdated, messages: [...d.messages, added] };
      return { v2: JSON.stringify(v2, null, 2), union: JSON.stringify(union, null, 2), gone: 'Run a command', fresh: 'marzipanic step' };
    },
    tokens: true,
  },
];

function run(sb: Sandbox, args: string[]): string {
  const r = brain(sb, args, { env: ENV });
  assert.equal(r.status, 0, `brain ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

function json<T>(sb: Sandbox, args: string[]): T {
  return JSON.parse(run(sb, [...args, '--json'])) as T;
}

function sql(sb: Sandbox, q: string): unknown[] {
  const j = json<{ rows: Record<string, unknown>[] }>(sb, ['sql', q]);
  return j.rows.map((r) => Object.values(r).map((v) => String(v)));
}

interface Hit {
  session: string;
  gen: number;
  rewritten_away: boolean;
  snippets: { text: string; gen: number; rewritten_away: boolean; citation: { lake_path: string; gen: number; line_from: number; line_to: number; sha256: string } }[];
}
interface Read {
  session: { turns: number };
  gen: number | null;
  generations: number[];
  turns: { text: string; gen: number; rewritten_away: { gens: number[]; after: number } | null; citation: { lake_path: string } }[];
}

function checks(sb: Sandbox, c: Hit['snippets'][number]['citation']): void {
  const out = execFileSync('sh', ['-c', `sed -n '${c.line_from},${c.line_to}p' "$1" | sha256sum`, 'sh', path.join(sb.brain, c.lake_path)], { encoding: 'utf8' });
  assert.equal(out.split(' ')[0], c.sha256, `${c.lake_path} lines ${c.line_from}-${c.line_to}`);
}

/** The counts every verb reports for one agent. */
function counts(sb: Sandbox, c: Case) {
  const st = json<{ total: { turns: number } }>(sb, ['stats', '--agent', c.agent]);
  return {
    show: json<Read>(sb, ['show', c.session]).session.turns,
    stats: st.total.turns,
    messages: sql(sb, `SELECT count(*), count(DISTINCT turn_id), count(*) FILTER (WHERE role = 'user') FROM derived.messages WHERE agent = '${c.agent}'`),
    usage: sql(sb, `SELECT count(*), sum(input_tokens), sum(output_tokens), sum(cache_creation_tokens), sum(cache_read_tokens) FROM derived.usage WHERE agent = '${c.agent}'`),
  };
}

for (const c of CASES) {
  describe(`earlier generations are seen: ${c.name}`, () => {
    let sb: Sandbox;
    let ref: Sandbox;
    let w: ReturnType<Case['rewrite']>;
    let lake1: string;
    before(() => {
      sb = sandbox({ name: 'gens' });
      ref = sandbox({ name: 'gens-ref' });
      const origin = path.join(sb.home, c.origin);
      fs.mkdirSync(path.dirname(origin), { recursive: true });
      const v1 = fs.readFileSync(path.join(FIXTURES, c.fixture), 'utf8');
      fs.writeFileSync(origin, v1);
      run(sb, ['record']);
      w = c.rewrite(v1);
      assert.ok(v1.includes(w.gone) && !w.v2.includes(w.gone), 'the phrase is only in generation 1');
      fs.writeFileSync(`${origin}.tmp`, w.v2);
      fs.renameSync(`${origin}.tmp`, origin);
      run(sb, ['record']);
      const gens = readManifest(path.join(sb.brain, 'manifest', 'manifest.jsonl')).lines.filter((m) => m.origin_path === origin);
      assert.deepEqual([...new Set(gens.map((m) => m.gen))], [1, 2], 'capture opened generation 2');
      lake1 = gens.find((m) => m.gen === 1)!.lake_path;
      // The reference: one file holding every distinct turn once, never rewritten.
      const rorigin = path.join(ref.home, c.origin);
      fs.mkdirSync(path.dirname(rorigin), { recursive: true });
      fs.writeFileSync(rorigin, w.union);
      run(ref, ['record']);
    });
    after(() => {
      sb.cleanup();
      ref.cleanup();
    });

    test('search, through the index and by reading the files, finds what only generation 1 holds, naming it', () => {
      for (const how of [[], ['--scan']]) {
        const r = json<{ hits: Hit[] }>(sb, ['search', w.gone, ...how]);
        const hit = r.hits.find((h) => h.session === c.session);
        assert.ok(hit, `${how.join('')}: ${JSON.stringify(r.hits.map((h) => h.session))}`);
        assert.equal(hit.gen, 1);
        assert.equal(hit.rewritten_away, true);
        const s = hit.snippets.find((x) => x.text.includes(w.gone));
        assert.ok(s, JSON.stringify(hit.snippets));
        assert.equal(s.gen, 1);
        assert.equal(s.citation.gen, 1);
        assert.equal(s.citation.lake_path, lake1);
        checks(sb, s.citation);
        // What generation 2 holds is cited there.
        const now = json<{ hits: Hit[] }>(sb, ['search', w.fresh, ...how]).hits.find((h) => h.session === c.session);
        assert.equal(now?.gen, 2, `${how.join('')} ${w.fresh}`);
        assert.equal(now?.rewritten_away, false);
      }
      assert.match(run(sb, ['search', w.gone]), /gen 1 \(rewritten away\)/);
    });

    test('show is one timeline with it in place, marked; --gen 1 shows it, --gen 2 does not', () => {
      for (const how of [[], ['--scan']]) {
        const md = run(sb, ['show', c.session, ...how]);
        assert.ok(md.includes(w.gone) && md.includes(w.fresh), `${how.join('')}: the timeline holds both generations`);
        assert.match(md, /only in generation 1 \(rewritten away\)/);
        assert.ok(run(sb, ['show', c.session, '--gen', '1', ...how]).includes(w.gone));
      }
      const all = json<Read>(sb, ['show', c.session]);
      assert.deepEqual(all.generations, [1, 2]);
      const old = all.turns.find((t) => t.text.includes(w.gone));
      assert.deepEqual(old?.rewritten_away?.gens, [1, 1]);
      assert.equal(old?.gen, 1);
      assert.equal(all.turns.find((t) => t.text.includes(w.fresh))?.rewritten_away, null);
      const g1 = json<Read>(sb, ['show', c.session, '--gen', '1']);
      assert.equal(g1.gen, 1);
      assert.ok(g1.turns.some((t) => t.text.includes(w.gone)));
      assert.ok(g1.turns.every((t) => t.gen === 1 && t.rewritten_away === null && t.citation.lake_path === lake1));
      const g2 = json<Read>(sb, ['show', c.session, '--gen', '2']);
      assert.ok(!g2.turns.some((t) => t.text.includes(w.gone)));
      assert.ok(g2.turns.some((t) => t.text.includes(w.fresh)));
      const none = brain(sb, ['show', c.session, '--gen', '3'], { env: ENV });
      assert.equal(none.status, 3);
      assert.match(none.stderr, /no generation 3.*\n.*generations 1, 2/);
    });

    test('show, stats, derived.messages and derived.usage count each turn once, as a file never rewritten would', () => {
      const got = counts(sb, c);
      assert.deepEqual(got, counts(ref, c));
      // Neither the newest generation alone nor both summed.
      const g = (n: number) => json<Read>(sb, ['show', c.session, '--gen', String(n)]).session.turns;
      assert.ok(got.show > g(2), 'more turns than generation 2 alone');
      assert.ok(got.show < g(1) + g(2), 'fewer than both generations summed');
      if (c.tokens) assert.ok(Number((got.usage[0] as string[])[2]) > 0, 'the fixture has output tokens');
    });
  });
}
