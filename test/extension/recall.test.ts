// The editor's recall path goes through the same front door as brain mcp (src/core/tools): a chat
// that calls brain_search has its own session left out, as an MCP caller's is; the editor's views
// (no chat) leave nothing out; and the chat's answer is fitted to a model's context.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { runReadOnlySql } from '../../src/core/cache';
import { chatSessionOf, MAX_OUTPUT, sized } from '../../src/extension/recall';
import { recall } from '../../src/extension/worker/recall';
import { brain, sandbox, type Sandbox } from '../helpers/env';

let sb: Sandbox;
before(() => {
  sb = sandbox({ fixtures: true, name: 'ext-recall' });
  const r = brain(sb, ['record']);
  assert.equal(r.status, 0, r.stderr);
});
after(() => sb.cleanup());

const ctx = () => ({ home: sb.brain, env: sb.env, view: undefined as never, sql: (q: string, limit: number) => runReadOnlySql(sb.brain, q, { limit }) });
type Hits = { hits: { session: string }[]; skipped: { session: string; source: string } | null };

test("a chat's own session is left out of its search; a view's search leaves nothing out", async () => {
  const all = (await recall('search', { term: 'does it only run on main' }, ctx())) as unknown as Hits;
  assert.ok(all.hits.length > 0, 'the phrase is found');
  assert.equal(all.skipped, null);
  const own = all.hits[0].session;
  const chat = (await recall('search', { term: 'does it only run on main' }, ctx(), { chat: { session: own } })) as unknown as Hits;
  assert.equal(chat.skipped?.session, own);
  assert.ok(!chat.hits.some((h) => h.session === own), 'the calling chat is not among the hits');
  // An explicit skip: "" asks to leave nothing out, as over MCP.
  const none = (await recall('search', { term: 'does it only run on main', skip: '' }, ctx(), { chat: { session: own } })) as unknown as Hits;
  assert.ok(none.hits.some((h) => h.session === own));
});

test('the session a chat tool call names is read from its invocation token', () => {
  assert.equal(chatSessionOf({ sessionId: ' 6f1c-chat ' }), '6f1c-chat');
  assert.equal(chatSessionOf(undefined), undefined);
  assert.equal(chatSessionOf({ sessionId: 3 }), undefined);
  assert.equal(chatSessionOf('opaque'), undefined);
});

test("a chat's answer is fitted to a model's context; bad input is refused the same way as over MCP", async () => {
  const r = await recall('search', { term: 'the', limit: 500 }, ctx(), { chat: {} });
  assert.ok(JSON.stringify(r).length <= MAX_OUTPUT, 'the front door fitted it');
  assert.ok(sized(r).length <= MAX_OUTPUT);
  await assert.rejects(recall('search', { term: '' }, ctx(), { chat: {} }), /term/);
  await assert.rejects(recall('read_session', { session: 'x', turns: 'nope' }, ctx(), { chat: {} }), /turns/);
});
