-- Gemini CLI's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql, which unions the derived.*_gemini parts with every other agent's). Its
-- files are not all one record a line, so the dialect view puts records back together first;
-- where SQL stops short of what the turn index does (dialect.ts beside this file), the comment
-- says so.

-- Gemini CLI: one row per message of the conversation as it stands.
-- .jsonl (append log): a message may be written several times under one id, the last write wins
-- (its line is line_no); {"$rewindTo": id} drops that message and every message first written
-- after it, as far as they were written before the rewind. msg_index orders the messages by their
-- first surviving write. Not done here: a {"$set":{"messages":[…]}} checkpoint of the whole list
-- (rare; the turn index applies it).
-- .json (legacy, one pretty-printed document rewritten whole): the document's lines are joined
-- and parsed; every message row has line_no 1 and line_to = the document's last line, since the
-- document as a whole is what a citation can check.
CREATE OR REPLACE VIEW dialects.v_gemini AS
WITH
  lines AS (
    SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at, r.raw_line,
           f.abs_path, f.session_hint, f.machine_id
    FROM dialects.v_live r JOIN floor.files f USING (file_id)
    WHERE r.lane = 'gemini'),
  jl AS (
    SELECT l.* EXCLUDE (raw_line),
           unnest([TRY(from_json(l.raw_line, '{"id":"VARCHAR","type":"VARCHAR","timestamp":"VARCHAR",
             "content":"JSON","displayContent":"JSON","parts":"JSON","model":"VARCHAR","tokens":"JSON",
             "thoughts":"JSON","toolCalls":"JSON","$rewindTo":"VARCHAR"}'))]) AS j
    FROM lines l WHERE NOT regexp_matches(l.abs_path, '\.json$')),
  writes AS (
    SELECT * FROM jl WHERE j IS NOT NULL AND j.type IS NOT NULL),
  rewinds AS (
    SELECT r.file_id, r.witness_gen, r.line_no AS at_line,
           (SELECT min(w.line_no) FROM writes w
            WHERE w.file_id = r.file_id AND w.witness_gen = r.witness_gen
              AND w.j.id = r.j."$rewindTo" AND w.line_no < r.line_no) AS cut
    FROM jl r WHERE r.j."$rewindTo" IS NOT NULL),
  firsts AS (
    SELECT *, min(line_no) OVER (PARTITION BY file_id, witness_gen, coalesce(j.id, CAST(line_no AS VARCHAR))) AS first_line
    FROM writes),
  kept AS (
    SELECT w.* EXCLUDE (first_line),
           min(line_no) OVER (PARTITION BY file_id, witness_gen, coalesce(j.id, CAST(line_no AS VARCHAR))) AS pos
    FROM firsts w
    WHERE NOT EXISTS (SELECT 1 FROM rewinds x
                      WHERE x.file_id = w.file_id AND x.witness_gen = w.witness_gen
                        AND w.line_no < x.at_line AND w.first_line >= x.cut)
    QUALIFY row_number() OVER (PARTITION BY file_id, witness_gen, coalesce(j.id, CAST(line_no AS VARCHAR))
                               ORDER BY line_no DESC) = 1),
  joined AS (
    SELECT file_id, witness_gen, any_value(abs_path) AS abs_path, any_value(session_hint) AS session_hint,
           any_value(machine_id) AS machine_id, min(byte_offset) AS byte_offset,
           max(captured_at) AS captured_at, max(line_no) AS line_to,
           string_agg(raw_line, chr(10) ORDER BY line_no) AS text
    FROM lines WHERE regexp_matches(abs_path, '\.json$')
    GROUP BY file_id, witness_gen),
  docs AS (
    SELECT * EXCLUDE (text),
           TRY(from_json(text,
             '{"messages":[{"id":"VARCHAR","type":"VARCHAR","timestamp":"VARCHAR","content":"JSON",
               "displayContent":"JSON","parts":"JSON","model":"VARCHAR","tokens":"JSON","thoughts":"JSON",
               "toolCalls":"JSON"}]}')) AS doc
    FROM joined),
  legacy AS (
    SELECT d.*, unnest(range(1, len(d.doc.messages) + 1)) AS idx
    FROM docs d WHERE d.doc IS NOT NULL AND len(d.doc.messages) > 0),
  msgs AS (
    SELECT file_id, witness_gen, line_no, line_no AS line_to, abs_path, session_hint, machine_id, byte_offset,
           event_time, captured_at, row_number() OVER (PARTITION BY file_id, witness_gen ORDER BY pos) AS msg_index,
           false AS is_legacy_json, j
    FROM kept
    UNION ALL BY NAME
    SELECT file_id, witness_gen, 1 AS line_no, line_to, abs_path, session_hint, machine_id, byte_offset,
           TRY_CAST(doc.messages[idx].timestamp AS TIMESTAMPTZ) AS event_time, captured_at,
           idx AS msg_index, true AS is_legacy_json, doc.messages[idx] AS j
    FROM legacy)
SELECT
  m.file_id, m.witness_gen, m.line_no, m.abs_path, m.session_hint AS session_id,
  coalesce(m.event_time, TRY_CAST(m.j.timestamp AS TIMESTAMPTZ)) AS event_time, m.captured_at,
  m.j.type                                         AS msg_type,
  -- 0.61 sends tool results back as a user message of functionResponse parts only: tool output.
  CASE WHEN m.j.type = 'user' AND json_type(m.j.content) = 'ARRAY' AND json_array_length(m.j.content) > 0
            AND len(list_filter(from_json(m.j.content, '["JSON"]'),
                                lambda p: json_exists(p, '$.functionResponse') AND trim(coalesce(p->>'$.text', '')) = ''))
                = json_array_length(m.j.content) THEN 'tool'
       WHEN m.j.type = 'user' THEN 'user'
       WHEN m.j.type IN ('gemini', 'model') THEN 'assistant'
       ELSE 'system' END                           AS role,
  m.j.model                                        AS model,
  coalesce(m.j.content, m.j.parts)                 AS content,
  -- additions
  m.machine_id, m.byte_offset, m.line_to, m.msg_index, m.is_legacy_json,
  m.j.id                                           AS message_id,
  m.j.displayContent                               AS display_content,
  m.j.thoughts                                     AS thoughts,
  m.j.toolCalls                                    AS tool_calls,
  m.j.tokens                                       AS tokens
FROM msgs m;

-- Messages: one message a turn; Parts are {text} without a type.
CREATE OR REPLACE VIEW derived.v_messages_gemini AS
SELECT 'gemini:'||session_id||':'||witness_gen||':'||line_no||':'||msg_index||CASE WHEN is_legacy_json THEN ':json' ELSE '' END AS msg_id,
       'gemini-cli' AS agent, session_id, role, model,
       text, event_time, captured_at, file_id, witness_gen, line_no,
       machine_id,
       CASE WHEN NOT gm_meta THEN 'gemini:'||session_id||':'||witness_gen||':'||line_no||':'||msg_index||CASE WHEN is_legacy_json THEN ':json' ELSE '' END END AS turn_id,
       gm_meta AS is_meta
-- A user message the CLI injects (0.61's <session_context>) is instructions, not a turn
-- (src/core/truth.ts's pattern, as the dialect's).
FROM (SELECT *, role = 'user' AND regexp_matches(coalesce(text, ''), {{truth injected_context}}) AS gm_meta
FROM (SELECT *,
             CASE WHEN role = 'user' AND json_type(display_content) = 'VARCHAR' AND trim(display_content->>'$') <> ''
                    THEN display_content->>'$'
                  WHEN json_type(content) = 'VARCHAR' THEN content->>'$'
                  WHEN json_type(content) = 'ARRAY' THEN
                    array_to_string(list_filter(list_transform(TRY(from_json(content, '[{"text":"VARCHAR"}]')), lambda b: b.text),
                                                lambda t: trim(coalesce(t, '')) <> ''), chr(10) || chr(10))
             END AS text
      FROM dialects.v_gemini
      WHERE role IN ('user','assistant')));

-- Usage: a gemini message's tokens, its last write (the dialect view keeps that one). Gemini's
-- input includes the cached part and leaves out the tool-use prompt, its output leaves out the
-- thoughts: input here = input - cached + tool, output = output + thoughts, cache read = cached,
-- so the three add up to Gemini's total.
CREATE OR REPLACE VIEW derived.v_usage_lines_gemini AS
WITH
  g AS (
    SELECT 'gemini-cli' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path,
           event_time, model,
           coalesce(TRY_CAST((tokens->>'$.input') AS BIGINT), 0) AS t_input,
           coalesce(TRY_CAST((tokens->>'$.cached') AS BIGINT), 0) AS t_cached,
           coalesce(TRY_CAST((tokens->>'$.tool') AS BIGINT), 0) AS t_tool,
           coalesce(TRY_CAST((tokens->>'$.output') AS BIGINT), 0) AS t_output,
           coalesce(TRY_CAST((tokens->>'$.thoughts') AS BIGINT), 0) AS t_thoughts
    FROM dialects.v_gemini
    WHERE role = 'assistant' AND tokens IS NOT NULL AND json_type(tokens) = 'OBJECT')
SELECT agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       NULL::VARCHAR AS message_id, NULL::VARCHAR AS request_id,
       t_input - t_cached + t_tool AS input_tokens,
       t_output + t_thoughts AS output_tokens,
       0::BIGINT AS cache_creation_tokens,
       t_cached AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM g;

-- Tool calls: a gemini message's toolCalls, each with its result in the same record (so its
-- line); failed when its status says error (as the dialect reads it: src/core/truth.ts counts the
-- calls a reply made, and brain calls and stats count these).
CREATE OR REPLACE VIEW derived.v_tool_calls_gemini AS
SELECT 'gemini-cli' AS agent, session_id, file_id, witness_gen, line_no, machine_id,
       coalesce(TRY_CAST((c->>'$.timestamp') AS TIMESTAMPTZ), event_time) AS event_time,
       (c->>'$.id') AS call_id, coalesce((c->>'$.name'), '?') AS tool_name,
       CAST(c->'$.args' AS VARCHAR) AS arguments,
       line_no AS result_line_no,
       CASE WHEN (c->>'$.status') IS NOT NULL THEN (c->>'$.status') = 'error' END AS is_error,
       false AS is_sidechain
FROM (SELECT *, unnest(CAST(tool_calls AS JSON[])) AS c
      FROM dialects.v_gemini
      WHERE role = 'assistant' AND tool_calls IS NOT NULL AND json_type(tool_calls) = 'ARRAY')
WHERE json_type(c) = 'OBJECT';

-- Times: those of the session's messages (a document's lines have no time of their own).
CREATE OR REPLACE VIEW derived.v_clock_gemini AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_gemini GROUP BY file_id;
