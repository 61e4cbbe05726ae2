// The after-capture pipeline (core/pipeline/after.ts): which passes the caches follow, what record's
// policy brings up, and DuckDB's updates: put off by a gap or a delay, one for a burst of passes,
// never two at once, and nothing started once closed. `brain watch` hands it its passes.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { capture, type CaptureReport } from '../../../src/core/floor/capture';
import { layout } from '../../../src/core/home';
import { homeRoot } from '../../../src/core/index/roots';
import { openIndex } from '../../../src/core/index/turnindex';
import { AfterCapture, POLICY, afterCapture, captured, type AfterCapturePolicy, type StepResult } from '../../../src/core/pipeline/after';
import { CLI, sandbox, type Sandbox } from '../../helpers/env';

async function until(what: string, fn: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A floor captured from the fixtures: the first pass's report (it captured) and a second's (nothing new). */
async function floor(name: string): Promise<{ sb: Sandbox; full: CaptureReport; none: CaptureReport }> {
  const sb = sandbox({ fixtures: true, name });
  const full = await capture({ home: sb.brain, env: sb.env, quietMs: 0 });
  const none = await capture({ home: sb.brain, env: sb.env, quietMs: 0 });
  assert.ok(captured(full));
  assert.ok(!captured(none));
  return { sb, full, none };
}

/** Why this floor's turn index does not hold all its manifest claims (null: it does). */
function behind(sb: Sandbox): string | null {
  const o = openIndex(homeRoot(sb.env, sb.brain));
  if (!o.ok) return o.reason;
  try {
    return o.index.behind();
  } finally {
    o.index.close();
  }
}

/** A DuckDB runner that counts its runs, how many ran at once, and waits for `open()` when gated. */
function countingRunner() {
  let gate: Promise<void> | null = null;
  let release = () => undefined as void;
  const c = {
    runs: 0,
    at: [] as number[],
    now: 0,
    most: 0,
    close() {
      gate = new Promise<void>((r) => (release = r));
    },
    open() {
      gate = null;
      release();
    },
    run: async () => {
      c.runs++;
      c.at.push(Date.now());
      c.now++;
      c.most = Math.max(c.most, c.now);
      try {
        if (gate) await gate;
        return `run ${c.runs}`;
      } finally {
        c.now--;
      }
    },
  };
  return c;
}

const off: AfterCapturePolicy = { follow: 'captured', secrets: false, index: false, duckdb: false, sync: false };

test('the caches follow the first pass and each pass that captured (every pass under record\'s policy)', async () => {
  const { sb, full, none } = await floor('after-follow');
  try {
    let indexRuns = 0;
    const index = () => `run ${++indexRuns}`;
    const a = new AfterCapture(sb.brain, sb.env, { ...off, index });
    assert.equal((await a.follow(none)).length, 1, 'the first pass is followed even when it captured nothing');
    assert.deepEqual(await a.follow(none), [], 'a later pass that captured nothing is not');
    assert.deepEqual(await a.follow(null), [], 'nor one that failed');
    assert.deepEqual((await a.follow(full)).map((s) => s.step), ['index']);
    await a.close();
    assert.equal(indexRuns, 2);

    const every = new AfterCapture(sb.brain, sb.env, { ...off, follow: 'every-pass', index });
    for (const r of [none, none]) assert.equal((await every.follow(r)).length, 1);
    await every.close();
  } finally {
    sb.cleanup();
  }
});

test('record\'s policy: the secret scan and the turn index, now; DuckDB only once it was built', async () => {
  const { sb, full } = await floor('after-record');
  try {
    const steps = await afterCapture(sb.brain, sb.env, POLICY.record, full);
    assert.deepEqual(
      steps.map((s) => [s.step, s.ok]),
      [
        ['secrets', true],
        ['index', true],
      ],
    );
    assert.match(steps[1].detail, /^\d+ entries read from \d+ files; \d+ turns? in \d+ sessions? in all$/);
    assert.ok(fs.existsSync(layout(sb.brain).turns));
    assert.ok(fs.existsSync(path.join(sb.brain, 'secrets.json')));
    assert.equal(fs.existsSync(layout(sb.brain).duckdb), false, 'the first DuckDB build is left to a query');
    assert.deepEqual(await afterCapture(sb.brain, sb.env, POLICY.captureOnly, full), []);
  } finally {
    sb.cleanup();
  }
});

test('DuckDB in the pass when due, else put off to its gap and reported when it ran', async () => {
  const { sb, full } = await floor('after-gap');
  try {
    const c = countingRunner();
    const later: StepResult[] = [];
    // Long enough that the next passes fall inside it on a loaded machine too.
    const gap = 2000;
    const a = new AfterCapture(sb.brain, sb.env, { ...off, duckdb: { onlyIfBuilt: false, minGapMs: gap, run: c.run } }, { onSteps: (s) => later.push(...s) });
    assert.deepEqual((await a.follow(full)).map((s) => s.detail), ['run 1'], 'due: the pass waits for it');
    assert.deepEqual(await a.follow(full), [], 'within the gap: put off');
    assert.deepEqual(await a.follow(full), []);
    await until('the put-off update', () => c.runs === 2);
    await a.close();
    assert.equal(c.runs, 2, 'one update for the passes in the gap');
    assert.ok(c.at[1] - c.at[0] >= gap, `started ${c.at[1] - c.at[0]} ms apart`);
    assert.deepEqual(
      later.map((s) => s.detail),
      ['run 1', 'run 2'],
    );
  } finally {
    sb.cleanup();
  }
});

test('DuckDB in the background: a burst of passes makes one update, never two at once, none after close', async () => {
  const { sb, full } = await floor('after-background');
  try {
    const c = countingRunner();
    const a = new AfterCapture(sb.brain, sb.env, { ...off, duckdb: { onlyIfBuilt: false, delayMs: 20, run: c.run, background: true } });
    c.close();
    assert.deepEqual(await a.follow(full), [], 'never awaited by the pass');
    await until('the first update to start', () => c.runs === 1);
    // A burst while the first update still runs: one more update, after it.
    for (let k = 0; k < 3; k++) await a.follow(full);
    c.open();
    await until('the burst\'s update', () => c.runs === 2);
    await a.close();
    assert.equal(c.runs, 2);
    assert.equal(c.most, 1, 'never two at once');

    // Closed while an update runs and another waits behind it: the waiting one is not started.
    const d = countingRunner();
    const b = new AfterCapture(sb.brain, sb.env, { ...off, duckdb: { onlyIfBuilt: false, delayMs: 0, run: d.run, background: true } });
    d.close();
    await b.follow(full);
    await until('the first update to start', () => d.runs === 1);
    await b.follow(full);
    // Long enough for its 0 ms timer to have put it in line behind the running one.
    await new Promise((r) => setTimeout(r, 20));
    const closing = b.close();
    d.open();
    await closing;
    assert.equal(d.runs, 1);
  } finally {
    sb.cleanup();
  }
});

test('a pipeline that does not sync says so without touching the store', async () => {
  const sb = sandbox({ name: 'after-nosync' });
  try {
    const a = new AfterCapture(sb.brain, sb.env, POLICY.record);
    assert.equal(await a.sync(), null);
    await a.close();
    assert.equal(fs.existsSync(path.join(sb.brain, 'sync')), false);
  } finally {
    sb.cleanup();
  }
});

test('brain watch follows its passes: the turn index and the secret scan are current once it watches', async () => {
  const sb = sandbox({ fixtures: true, name: 'after-watch' });
  const child = spawn(process.execPath, [CLI, 'watch'], { env: sb.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  try {
    await until('watching', () => out.includes('watching'), 60_000);
    assert.ok(fs.existsSync(layout(sb.brain).turns), 'the turn index after the first pass');
    assert.ok(fs.existsSync(path.join(sb.brain, 'secrets.json')), 'the secret scan after the first pass');
    const manifest = () => fs.statSync(layout(sb.brain).manifest).size;
    const before = manifest();
    const origin = path.join(sb.home, '.codex', 'sessions', '2025', '01', '01', 'agent-sessions-small.jsonl');
    fs.appendFileSync(origin, '{"timestamp":"2026-11-29T00:00:00Z","type":"event_msg","payload":{"type":"agent_message","message":"followed"}}\n');
    // Captured (the manifest grew), then followed: the index holds all the manifest claims.
    await until('the append and the index to follow it', () => manifest() > before && behind(sb) === null);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  } finally {
    child.kill('SIGKILL');
    sb.cleanup();
  }
});
