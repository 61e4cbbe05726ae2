// Red team: session text is not the terminal's to obey. A transcript whose prompt (hence its title)
// and text carry OSC 52 (write the clipboard), OSC 0 (the window title), CSI (clear the screen,
// colours, also as the 8-bit C1 CSI), a lone CR that would overwrite the line and a bidi override
// must reach `brain search` and `brain show` output shown, not sent: no ESC, BEL, C1 or bidi
// character leaves brain, the sequences are visible as ^[ and \uXXXX, and --json carries the
// exact text (JSON's own escapes). The same from a store folder (another machine's copy).
import { test, before, after, describe } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { brain, FIXTURES, sandbox, type Sandbox } from '../helpers/env';
import { visible } from '../../src/core/visible';

const WORD = 'kiwiharbor';
const PAYLOAD = `${WORD} \u001b]52;c;cHduZWQ=\u0007 \u001b]0;owned\u0007 \u001b[2J\u001b[31m red \u009b32m green \rover \u202eesrever\u202c end`;
const SESSION = 'e5ca0000-0000-4000-8000-00000000e5ca';
// Everything a terminal would act on: C0 but tab and newline, DEL, C1, bidi controls.
const RAW = /[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

function hostileSession(sb: Sandbox): void {
  const src = fs.readFileSync(path.join(FIXTURES, 'claude', 'projects', '-misc-git-ai', 'claude-code-with-plan.jsonl'), 'utf8');
  assert.ok(src.includes('user authentication'));
  const proj = path.join(sb.home, '.claude', 'projects', '-srv-escape');
  fs.mkdirSync(proj, { recursive: true });
  // Inside the transcript's JSON strings: the payload JSON-escaped, as an agent writes it.
  fs.writeFileSync(path.join(proj, `${SESSION}.jsonl`), src.replaceAll('user authentication', JSON.stringify(PAYLOAD).slice(1, -1)));
}

function clean(what: string, out: string): void {
  const m = RAW.exec(out);
  assert.equal(m, null, `${what} printed ${JSON.stringify(m?.[0])} raw at ${m?.index}: ${JSON.stringify(out.slice(Math.max(0, (m?.index ?? 0) - 40), (m?.index ?? 0) + 40))}`);
}

describe('control characters in session text', () => {
  let sb: Sandbox;
  let store: string;
  before(() => {
    sb = sandbox({ name: 'rt-escapes' });
    hostileSession(sb);
    const r = brain(sb, ['record']);
    assert.equal(r.status, 0, r.stderr);
    store = path.join(sb.dir, 'store');
    const b = brain(sb, ['backup', path.join(store, 'othermachine')]);
    assert.equal(b.status, 0, b.stdout + b.stderr);
  });
  after(() => sb.cleanup());

  test('visible() shows each kind, leaves text and JSON intact', () => {
    assert.equal(visible('a\u001b]0;x\u0007b'), 'a^[]0;x^Gb');
    assert.equal(visible('\u009b31m'), '\\u009b31m');
    assert.equal(visible('x\ry\r\nz\tq\n'), 'x^My\r\nz\tq\n');
    assert.equal(visible('\u202eabc'), '\\u202eabc');
    assert.equal(visible('a\nb\tc', { oneLine: true }), 'a\\nb\\tc');
    const j = JSON.stringify({ t: PAYLOAD });
    assert.deepEqual(JSON.parse(visible(j)), { t: PAYLOAD }, 'a JSON answer stays the same value');
    assert.equal(visible('plain text, ünïcödé, emoji 🦝'), 'plain text, ünïcödé, emoji 🦝');
  });

  for (const where of ['this machine', 'a store folder']) {
    const extra = () => (where === 'a store folder' ? ['--store', store] : []);

    test(`search on ${where}: shown, not sent`, () => {
      const r = brain(sb, ['search', WORD, ...extra()]);
      assert.equal(r.status, 0, r.stdout + r.stderr);
      clean('brain search', r.stdout);
      clean('brain search (stderr)', r.stderr);
      assert.ok(r.stdout.includes('^[]52;c;'), r.stdout);
      const j = brain(sb, ['search', WORD, '--json', ...extra()]);
      assert.equal(j.status, 0, j.stderr);
      clean('brain search --json', j.stdout);
      const hit = JSON.parse(j.stdout).hits[0];
      assert.equal(hit.session, SESSION);
      assert.ok(hit.title.includes('\u001b]52;c;cHduZWQ=\u0007'), 'the exact text in --json');
      assert.ok(hit.title.includes('\u009b32m') && hit.title.includes('\u202e'), 'C1 and bidi too');
    });

    test(`show on ${where}: shown, not sent`, () => {
      const r = brain(sb, ['show', SESSION, ...extra()]);
      assert.equal(r.status, 0, r.stdout + r.stderr);
      clean('brain show', r.stdout);
      assert.ok(r.stdout.includes('^[]0;owned^G'), r.stdout.slice(0, 400));
      assert.ok(r.stdout.includes('\\u009b32m'));
      const j = brain(sb, ['show', SESSION, '--json', ...extra()]);
      assert.equal(j.status, 0, j.stderr);
      clean('brain show --json', j.stdout);
      const v = JSON.parse(j.stdout);
      assert.ok(v.turns.some((t: { text: string | null }) => t.text?.includes(PAYLOAD)), 'the exact text in --json');
    });
  }

  test('an error message that names session text shows it too', () => {
    const r = brain(sb, ['show', `nosuch\u001b]0;owned\u0007`]);
    assert.notEqual(r.status, 0);
    clean('brain show (error)', r.stderr);
  });
});
