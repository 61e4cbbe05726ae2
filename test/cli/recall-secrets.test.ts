// Recall never hands a planted credential back in clear: `brain search`, `show` and `sql` mask what
// the guard knows (its findings) and what it finds in the answer itself (not scanned yet), with the
// guard's own preview; --reveal prints them in clear only to a terminal. The real fixtures are on
// the floor beside the planted sessions.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { brain, CLI, sandbox, type Sandbox } from '../helpers/env';
import { assertMasked, lakePathOf, plantSessions, record, type PlantedFloor } from '../core/secrets/floor';
import { byName } from '../core/secrets/plant';

const boxes: Sandbox[] = [];
after(() => {
  for (const b of boxes) b.cleanup();
});

function planted(name: string): PlantedFloor {
  const sb = sandbox({ fixtures: true, name });
  boxes.push(sb);
  const pf = plantSessions(sb);
  record(sb);
  return pf;
}

/** `brain ARGS` with stdout on a pseudo-terminal (util-linux script), as in the user's own terminal. */
function inTerminal(sb: Sandbox, args: string[]): { status: number | null; out: string } {
  const cmd = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  // PAGER=cat: show's text is taller than the terminal, so it would go to a pager; the test reads the text.
  const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { env: { ...sb.env, COLUMNS: '400', PAGER: 'cat' }, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, out: r.stdout };
}

const CC = '6f1c2d3e-0000-4000-8000-00000000aaaa';

describe('recall masks secrets', () => {
  const pf = planted('recall-sec');
  const sb = pf.sb;
  const openai = byName(pf.keys, 'openai');

  it('search: snippets mask a key not scanned yet, with the guard\'s preview and a count', () => {
    const r = brain(sb, ['search', 'here is my key', '--json']);
    assert.equal(r.status, 0, r.stderr);
    assertMasked(pf, r.stdout, 'search --json');
    const j = JSON.parse(r.stdout) as { masked: number; hits: { snippets: { text: string }[] }[] };
    assert.ok(j.masked >= 1);
    assert.ok(j.hits[0].snippets.some((s) => s.text.includes(`${openai.secret.slice(0, 4)}…${openai.secret.slice(-2)}`)), 'the preview brain secrets shows');
    const human = brain(sb, ['search', 'here is my key']);
    assertMasked(pf, human.stdout, 'search');
    assert.match(human.stdout, /secrets? masked.*brain search --reveal/);
    for (const term of ['DB_PASSWORD', 'huggingface-cli', 'SLACK_BOT', 'AccountKey', 'private_key']) {
      const t = brain(sb, ['search', term, '--json']);
      assertMasked(pf, t.stdout + t.stderr, `search ${term}`);
    }
  });

  it('show: every turn masked, citations still check', () => {
    for (const s of [CC, 'pi-planted-1', '019c0000-0000-7000-8000-000000000001']) {
      const md = brain(sb, ['show', s, '--full']);
      assert.equal(md.status, 0, md.stderr);
      assertMasked(pf, md.stdout, `show ${s}`);
      assert.match(md.stdout, /masked.*brain show --reveal/);
      const j = brain(sb, ['show', s, '--full', '--json']);
      assertMasked(pf, j.stdout, `show ${s} --json`);
      const out = JSON.parse(j.stdout) as { masked: number; turns: { citation: { lake_path: string; line_from: number } }[] };
      assert.ok(out.masked > 0);
    }
    // The citation is over the floor's bytes, not the masked view: `brain cite` still checks it.
    const j = JSON.parse(brain(sb, ['show', CC, '--json']).stdout) as { turns: { citation: { lake_path: string; line_from: number; line_to: number; sha256: string } }[] };
    const c = j.turns[2].citation;
    assert.equal(c.lake_path, lakePathOf(sb, pf.files[0].origin));
    const v = brain(sb, ['verify', '--json']);
    assert.equal(v.status, 0, v.stdout + v.stderr);
  });

  it('sql: raw lines and values cut away from their names are masked (the guard\'s findings)', () => {
    const all = brain(sb, ['sql', '--json', "SELECT raw_line FROM floor.raw_lines WHERE raw_line LIKE '%tool_result%' OR raw_line LIKE '%function_call%' OR raw_line LIKE '%toolResult%' OR raw_line LIKE '%here is my key%'"]);
    assert.equal(all.status, 0, all.stderr);
    assertMasked(pf, all.stdout, 'sql raw lines');
    // The cache holds its text masked already (src/core/secrets/cachemask.ts): the guard's preview is
    // what SQL reads.
    assert.ok(all.stdout.includes(`${openai.secret.slice(0, 4)}…${openai.secret.slice(-2)}`), 'the preview brain secrets shows');
    // The password alone, without DB_PASSWORD= before it: the detector cannot tell it from any
    // word there, but the guard found it on the floor.
    const q = "SELECT split_part(split_part(raw_line, 'DB_PASSWORD=', 2), '\\n', 1) AS v FROM floor.raw_lines WHERE raw_line LIKE '%DB_PASSWORD=%'";
    const r = brain(sb, ['sql', '--json', q]);
    assert.equal(r.status, 0, r.stderr);
    assertMasked(pf, r.stdout, 'sql value alone');
    const t = brain(sb, ['sql', q]);
    assertMasked(pf, t.stdout, 'sql table');
  });

  it('--reveal: refused into a pipe, in clear on a terminal (search and show: sql reads a cache that holds them masked)', () => {
    const sql = ['sql', "SELECT raw_line FROM floor.raw_lines WHERE raw_line LIKE '%here is my key%'", '--reveal', '--json'];
    const piped = brain(sb, sql);
    assert.equal(piped.status, 2, piped.stderr);
    const tty = inTerminal(sb, sql);
    assert.equal(tty.status, 0, tty.out);
    assertMasked(pf, tty.out, 'sql --reveal on a terminal');
    for (const args of [['search', 'here is my key', '--reveal'], ['show', CC, '--reveal']]) {
      const piped = brain(sb, args);
      assert.equal(piped.status, 2, `${args[0]}: ${piped.stdout}${piped.stderr}`);
      assert.match(piped.stderr, /--reveal .*terminal/);
      assert.ok(!piped.stdout.includes(openai.secret));
      const tty = inTerminal(sb, args);
      assert.equal(tty.status, 0, tty.out);
      assert.ok(tty.out.includes(openai.secret.slice(0, 24)), `${args[0]} --reveal on a terminal prints the key`);
    }
    // Masked on a terminal too unless asked.
    assertMasked(pf, inTerminal(sb, ['show', CC]).out, 'show on a terminal');
  });
});
