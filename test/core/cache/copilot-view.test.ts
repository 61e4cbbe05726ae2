// dialects.v_copilot on Copilot Chat mutation logs (.jsonl) against the session documents (.json)
// they build: per request index, a log's rows must have the columns of the document's rows. The
// logs: the fixture .jsonl (one snapshot) beside its .json; a log made here from the fixture .json
// the way the editor writes one (a snapshot without requests, then per request a push of the
// prompt, its response pushed part by part with a splice, result and model set, fields deleted),
// and the same log cut inside a reply; a log through the other changes the view replays. The
// document of a made log is the turn index's replay of it (src/core/agents/copilot/dialect.ts),
// and every document's rows are also checked against the document itself, read here.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES, type Sandbox } from '../../helpers/env';
import { rebuildCache } from '../../../src/core/cache';
import { replayCopilotLog } from '../../../src/core/agents/copilot/dialect';
import { all, capturedSandbox, writeJsonl } from './helpers';

type J = Record<string, any>;

const SESS = 'git-ai-copilot_session_simple';
const FIXTURE_JSON = path.join(FIXTURES, 'copilot', 'workspaceStorage', 'fixtures', 'chatSessions', `${SESS}.json`);
const FIXTURE_JSONL = FIXTURE_JSON.replace(/\.json$/, '.jsonl');
/** Where the logs made here go, under the sandbox's VS Code user folder. */
const MADE = path.join('.config', 'Code', 'User', 'workspaceStorage', 'made', 'chatSessions');

const fixtureDoc = (): J => JSON.parse(fs.readFileSync(FIXTURE_JSON, 'utf8'));

/** A log that builds `doc` the way the editor writes one. Returns the entries, and per request
 * the line (1-based) that pushed it and the last line that changed it. */
function editorLog(doc: J): { log: J[]; pushed: number[]; last: number[] } {
  const requests = doc.requests as J[];
  const log: J[] = [{ kind: 0, v: { ...structuredClone(doc), requests: [], inputState: { inputText: '' } } }];
  const pushed: number[] = [];
  const last: number[] = [];
  const add = (e: J, req?: number) => {
    log.push(e);
    if (req !== undefined) last[req] = log.length;
  };
  add({ kind: 1, k: ['inputState', 'inputText'], v: 'typing…' });
  requests.forEach((r, i) => {
    const { response, result, modelId, ...head } = structuredClone(r);
    if (i === 1) {
      // A first try, edited and sent again: the new prompt replaces it (a splice of the list).
      add({ kind: 2, k: ['requests'], v: [{ ...head, requestId: 'request_first_try', message: { text: 'first try' }, response: [] }] });
      add({ kind: 2, k: ['requests', i, 'response'], v: [{ value: 'an answer to the first try' }] });
      add({ kind: 1, k: ['requests', i, 'modelId'], v: 'first-try-model' });
      add({ kind: 2, k: ['requests'], v: [{ ...head, response: [], modelId: 'pending-model', result: { pending: true } }], i });
    } else {
      add({ kind: 2, k: ['requests'], v: [{ ...head, response: [], modelId: 'pending-model', result: { pending: true } }] });
    }
    pushed[i] = log.length;
    last[i] = log.length;
    const parts = response as unknown[];
    add({ kind: 2, k: ['requests', i, 'response'], v: parts.slice(0, 1) }, i);
    // A draft streamed, then taken back: the next push cuts the response to 1 part first.
    add({ kind: 2, k: ['requests', i, 'response'], v: [{ value: 'a draft that gets replaced' }, { kind: 'markdownContent', value: '…' }] }, i);
    add({ kind: 2, k: ['requests', i, 'response'], v: parts.slice(1, 2), i: 1 }, i);
    add({ kind: 2, k: ['requests', i, 'response'], v: parts.slice(2) }, i);
    add({ kind: 3, k: ['requests', i, 'result'] }, i);
    if (result !== undefined) add({ kind: 1, k: ['requests', i, 'result'], v: result }, i);
    if (modelId !== undefined) add({ kind: 1, k: ['requests', i, 'modelId'], v: modelId }, i);
    else add({ kind: 3, k: ['requests', i, 'modelId'] }, i);
  });
  // A request added and dropped again (a cut without new requests).
  add({ kind: 2, k: ['requests'], v: [{ requestId: 'discarded', message: { text: 'never sent' }, response: [] }] });
  add({ kind: 2, k: ['requests'], i: requests.length });
  add({ kind: 3, k: ['inputState'] });
  add({ kind: 1, k: ['lastMessageDate'], v: doc.lastMessageDate });
  return { log, pushed, last };
}

/** A log through the other changes the view replays: a second snapshot that voids what came
 * before, a set of the whole list, a set and a delete of one request, a set of message.text, a
 * set of the whole response after its delete, a JSON null set, a key set on a deleted field, and
 * changes that reach no column (deeper paths, a key of another field, the input state). */
function otherLog(doc: J): J[] {
  const [a, b, c] = (doc.requests as J[]).map((r) => structuredClone(r));
  return [
    { kind: 0, v: { ...structuredClone(doc), requests: [a, b] } },
    { kind: 2, k: ['requests', 0, 'response'], v: [{ value: 'voided by the next snapshot' }] },
    { kind: 0, v: { ...structuredClone(doc), requests: [] } },
    { kind: 1, k: ['requests'], v: [c, a] },
    { kind: 2, k: ['requests'], v: [b] },
    // [c, a, b] -> [c, a', b] -> [a', b]
    { kind: 1, k: ['requests', 1], v: { ...structuredClone(a), requestId: 'request_set_whole', modelId: 'set-model' } },
    { kind: 2, k: ['requests', 0, 'response'], v: [{ value: 'gone with its request' }] },
    { kind: 3, k: ['requests', 0] },
    { kind: 1, k: ['requests', 0, 'message', 'text'], v: 'the prompt, edited' },
    { kind: 3, k: ['requests', 0, 'response'] },
    { kind: 1, k: ['requests', 0, 'response'], v: [{ kind: 'markdownContent', value: 'set whole ' }] },
    { kind: 2, k: ['requests', 0, 'response'], v: [{ value: 'and pushed' }, null] },
    { kind: 1, k: ['requests', 0, 'result'], v: null },
    { kind: 2, k: ['requests', 1, 'variableData', 'variables'], v: [{ name: 'deeper' }] },
    { kind: 1, k: ['requests', 1, 'agent', 'id'], v: 'some.agent' },
    { kind: 3, k: ['requests', 1, 'message'] },
    { kind: 1, k: ['requests', 1, 'message', 'text'], v: 'a message made from nothing' },
    { kind: 3, k: ['requests', 1, 'modelId'] },
    { kind: 1, k: ['inputState', 'inputText'], v: 'next' },
  ];
}

const COLS = `seq, model, user_text, reply_text, CAST(response AS VARCHAR) AS response, CAST(result AS VARCHAR) AS result,
  request_id, epoch_ms(event_time) AS event_ms, line_no, line_to`;
interface Row {
  seq: number;
  model: string | null;
  user_text: string | null;
  reply_text: string | null;
  response: string | null;
  result: string | null;
  request_id: string | null;
  event_ms: number | null;
  line_no: number;
  line_to: number;
}

async function rows(file: string): Promise<Row[]> {
  const names = ['seq', 'model', 'user_text', 'reply_text', 'response', 'result', 'request_id', 'event_ms', 'line_no', 'line_to'];
  const r = await all(sb.brain, `SELECT ${COLS} FROM dialects.v_copilot WHERE ev_type = 'request' AND abs_path LIKE '%/' || '${file}' ORDER BY seq`);
  return r.map((x) => Object.fromEntries(names.map((n, i) => [n, x[i]])) as unknown as Row);
}

/** The columns that must match between a log and its document (not where in the file). */
const cols = (r: Row[]) => r.map(({ line_no: _l, line_to: _t, ...rest }) => rest);
const parse = (s: string | null) => (s === null ? null : JSON.parse(s));

/** What the view should say of a session object, read here from the object itself. */
function expectedOf(doc: J) {
  return (doc.requests as J[]).map((r, i) => ({
    seq: i,
    model: r.modelId ?? null,
    user_text: r.message?.text ?? null,
    reply_text: Array.isArray(r.response)
      ? r.response.filter((p: J | null) => p && (p.kind === undefined || p.kind === null || p.kind === 'markdownContent') && typeof p.value === 'string').map((p: J) => p.value).join('')
      : null,
    response: r.response === undefined ? undefined : r.response,
    result: r.result === undefined ? undefined : r.result,
    request_id: r.requestId ?? null,
    event_ms: typeof r.timestamp === 'number' ? r.timestamp : null,
  }));
}

function assertLike(got: Row[], doc: J, what: string) {
  const want = expectedOf(doc);
  assert.equal(got.length, want.length, `${what}: one row per request`);
  got.forEach((g, i) => {
    const w = want[i];
    assert.deepEqual(
      { seq: g.seq, model: g.model, user_text: g.user_text, reply_text: g.reply_text, request_id: g.request_id, event_ms: g.event_ms },
      { seq: w.seq, model: w.model, user_text: w.user_text, reply_text: w.reply_text, request_id: w.request_id, event_ms: w.event_ms },
      `${what}: request ${i}`,
    );
    assert.deepEqual(parse(g.response), w.response === undefined ? null : w.response, `${what}: response of request ${i}`);
    assert.deepEqual(parse(g.result), w.result === undefined ? null : w.result, `${what}: result of request ${i}`);
  });
}

let sb: Sandbox;
let editor: ReturnType<typeof editorLog>;
let other: J[];
let otherDoc: J;
let cutDoc: J;
let cutAt: number;

before(async () => {
  const doc = fixtureDoc();
  editor = editorLog(doc);
  other = otherLog(doc);
  otherDoc = replayCopilotLog(structuredClone(other)) as J;
  // The editor's log cut inside the last request's reply: that reply as it was then.
  cutAt = editor.log.findIndex((e) => e.kind === 2 && JSON.stringify(e.k) === '["requests",2,"response"]' && e.i === 1);
  cutDoc = replayCopilotLog(structuredClone(editor.log.slice(0, cutAt))) as J;
  sb = await capturedSandbox('cache-copilot-view', (s) => {
    const dir = path.join(s.home, MADE);
    writeJsonl(path.join(dir, 'editor-log.jsonl'), editor.log);
    writeJsonl(path.join(dir, 'other-log.jsonl'), other);
    fs.writeFileSync(path.join(dir, 'other-log.json'), JSON.stringify(otherDoc, null, 2));
    writeJsonl(path.join(dir, 'cut-log.jsonl'), editor.log.slice(0, cutAt));
    fs.writeFileSync(path.join(dir, 'cut-log.json'), JSON.stringify(cutDoc, null, 2));
  });
  await rebuildCache(sb.brain);
});
after(() => sb.cleanup());

test('the fixture .json gives one row per request, as the file says', async () => {
  const doc = fixtureDoc();
  assert.equal(doc.requests.length, 3);
  const got = await rows(`${SESS}.json`);
  assertLike(got, doc, 'fixture .json');
  // Nothing here is trivially empty.
  for (const g of got) {
    assert.equal(g.model, 'copilot/claude-sonnet-4');
    assert.ok(g.reply_text && g.reply_text.length > 100, 'a reply');
    assert.ok(parse(g.result)?.metadata, 'a result');
  }
  const lines = fs.readFileSync(FIXTURE_JSON, 'utf8').replace(/\n$/, '').split('\n').length;
  assert.deepEqual(got.map((g) => [g.line_no, g.line_to]), got.map(() => [1, lines]));
});

test('the fixture .jsonl (the same session) gives the rows of its .json', async () => {
  const doc = fixtureDoc();
  const entries = fs.readFileSync(FIXTURE_JSONL, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  assert.deepEqual(replayCopilotLog(entries), doc, 'the fixture pair is one session');
  const log = await rows(`${SESS}.jsonl`);
  assert.deepEqual(cols(log), cols(await rows(`${SESS}.json`)));
  assertLike(log, doc, 'fixture .jsonl');
});

test('a log written the way the editor writes one gives the rows of the .json it builds', async () => {
  const doc = fixtureDoc();
  assert.deepEqual(replayCopilotLog(structuredClone(editor.log)), doc, 'the log builds the fixture .json');
  assert.ok(editor.log.length > 30, 'a real sequence of changes');
  const got = await rows('editor-log.jsonl');
  assert.deepEqual(cols(got), cols(await rows(`${SESS}.json`)));
  assertLike(got, doc, 'editor log');
  // None of what was taken back is left: the first try, the draft, the pending model and result.
  const text = JSON.stringify(got);
  for (const gone of ['first try', 'first-try-model', 'a draft that gets replaced', 'pending-model', '"pending"', 'discarded', 'never sent']) {
    assert.ok(!text.includes(gone), `${gone} is gone`);
  }
  // A request's row cites the line that pushed it and the last line that changed it.
  assert.deepEqual(
    got.map((g) => [g.line_no, g.line_to]),
    editor.pushed.map((p, i) => [p, editor.last[i]]),
  );
});

test('a log cut inside a reply gives that reply as it was then', async () => {
  assert.ok(cutAt > 0);
  const got = await rows('cut-log.jsonl');
  assert.deepEqual(cols(got), cols(await rows('cut-log.json')));
  assertLike(got, cutDoc, 'cut log');
  assert.equal(got.length, 3);
  // The last request has its first part and the draft, not yet its result nor its model.
  assert.deepEqual(parse(got[2].response)?.slice(1), [{ value: 'a draft that gets replaced' }, { kind: 'markdownContent', value: '…' }]);
  assert.deepEqual([got[2].model, parse(got[2].result)], ['pending-model', { pending: true }]);
});

test('sets of the list and of one request, request deletes, key sets and later snapshots replay as the turn index does', async () => {
  const got = await rows('other-log.jsonl');
  assert.deepEqual(cols(got), cols(await rows('other-log.json')));
  assertLike(got, otherDoc, 'other log');
  const b = fixtureDoc().requests[1];
  assert.deepEqual(
    got.map((g) => [g.seq, g.request_id, g.model, g.user_text, g.reply_text]),
    [
      [0, 'request_set_whole', 'set-model', 'the prompt, edited', 'set whole and pushed'],
      [1, b.requestId, null, 'a message made from nothing', expectedOf({ requests: [b] })[0].reply_text],
    ],
  );
  assert.deepEqual(parse(got[0].response), [{ kind: 'markdownContent', value: 'set whole ' }, { value: 'and pushed' }, null]);
  assert.equal(got[0].result, 'null', 'a JSON null set is kept');
  assert.deepEqual(parse(got[1].result), b.result);
  assert.ok(!/voided by the next snapshot|gone with its request/.test(JSON.stringify(got)));
});

test('derived.messages has the same prompts and replies from a log as from its .json, and a session in two forms once', async () => {
  const said = async (file: string) =>
    (
      await all(
        sb.brain,
        `SELECT m.role, m.model, m.text FROM derived.messages m JOIN floor.files f USING (file_id)
         WHERE f.abs_path LIKE '%/' || '${file}' ORDER BY m.event_time, m.role DESC`,
      )
    ).map((r) => JSON.stringify(r));
  const want = await said(`${SESS}.json`);
  assert.equal(want.length, 6);
  assert.deepEqual(await said('editor-log.jsonl'), want);
  // The fixture .jsonl is the same session as the .json, in its other form: the session's messages
  // are there once, from the form show reads (the larger), and none from the other.
  assert.deepEqual(await said(`${SESS}.jsonl`), []);
  const session = await all(sb.brain, `SELECT count(*), count(DISTINCT turn_id), count(DISTINCT file_id) FROM derived.messages WHERE session_id = '${SESS}'`);
  assert.deepEqual(session, [[6, 6, 1]]);
});
