-- Cline CLI's views (the Cline SDK's session folders; dialect.ts beside this file is the turn
-- index's reading). Both files of a folder are documents rewritten whole: their lines are joined
-- and parsed; every row has line_no 1 and line_to the document's last line.

-- One row per message of each generation of a *.messages.json; `side` for a sub-agent's or
-- teammate's file (not named for its folder).
CREATE OR REPLACE VIEW dialects.v_cline_cli AS
WITH
  joined AS (SELECT * FROM dialects.json_documents('cline_cli', '\.messages\.json$')),
  docs AS (
    SELECT * EXCLUDE (text),
           coalesce(TRY(from_json(text, '{"messages":[{"id":"VARCHAR","role":"VARCHAR","content":"JSON","ts":"DOUBLE","modelInfo":"JSON","metrics":"JSON"}]}')).messages,
                    TRY(from_json(text, '[{"id":"VARCHAR","role":"VARCHAR","content":"JSON","ts":"DOUBLE","modelInfo":"JSON","metrics":"JSON"}]'))) AS msgs
    FROM joined),
  rows AS (
    SELECT generate_subscripts(d.msgs, 1) AS msg_index, unnest(d.msgs) AS m, d.* EXCLUDE (msgs)
    FROM docs d WHERE len(d.msgs) > 0)
SELECT file_id, witness_gen, 1 AS line_no, line_to, abs_path, session_hint AS session_id, machine_id,
       byte_offset, captured_at, msg_index, m.id AS message_id,
       to_timestamp(m.ts / 1000.0) AS event_time,
       m.role AS role,
       m.modelInfo->>'$.id' AS model,
       m.content AS content,
       m.metrics AS metrics,
       regexp_extract(abs_path, '([^/\\]+)$', 1) <> regexp_extract(abs_path, '([^/\\]+)[/\\][^/\\]+$', 1) || '.messages.json' AS side
FROM rows;

-- Messages: a user message's text blocks (its <user_input> wrapper taken off) and a reply's; a
-- user message of tool results alone is meta.
CREATE OR REPLACE VIEW derived.v_messages_cline_cli AS
WITH m AS (
  SELECT *, CASE WHEN json_type(content) = 'VARCHAR' THEN content->>'$'
                 ELSE array_to_string(list_transform(
                        list_filter(TRY(from_json(content, '[{"type":"VARCHAR","text":"VARCHAR"}]')), lambda b: b.type = 'text'),
                        lambda b: b.text), chr(10) || chr(10)) END AS raw_text
  FROM dialects.v_cline_cli WHERE role IN ('user', 'assistant'))
SELECT 'cline_cli:'||session_id||':'||witness_gen||':'||file_id||':'||msg_index AS msg_id,
       'cline-cli' AS agent, session_id, role, model,
       CASE WHEN role = 'user' THEN coalesce(nullif(regexp_extract(raw_text, '^\s*<user_input[^>]*>([\s\S]*?)</user_input>\s*$', 1), ''), raw_text)
            ELSE raw_text END AS text,
       event_time, captured_at, file_id, witness_gen, line_no, machine_id,
       CASE WHEN role = 'user' AND coalesce(raw_text, '') = '' THEN NULL
            ELSE 'cline_cli:'||session_id||':'||witness_gen||':'||file_id||':'||msg_index END AS turn_id,
       role = 'user' AND coalesce(raw_text, '') = '' AS is_meta,
       side AS is_sidechain
FROM m;

-- The session's folder, from its manifest (<id>/<id>.json, newest generation), for every file of
-- the folder. The manifest is another file than the messages: it is read from floor.raw_lines, not
-- from the files being refreshed (a manifest that changes alone leaves the messages' row as it was
-- until they change too).
CREATE OR REPLACE VIEW derived.v_sessions_cline_cli AS
WITH
  man AS (
    SELECT f.session_hint, r.witness_gen, string_agg(r.raw_line, chr(10) ORDER BY r.line_no) AS text
    FROM floor.raw_lines r JOIN floor.files f USING (file_id)
    WHERE r.lane = 'cline_cli' AND f.lane = 'cline_cli' AND NOT regexp_matches(f.abs_path, '\.messages\.json$')
    GROUP BY f.session_hint, r.file_id, r.witness_gen),
  cwd AS (
    SELECT session_hint, arg_max(TRY(json_extract_string(text, '$.cwd')), witness_gen) AS cwd
    FROM man GROUP BY session_hint)
SELECT f.file_id, cwd.cwd AS project, NULL::VARCHAR AS parent_session
FROM floor.files f JOIN cwd USING (session_hint)
WHERE f.lane = 'cline_cli';

-- Tool calls: a reply's tool_use blocks; the result is in the user message after it.
CREATE OR REPLACE VIEW derived.v_tool_calls_cline_cli AS
WITH b AS (
  SELECT *, unnest(TRY(from_json(content, '[{"type":"VARCHAR","id":"VARCHAR","name":"VARCHAR","input":"JSON"}]'))) AS blk
  FROM dialects.v_cline_cli WHERE role = 'assistant' AND json_type(content) = 'ARRAY')
SELECT 'cline-cli' AS agent, session_id, file_id, witness_gen, line_no, machine_id, event_time,
       blk.id AS call_id, blk.name AS tool_name, CAST(blk.input AS VARCHAR) AS arguments,
       line_no AS result_line_no, NULL::BOOLEAN AS is_error, side AS is_sidechain
FROM b WHERE blk.type = 'tool_use';

-- Usage: a reply's metrics (message_id: the message's own id, the same in every generation).
CREATE OR REPLACE VIEW derived.v_usage_lines_cline_cli AS
SELECT 'cline-cli' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       message_id, NULL::VARCHAR AS request_id,
       coalesce(TRY_CAST(metrics->>'$.inputTokens' AS BIGINT), 0) AS input_tokens,
       coalesce(TRY_CAST(metrics->>'$.outputTokens' AS BIGINT), 0) AS output_tokens,
       coalesce(TRY_CAST(metrics->>'$.cacheWriteTokens' AS BIGINT), 0) AS cache_creation_tokens,
       coalesce(TRY_CAST(metrics->>'$.cacheReadTokens' AS BIGINT), 0) AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM dialects.v_cline_cli
WHERE role = 'assistant' AND metrics IS NOT NULL AND json_type(metrics) = 'OBJECT';

-- Times: those of the session's messages (a document's lines have no time of their own).
CREATE OR REPLACE VIEW derived.v_clock_cline_cli AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_cline_cli GROUP BY file_id;
