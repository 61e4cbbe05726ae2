-- Amp's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql). A thread is one JSON document rewritten whole: each generation's lines are
-- joined and parsed, and every message row cites the whole document (line_no 1 .. line_to), as
-- dialect.ts beside this file reads it.

-- One row per message of a thread's version.
CREATE OR REPLACE VIEW dialects.v_amp AS
WITH
  joined AS (SELECT * FROM dialects.json_documents('amp', '.')),
  docs AS (
    SELECT * EXCLUDE (text), CAST(text AS JSON) AS doc
    FROM joined WHERE json_valid(text) AND json_type(CAST(text AS JSON), '$.messages') = 'ARRAY'),
  msgs AS (
    SELECT d.*, unnest(range(0, CAST(json_array_length(d.doc, '$.messages') AS BIGINT))) AS idx
    FROM docs d)
SELECT
  file_id, witness_gen, 1 AS line_no, abs_path, session_hint AS session_id,
  make_timestamptz(TRY_CAST((m->>'$.meta.sentAt') AS BIGINT) * 1000) AS event_time, captured_at,
  (m->>'$.role')                                   AS role,
  (m->>'$.usage.model')                            AS model,
  json_extract(m, '$.content')                     AS content,
  -- additions
  machine_id, byte_offset, line_to, idx + 1 AS msg_index,
  (doc->>'$.id')                                   AS thread_id,
  TRY_CAST((m->>'$.messageId') AS BIGINT)          AS message_id,
  json_extract(m, '$.usage')                       AS usage,
  (doc->>'$.title')                                AS title,
  json_extract(doc, '$.env.initial.trees[0].uri')  AS tree_uri
FROM (SELECT *, json_extract(doc, '$.messages[' || idx || ']') AS m FROM msgs);

-- The text blocks of a message's content, each trimmed, empty ones left out, a blank line between.
CREATE OR REPLACE MACRO dialects.amp_text(content) AS
  array_to_string(list_transform(
    list_filter(TRY(from_json(content, '[{"type":"VARCHAR","text":"VARCHAR"}]')),
                lambda b: b.type = 'text' AND trim(coalesce(b.text, '')) <> ''),
    lambda b: trim(b.text)), chr(10) || chr(10));

-- Messages: a user message with text is a prompt (one holding only tool results is not); every
-- assistant message is a reply.
CREATE OR REPLACE VIEW derived.v_messages_amp AS
SELECT 'amp:'||session_id||':'||witness_gen||':'||msg_index AS msg_id,
       'amp' AS agent, session_id, role,
       CASE WHEN role = 'assistant' THEN model END AS model,
       dialects.amp_text(content) AS text, event_time, captured_at, file_id, witness_gen, line_no,
       machine_id,
       'amp:'||session_id||':'||witness_gen||':'||msg_index AS turn_id,
       false AS is_meta
FROM dialects.v_amp
WHERE role = 'assistant'
   OR (role = 'user' AND len(list_filter(TRY(from_json(content, '[{"type":"VARCHAR","text":"VARCHAR"}]')),
                                         lambda b: b.type = 'text' AND b.text IS NOT NULL)) > 0);

-- Sessions: the thread's first workspace folder is the project.
CREATE OR REPLACE VIEW derived.v_sessions_amp AS
SELECT file_id,
       arg_max(CASE WHEN json_type(tree_uri) = 'VARCHAR'
                    THEN regexp_replace(regexp_replace(tree_uri->>'$', '^file://(localhost)?', ''), '%20', ' ', 'g') END,
               witness_gen) AS project,
       NULL::VARCHAR AS parent_session
FROM dialects.v_amp GROUP BY file_id;

-- Tool calls: a reply's tool_use blocks, each with the outcome a later user message's tool_result
-- gives it (run.status error, cancelled or rejected-by-user is a failure).
CREATE OR REPLACE VIEW derived.v_tool_calls_amp AS
WITH
  uses AS (
    SELECT session_id, file_id, witness_gen, line_no, machine_id, event_time, msg_index,
           unnest(TRY(from_json(content, '[{"type":"VARCHAR","id":"VARCHAR","name":"VARCHAR","input":"JSON"}]'))) AS b
    FROM dialects.v_amp WHERE role = 'assistant'),
  results AS (
    SELECT file_id, witness_gen, r.toolUseID AS call_id,
           bool_or(r.run.status IN ('error', 'cancelled', 'rejected-by-user')) AS is_error
    FROM (SELECT file_id, witness_gen,
                 unnest(TRY(from_json(content, '[{"type":"VARCHAR","toolUseID":"VARCHAR","run":{"status":"VARCHAR"}}]'))) AS r
          FROM dialects.v_amp WHERE role = 'user')
    WHERE r.type = 'tool_result'
    GROUP BY ALL)
SELECT 'amp' AS agent, u.session_id, u.file_id, u.witness_gen, u.line_no, u.machine_id, u.event_time,
       u.b.id AS call_id, u.b.name AS tool_name, CAST(u.b.input AS VARCHAR) AS arguments,
       CASE WHEN r.call_id IS NOT NULL THEN u.line_no END AS result_line_no, r.is_error, false AS is_sidechain
FROM uses u
LEFT JOIN results r ON r.file_id = u.file_id AND r.witness_gen = u.witness_gen AND r.call_id = u.b.id
WHERE u.b.type = 'tool_use';

-- Usage: an assistant message's usage (Anthropic's four counts). message_id is the thread's id and
-- the message's, so a message every version of the thread holds counts once.
CREATE OR REPLACE VIEW derived.v_usage_lines_amp AS
SELECT 'amp' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       thread_id||':'||message_id AS message_id, NULL::VARCHAR AS request_id,
       coalesce(TRY_CAST((usage->>'$.inputTokens') AS BIGINT), 0) AS input_tokens,
       coalesce(TRY_CAST((usage->>'$.outputTokens') AS BIGINT), 0) AS output_tokens,
       coalesce(TRY_CAST((usage->>'$.cacheCreationInputTokens') AS BIGINT), 0) AS cache_creation_tokens,
       coalesce(TRY_CAST((usage->>'$.cacheReadInputTokens') AS BIGINT), 0) AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM dialects.v_amp
WHERE role = 'assistant' AND json_type(usage) = 'OBJECT';

-- Times: those of the session's messages (a document's lines have no time of their own).
CREATE OR REPLACE VIEW derived.v_clock_amp AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_amp GROUP BY file_id;
