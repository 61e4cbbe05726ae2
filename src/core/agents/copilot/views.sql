-- Copilot Chat's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql, which unions the derived.*_copilot parts with every other agent's). Its
-- files are not all one record a line, so the dialect view puts records back together first;
-- where SQL stops short of what the turn index does (dialect.ts beside this file), the comment
-- says so.

-- Copilot Chat: one row per request of a chatSessions file, one per event of a transcripts file.
-- .json (rewritten whole): the document's lines are joined and parsed; rows have line_no 1 and
-- line_to the document's last line.
-- .jsonl (mutation log): replayed in line order as the turn index replays it
-- (src/core/agents/copilot/dialect.ts), from the last snapshot on (kind 0, or a kind-1 set of the
-- whole object: what came before it is gone), as far as the columns need, so that a log's rows
-- are those of the .json it builds. Replayed:
--   the list: a set of `requests` (kind 1), a push onto it (kind 2; with `i` the list is first
--     cut to i requests, and a push without v only cuts), its delete (kind 3);
--   one request, ["requests", N]: its set (kind 1), its delete (kind 3: the later ones move up);
--   one field of a request, ["requests", N, <field>], any field: its set (kind 1), its delete
--     (kind 3), a push onto it (kind 2, with or without `i`: the response as it streams);
--   one key of a field that is an object, ["requests", N, <field>, <key>] (message.text): its set
--     and its delete.
-- N is the request's place when the line was written. A request's row is where it is at the end:
-- seq is its index in the list (as for the .json), line_no the line that brought it (the snapshot,
-- or the push or set), line_to the last line that changed it. Not replayed (no column reads them,
-- or VS Code does not write them): a change deeper than a field's key, a push onto a field's key
-- (variableData.variables), a set or delete of one item of a field's list (["requests", N,
-- "response", 4]: VS Code pushes with `i` instead), a push onto ["requests", N], and a change of
-- a request that is not in the list, or not an object, when it is written (the turn index makes
-- one up).
-- reply_text is the response's markdown parts joined (inline file references, which the turn
-- index names, are left out).
CREATE OR REPLACE VIEW dialects.v_copilot AS
WITH RECURSIVE
  lines AS (
    SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at, r.raw_line,
           f.abs_path, f.session_hint, f.machine_id,
           CASE WHEN regexp_matches(f.abs_path, '/transcripts/[^/]+\.jsonl$') THEN 'events'
                WHEN regexp_matches(f.abs_path, '\.jsonl$') THEN 'log'
                ELSE 'json' END AS source
    FROM dialects.v_live r JOIN floor.files f USING (file_id)
    WHERE r.lane = 'copilot'),
  joined AS (
    SELECT file_id, witness_gen, any_value(abs_path) AS abs_path, any_value(session_hint) AS session_hint,
           any_value(machine_id) AS machine_id, min(byte_offset) AS byte_offset,
           max(captured_at) AS captured_at, 1 AS line_no, max(line_no) AS line_to, 'json' AS source,
           string_agg(raw_line, chr(10) ORDER BY line_no) AS text
    FROM lines WHERE source = 'json'
    GROUP BY file_id, witness_gen),
  docs AS (
    SELECT * EXCLUDE (text), TRY_CAST(text AS JSON) AS s FROM joined),
  doc_reqs AS (
    SELECT d.* EXCLUDE (s, items), unnest(d.items) AS r, generate_subscripts(d.items, 1) - 1 AS seq
    FROM (SELECT *, json_extract(s, '$.requests[*]') AS items FROM docs
          WHERE json_type(s, '$.requests') = 'ARRAY') d),
  -- a log's lines, each parsed once: its kind, its path k (its string and number keys, as the turn
  -- index keeps them), v (a JSON null told apart from no v) and i
  logp AS (
    SELECT l.file_id, l.witness_gen, l.line_no, l.captured_at, l.raw_line,
           unnest([TRY(from_json(l.raw_line, '{"kind":"JSON","k":"JSON","v":"JSON","i":"JSON"}'))]) AS j
    FROM lines l WHERE l.source = 'log'),
  ops AS (
    SELECT *, len(k) AS depth, (k[1]->>'$') AS k1,
           CASE WHEN json_type(k[2]) = 'UBIGINT' THEN TRY_CAST(k[2] AS BIGINT)
                WHEN json_type(k[2]) = 'VARCHAR' AND regexp_full_match(k[2]->>'$', '0|[1-9][0-9]{0,8}')
                  THEN CAST(k[2]->>'$' AS BIGINT) END AS n,
           (k[3]->>'$') AS field, (k[4]->>'$') AS sub,
           kind = 0 OR (kind = 1 AND len(k) = 0) AS is_reset
    FROM (SELECT file_id, witness_gen, line_no, captured_at,
                 CASE WHEN json_type(j.kind) IN ('UBIGINT', 'BIGINT') THEN CAST(j.kind AS BIGINT) END AS kind,
                 coalesce(list_filter(json_extract(j.k, '$[*]'),
                                      lambda x: json_type(x) IN ('VARCHAR', 'UBIGINT', 'BIGINT', 'DOUBLE')), []) AS k,
                 CASE WHEN j.v IS NULL THEN json_extract(raw_line, '$.v') ELSE j.v END AS v,
                 CASE WHEN json_type(j.i) = 'UBIGINT' THEN TRY_CAST(j.i AS BIGINT) END AS i
          FROM logp WHERE j IS NOT NULL)
    WHERE kind IN (0, 1, 2, 3)),
  replay AS MATERIALIZED (
    SELECT * FROM ops
    QUALIFY line_no >= max(CASE WHEN is_reset THEN line_no END) OVER (PARTITION BY file_id, witness_gen)),
  -- the changes of the list of requests, each with the requests it brings (items)
  rops AS MATERIALIZED (
    SELECT file_id, witness_gen, line_no, kind, i, CASE WHEN NOT is_reset THEN n END AS n,
           coalesce(CASE WHEN is_reset THEN CASE WHEN json_type(v, '$.requests') = 'ARRAY'
                                                 THEN json_extract(v, '$.requests[*]') END
                         WHEN depth = 2 THEN [v]
                         ELSE json_extract(v, '$[*]') END, []) AS items,
           row_number() OVER (PARTITION BY file_id, witness_gen ORDER BY line_no) AS step
    FROM replay
    WHERE is_reset OR (k1 = 'requests' AND (depth = 1 OR (depth = 2 AND n IS NOT NULL AND kind IN (1, 3))))),
  -- the list after each of them; a request is named by the line that brought it (l) and its place
  -- among that line's items (p); NULL is a hole (a set of ["requests", N] without v, or past the end)
  slots AS (
    SELECT file_id, witness_gen, step, line_no,
           CAST(list_transform(range(len(items)), lambda x: {'l': line_no, 'p': x}) AS STRUCT(l BIGINT, p BIGINT)[]) AS ids
    FROM rops WHERE step = 1
    UNION ALL
    SELECT o.file_id, o.witness_gen, o.step, o.line_no,
           CAST(CASE
             WHEN o.n IS NULL AND o.kind = 3 THEN []
             WHEN o.n IS NULL THEN (CASE WHEN o.kind = 1 THEN []
                                         WHEN o.i IS NULL THEN s.ids ELSE s.ids[1:o.i] END)
                                   || list_transform(range(len(o.items)), lambda x: {'l': o.line_no, 'p': x})
             WHEN o.kind = 3 THEN s.ids[1:o.n] || s.ids[o.n + 2:]
             ELSE list_resize(s.ids, greatest(len(s.ids), o.n + 1))[1:o.n]
                  || [CASE WHEN o.items[1] IS NOT NULL THEN {'l': o.line_no, 'p': 0} END]
                  || s.ids[o.n + 2:]
           END AS STRUCT(l BIGINT, p BIGINT)[]) AS ids
    FROM slots s JOIN rops o ON o.file_id = s.file_id AND o.witness_gen = s.witness_gen AND o.step = s.step + 1),
  -- the requests at the end, by index, each as it was brought
  bases AS MATERIALIZED (
    SELECT v.file_id, v.witness_gen, v.seq, v.id.l AS rl, v.id.p AS rp, o.items[v.id.p + 1] AS base
    FROM (SELECT file_id, witness_gen, unnest(ids) AS id, generate_subscripts(ids, 1) - 1 AS seq
          FROM (SELECT * FROM slots QUALIFY step = max(step) OVER (PARTITION BY file_id, witness_gen))) v
    JOIN rops o ON o.file_id = v.file_id AND o.witness_gen = v.witness_gen AND o.line_no = v.id.l
    WHERE v.id IS NOT NULL),
  -- the changes inside a request, each joined to the request at place N when it was written
  fops AS MATERIALIZED (
    SELECT o.file_id, o.witness_gen, o.line_no, o.captured_at, o.kind, o.depth, o.field, o.sub, o.v, o.i,
           b.rl, b.rp, json_type(b.base) = 'OBJECT' AS in_object
    FROM (SELECT * FROM replay WHERE NOT is_reset AND k1 = 'requests' AND n IS NOT NULL AND depth >= 3) o
    ASOF JOIN slots s ON s.file_id = o.file_id AND s.witness_gen = o.witness_gen AND o.line_no >= s.line_no
    JOIN bases b ON b.file_id = o.file_id AND b.witness_gen = o.witness_gen
                AND b.rl = s.ids[o.n + 1].l AND b.rp = s.ids[o.n + 1].p),
  fchg AS (
    SELECT * FROM fops WHERE in_object AND depth IN (3, 4)),
  -- the fields of a changed request: each starts as the request came, or at its last set or delete
  -- (start_val NULL: no field); then come the pushes onto it and the changes of its keys
  fbase AS (
    SELECT b.file_id, b.witness_gen, b.rl, b.rp, e.key AS field, CAST(e.id AS BIGINT) AS ord,
           b.rl AS line_no, e.value AS val
    FROM (SELECT * FROM bases b
          WHERE EXISTS (SELECT 1 FROM fchg c WHERE c.file_id = b.file_id AND c.witness_gen = b.witness_gen
                                               AND c.rl = b.rl AND c.rp = b.rp)) b,
         json_each(b.base) e),
  fstart AS (
    SELECT * FROM (SELECT file_id, witness_gen, rl, rp, field, line_no, val FROM fbase
                   UNION ALL
                   SELECT file_id, witness_gen, rl, rp, field, line_no, CASE WHEN kind = 1 THEN v END
                   FROM fchg WHERE depth = 3 AND kind IN (1, 3))
    QUALIFY row_number() OVER (PARTITION BY file_id, witness_gen, rl, rp, field ORDER BY line_no DESC) = 1),
  fstate AS (
    SELECT k.*, coalesce(s.line_no, k.rl) AS start_line, s.val AS start_val
    FROM (SELECT file_id, witness_gen, rl, rp, field, min(ord) AS ord
          FROM (SELECT file_id, witness_gen, rl, rp, field, ord FROM fbase
                UNION ALL
                SELECT file_id, witness_gen, rl, rp, field, 1000000000 + line_no FROM fchg)
          GROUP BY ALL) k
    LEFT JOIN fstart s USING (file_id, witness_gen, rl, rp, field)),
  fafter AS (
    SELECT c.* FROM fchg c JOIN fstate f USING (file_id, witness_gen, rl, rp, field)
    WHERE c.line_no > f.start_line AND ((c.depth = 3 AND c.kind = 2) OR (c.depth = 4 AND c.kind IN (1, 3)))),
  fflag AS (
    SELECT file_id, witness_gen, rl, rp, field, bool_or(kind = 2) AS pushed, bool_or(depth = 4) AS keyed,
           bool_or(kind = 1) AS key_set
    FROM fafter GROUP BY ALL),
  -- Pushes, without replaying them one by one: a push puts its items from pos0 on, pos0 being the
  -- list's length before it, or i when smaller. With s the number of items pushed before it since
  -- the start, pos0 = s + the least (i - s) over it and the pushes before it (the start counts as
  -- a push at i = 0 of the start value's items, if it is a list). An item stays unless a later
  -- push starts at or before its place.
  fpush AS (
    SELECT f.file_id, f.witness_gen, f.rl, f.rp, f.field, f.start_line AS line_no, 0 AS i,
           CASE WHEN json_type(f.start_val) = 'ARRAY' THEN json_extract(f.start_val, '$[*]') ELSE [] END AS items
    FROM fstate f JOIN fflag g USING (file_id, witness_gen, rl, rp, field) WHERE g.pushed
    UNION ALL
    SELECT file_id, witness_gen, rl, rp, field, line_no, i, coalesce(json_extract(v, '$[*]'), [])
    FROM fafter WHERE kind = 2),
  fpush_s AS (
    SELECT *, coalesce(sum(len(items)) OVER (PARTITION BY file_id, witness_gen, rl, rp, field ORDER BY line_no
                                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS s
    FROM fpush),
  fpush_at AS (
    SELECT *, s + min(i - s) OVER (PARTITION BY file_id, witness_gen, rl, rp, field ORDER BY line_no
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS pos0
    FROM fpush_s),
  fitems AS (
    SELECT file_id, witness_gen, rl, rp, field,
           min(pos0) OVER (PARTITION BY file_id, witness_gen, rl, rp, field ORDER BY line_no
                         ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS cut,
           pos0 + generate_subscripts(items, 1) - 1 AS pos, unnest(items) AS item
    FROM fpush_at),
  farr AS (
    SELECT file_id, witness_gen, rl, rp, field,
           CAST('[' || coalesce(string_agg(CAST(item AS VARCHAR), ',' ORDER BY pos)
                                  FILTER (WHERE cut IS NULL OR pos < cut), '') || ']' AS JSON) AS val
    FROM fitems GROUP BY ALL),
  -- Keys: a field's keys as it started (if an object), then the last set or delete of each wins.
  fkey AS (
    SELECT f.file_id, f.witness_gen, f.rl, f.rp, f.field, e.key AS sub, CAST(e.id AS BIGINT) AS ord,
           f.start_line AS line_no, e.value AS val
    FROM (SELECT f.* FROM fstate f JOIN fflag g USING (file_id, witness_gen, rl, rp, field)
          WHERE g.keyed AND NOT g.pushed AND json_type(f.start_val) = 'OBJECT') f,
         json_each(f.start_val) e
    UNION ALL
    SELECT a.file_id, a.witness_gen, a.rl, a.rp, a.field, a.sub, 1000000000 + a.line_no, a.line_no,
           CASE WHEN a.kind = 1 THEN a.v END
    FROM fafter a WHERE a.depth = 4),
  fobj AS (
    SELECT file_id, witness_gen, rl, rp, field,
           CAST('{' || coalesce(string_agg(CAST(to_json(sub) AS VARCHAR) || ':' || CAST(val AS VARCHAR), ',' ORDER BY ord)
                                  FILTER (WHERE val IS NOT NULL), '') || '}' AS JSON) AS val
    FROM (SELECT file_id, witness_gen, rl, rp, field, sub, val,
                 min(ord) OVER (PARTITION BY file_id, witness_gen, rl, rp, field, sub) AS ord
          FROM fkey
          QUALIFY row_number() OVER (PARTITION BY file_id, witness_gen, rl, rp, field, sub ORDER BY line_no DESC) = 1)
    GROUP BY ALL),
  fval AS (
    SELECT f.file_id, f.witness_gen, f.rl, f.rp, f.field, f.ord,
           CASE WHEN g.pushed THEN coalesce(a.val, CAST('[]' AS JSON))
                -- keys set on no field (or null) make it an object; on a list or a value, nothing
                WHEN g.keyed AND (json_type(f.start_val) = 'OBJECT'
                                  OR (g.key_set AND coalesce(json_type(f.start_val), 'NULL') = 'NULL'))
                  THEN coalesce(o.val, CAST('{}' AS JSON))
                ELSE f.start_val END AS val
    FROM fstate f
    LEFT JOIN fflag g USING (file_id, witness_gen, rl, rp, field)
    LEFT JOIN farr a USING (file_id, witness_gen, rl, rp, field)
    LEFT JOIN fobj o USING (file_id, witness_gen, rl, rp, field)),
  robj AS (
    SELECT file_id, witness_gen, rl, rp,
           CAST('{' || coalesce(string_agg(CAST(to_json(field) AS VARCHAR) || ':' || CAST(val AS VARCHAR), ',' ORDER BY ord)
                                  FILTER (WHERE val IS NOT NULL), '') || '}' AS JSON) AS r
    FROM fval GROUP BY ALL),
  touched AS (
    SELECT file_id, witness_gen, rl, rp, max(line_no) AS line_to, max(captured_at) AS captured_at
    FROM fops GROUP BY ALL),
  log_reqs AS (
    SELECT b.file_id, b.witness_gen, l.line_no, CAST(coalesce(t.line_to, l.line_no) AS INTEGER) AS line_to,
           l.abs_path, l.session_hint, l.machine_id, l.byte_offset,
           greatest(l.captured_at, t.captured_at) AS captured_at, 'log' AS source, b.seq,
           CASE WHEN o.r IS NOT NULL THEN o.r ELSE b.base END AS r
    FROM bases b
    JOIN lines l ON l.file_id = b.file_id AND l.witness_gen = b.witness_gen AND l.line_no = b.rl
    LEFT JOIN robj o ON o.file_id = b.file_id AND o.witness_gen = b.witness_gen AND o.rl = b.rl AND o.rp = b.rp
    LEFT JOIN touched t ON t.file_id = b.file_id AND t.witness_gen = b.witness_gen AND t.rl = b.rl AND t.rp = b.rp),
  req_rows AS (
    SELECT * FROM doc_reqs
    UNION ALL BY NAME
    SELECT * FROM log_reqs),
  events AS (
    SELECT l.* EXCLUDE (raw_line), l.line_no AS line_to,
           unnest([TRY(from_json(l.raw_line, '{"type":"VARCHAR","id":"VARCHAR","timestamp":"VARCHAR",
             "data":{"sessionId":"VARCHAR","content":"VARCHAR","messageId":"VARCHAR","toolRequests":"JSON",
                     "toolCallId":"VARCHAR","toolName":"VARCHAR","arguments":"JSON","success":"VARCHAR"}}'))]) AS j
    FROM lines l WHERE l.source = 'events')
SELECT
  file_id, witness_gen, line_no, abs_path, session_hint AS session_id,
  make_timestamptz(CAST((r->>'$.timestamp') AS BIGINT) * 1000) AS event_time, captured_at,
  source, 'request' AS ev_type,
  (r->>'$.modelId')                               AS model,
  (r->>'$.message.text')                          AS user_text,
  json_extract(r, '$.response')                   AS response,
  array_to_string(list_transform(
    list_filter(TRY(from_json(json_extract(r, '$.response'), '[{"kind":"VARCHAR","value":"JSON"}]')),
      lambda p: (p.kind IS NULL OR p.kind = 'markdownContent') AND json_type(p.value) = 'VARCHAR'),
    lambda p: p.value->>'$'), '')                 AS reply_text,
  -- additions
  machine_id, byte_offset, line_to, seq,
  (r->>'$.requestId')                             AS request_id,
  json_extract(r, '$.result')                     AS result,
  NULL::VARCHAR AS content, NULL::JSON AS tool_requests, NULL::VARCHAR AS tool_call_id,
  NULL::VARCHAR AS tool_name, NULL::BOOLEAN AS success
FROM req_rows
UNION ALL BY NAME
SELECT
  file_id, witness_gen, line_no, abs_path, session_hint AS session_id,
  coalesce(event_time, TRY_CAST(j.timestamp AS TIMESTAMPTZ)) AS event_time, captured_at,
  source, j.type AS ev_type, NULL AS model, NULL AS user_text, NULL::JSON AS response, NULL AS reply_text,
  machine_id, byte_offset, line_to, line_no AS seq, NULL AS request_id, NULL::JSON AS result,
  j.data.content AS content, j.data.toolRequests AS tool_requests,
  j.data.toolCallId AS tool_call_id, j.data.toolName AS tool_name,
  TRY_CAST(j.data.success AS BOOLEAN) AS success
FROM events WHERE j IS NOT NULL;

-- What the messages, usage and tool calls are read from: one form of each session (the .json and
-- the .jsonl log of one session are one session: dialects.other_forms). Every file is a row of
-- derived.sessions still.
CREATE OR REPLACE VIEW derived.v_copilot_shown AS
SELECT * FROM dialects.v_copilot WHERE file_id NOT IN (SELECT file_id FROM dialects.other_forms('copilot'));

-- Messages: a request is a prompt and (when it has a response) a reply; the transcripts stream's
-- user.message and assistant.message events are one each.
CREATE OR REPLACE VIEW derived.v_messages_copilot AS
SELECT 'copilot:'||source||':'||session_id||':'||witness_gen||':'||line_no||':'||seq||':'||r.role AS msg_id,
       'copilot-chat' AS agent, session_id, r.role,
       CASE WHEN r.role = 'assistant' THEN model END AS model,
       r.text, event_time, captured_at, file_id, witness_gen, line_no,
       machine_id,
       'copilot:'||source||':'||session_id||':'||witness_gen||':'||line_no||':'||seq||':'||r.role AS turn_id,
       false AS is_meta
FROM derived.v_copilot_shown,
     LATERAL (SELECT unnest([{'role': 'user', 'text': user_text},
                             {'role': 'assistant', 'text': CASE WHEN json_array_length(response) > 0 THEN reply_text END}]) AS x) u,
     LATERAL (SELECT u.x.role AS role, u.x.text AS text) r
WHERE ev_type = 'request' AND (r.role = 'user' OR r.text IS NOT NULL)
UNION ALL BY NAME
SELECT 'copilot:'||source||':'||session_id||':'||witness_gen||':'||line_no AS msg_id,
       'copilot-chat' AS agent, session_id,
       CASE ev_type WHEN 'user.message' THEN 'user' ELSE 'assistant' END AS role, NULL AS model,
       content AS text, event_time, captured_at, file_id, witness_gen, line_no,
       machine_id,
       'copilot:'||source||':'||session_id||':'||witness_gen||':'||line_no AS turn_id,
       false AS is_meta
FROM derived.v_copilot_shown
WHERE ev_type IN ('user.message', 'assistant.message');

-- Usage: a request's result carries the prompt's and the reply's tokens when Copilot recorded
-- them: result.usage {promptTokens, completionTokens} (0.37 on), or earlier result.metadata
-- {promptTokens, outputTokens}; nothing says how much of the prompt was cached.
CREATE OR REPLACE VIEW derived.v_usage_lines_copilot AS
WITH
  c AS (
    SELECT 'copilot-chat' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path,
           event_time, model,
           coalesce(TRY_CAST((result->>'$.usage.promptTokens') AS BIGINT),
                    TRY_CAST((result->>'$.metadata.promptTokens') AS BIGINT)) AS prompt_tokens,
           coalesce(TRY_CAST((result->>'$.usage.completionTokens') AS BIGINT),
                    TRY_CAST((result->>'$.metadata.outputTokens') AS BIGINT)) AS out_tokens
    FROM derived.v_copilot_shown
    WHERE ev_type = 'request' AND result IS NOT NULL AND json_type(result) = 'OBJECT')
SELECT agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       NULL::VARCHAR AS message_id, NULL::VARCHAR AS request_id,
       coalesce(prompt_tokens, 0) AS input_tokens,
       coalesce(out_tokens, 0) AS output_tokens,
       0::BIGINT AS cache_creation_tokens, 0::BIGINT AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM c WHERE prompt_tokens IS NOT NULL OR out_tokens IS NOT NULL;

-- Tool calls: a request's toolInvocationSerialized response parts, each with the call the model
-- made (result.metadata.toolCallRounds[].toolCalls[]: its name and arguments) matched by id, else
-- the i-th call for the i-th part (VS Code gives the parts ids of its own); their results are in
-- the same document, so result_line_no is the request's line. The transcripts stream: an
-- assistant.message's toolRequests joined to their tool.execution_complete events.
CREATE OR REPLACE VIEW derived.v_tool_calls_copilot AS
WITH
  reqs AS (
    SELECT session_id, file_id, witness_gen, line_no, line_to, machine_id, event_time,
           list_filter(coalesce(TRY(from_json(response, '[{"kind":"VARCHAR","toolCallId":"VARCHAR","toolId":"VARCHAR","isComplete":"JSON"}]')), []),
                       lambda p: p.kind = 'toolInvocationSerialized') AS parts,
           flatten(coalesce(list_transform(TRY(from_json(json_extract(result, '$.metadata.toolCallRounds'),
                                                          '[{"toolCalls":[{"id":"VARCHAR","name":"VARCHAR","arguments":"JSON"}]}]')),
                                           lambda r: coalesce(r.toolCalls, [])), [])) AS calls
    FROM derived.v_copilot_shown
    WHERE ev_type = 'request' AND json_type(response) = 'ARRAY'),
  parts AS (
    SELECT r.* EXCLUDE (parts), unnest(r.parts) AS p, generate_subscripts(r.parts, 1) AS i
    FROM reqs r WHERE len(r.parts) > 0),
  matched AS (
    SELECT *, coalesce(list_filter(calls, lambda c: c.id = p.toolCallId)[1], calls[i]) AS c FROM parts),
  events AS (
    SELECT session_id, file_id, witness_gen, line_no, machine_id, event_time,
           unnest(TRY(from_json(tool_requests, '[{"toolCallId":"VARCHAR","name":"VARCHAR","arguments":"JSON"}]'))) AS q
    FROM derived.v_copilot_shown
    WHERE ev_type = 'assistant.message' AND json_type(tool_requests) = 'ARRAY'),
  done AS (
    SELECT file_id, witness_gen, tool_call_id, min(line_no) AS result_line_no, bool_or(NOT success) AS failed,
           bool_or(success IS NOT NULL) AS said
    FROM derived.v_copilot_shown WHERE ev_type = 'tool.execution_complete' AND tool_call_id IS NOT NULL
    GROUP BY ALL)
SELECT 'copilot-chat' AS agent, session_id, file_id, witness_gen, line_no, machine_id, event_time,
       coalesce(p.toolCallId, c.id) AS call_id,
       coalesce(p.toolId, c.name) AS tool_name,
       CASE WHEN json_type(c.arguments) = 'VARCHAR' THEN c.arguments->>'$' ELSE CAST(c.arguments AS VARCHAR) END AS arguments,
       line_no AS result_line_no, NULL::BOOLEAN AS is_error, false AS is_sidechain
FROM matched
UNION ALL BY NAME
SELECT 'copilot-chat' AS agent, e.session_id, e.file_id, e.witness_gen, e.line_no, e.machine_id, e.event_time,
       e.q.toolCallId AS call_id, e.q.name AS tool_name,
       CASE WHEN json_type(e.q.arguments) = 'VARCHAR' THEN e.q.arguments->>'$' ELSE CAST(e.q.arguments AS VARCHAR) END AS arguments,
       d.result_line_no, CASE WHEN d.said THEN d.failed END AS is_error, false AS is_sidechain
FROM events e
LEFT JOIN done d ON d.file_id = e.file_id AND d.witness_gen = e.witness_gen AND d.tool_call_id = e.q.toolCallId;

-- Sessions: the project of a session in workspaceStorage/<hash>/ is what that workspace's
-- workspace.json names ({"folder": uri} or {"workspace": uri of a .code-workspace file}): a file
-- URI as its path, any other (a remote) as it is. workspace.json is written when the workspace is
-- first opened, before its sessions, and read here from the floor's newest copy of it.
CREATE OR REPLACE VIEW derived.v_sessions_copilot AS
WITH
  mine AS (
    SELECT DISTINCT r.file_id, f.abs_path,
           regexp_extract(f.abs_path, '^(.*[/\\]workspaceStorage[/\\][^/\\]+)[/\\]', 1) AS ws_dir
    FROM dialects.v_live r JOIN floor.files f USING (file_id)
    WHERE r.lane = 'copilot'),
  -- the workspace.json files of those workspaces (few): their ids bound the scan of the lines, as
  -- dialects.v_live bounds its own
  wsf AS MATERIALIZED (
    SELECT f.file_id, f.abs_path FROM floor.files f
    WHERE f.lane = 'copilot' AND regexp_matches(f.abs_path, '[/\\]workspaceStorage[/\\][^/\\]+[/\\]workspace\.json$')
      AND f.abs_path IN (SELECT ws_dir || substr(abs_path, length(ws_dir) + 1, 1) || 'workspace.json' FROM mine WHERE ws_dir <> '')),
  ws AS (
    SELECT regexp_extract(any_value(w.abs_path), '^(.*)[/\\]workspace\.json$', 1) AS ws_dir,
           TRY_CAST(string_agg(r.raw_line, chr(10) ORDER BY r.line_no) AS JSON) AS doc
    FROM floor.raw_lines r
    JOIN floor.ingest_state s ON s.file_id = r.file_id AND s.witness_gen = r.witness_gen
    JOIN wsf w ON w.file_id = r.file_id
    WHERE r.file_id BETWEEN (SELECT min(file_id) FROM wsf) AND (SELECT max(file_id) FROM wsf)
    GROUP BY r.file_id),
  uri AS (
    SELECT ws_dir, coalesce(doc->>'$.folder', doc->>'$.workspace') AS u FROM ws)
SELECT m.file_id,
       CASE WHEN u.u IS NULL THEN NULL
            WHEN starts_with(u.u, 'file://')
              THEN regexp_replace(url_decode(substr(u.u, 8)), '^/([A-Za-z]:)', '\1')
            ELSE u.u END AS project,
       NULL::VARCHAR AS parent_session
FROM mine m LEFT JOIN uri u ON u.ws_dir = m.ws_dir;
