-- Continue's views (dialect.ts beside this file is the turn index's reading). A session file is
-- one document rewritten whole: its lines are joined and parsed; every row has line_no 1 and
-- line_to the document's last line. The file records no times: event_time is NULL.

-- One row per history item of each generation; msg_index is its place in the history.
CREATE OR REPLACE VIEW dialects.v_continue AS
WITH
  joined AS (SELECT * FROM dialects.json_documents('continue', '\.json$')),
  docs AS (
    SELECT * EXCLUDE (text),
           TRY(from_json(text, '{"sessionId":"VARCHAR","title":"VARCHAR","workspaceDirectory":"VARCHAR",
                                 "history":[{"message":"JSON","toolCallStates":"JSON"}]}')) AS doc
    FROM joined),
  rows AS (
    SELECT d.* EXCLUDE (doc), d.doc.workspaceDirectory AS workspace, d.doc.title AS title,
           unnest(d.doc.history) AS h, unnest(range(1, len(d.doc.history) + 1)) AS msg_index
    FROM docs d WHERE d.doc IS NOT NULL)
SELECT file_id, witness_gen, 1 AS line_no, line_to, abs_path, session_hint AS session_id, machine_id,
       byte_offset, captured_at, msg_index, workspace, title,
       NULL::TIMESTAMPTZ AS event_time,
       h.message->>'$.role' AS role,
       h.message->'$.content' AS content,
       h.message->'$.toolCalls' AS tool_calls,
       h.message->'$.usage' AS usage,
       h.toolCallStates AS tool_call_states
FROM rows;

-- Messages: user and assistant messages, their text (a string, or the text parts).
CREATE OR REPLACE VIEW derived.v_messages_continue AS
SELECT 'continue:'||session_id||':'||witness_gen||':'||msg_index AS msg_id,
       'continue-dev' AS agent, session_id, role, usage->>'$.model' AS model,
       CASE WHEN json_type(content) = 'VARCHAR' THEN content->>'$'
            ELSE array_to_string(list_transform(
                   list_filter(TRY(from_json(content, '[{"type":"VARCHAR","text":"VARCHAR"}]')), lambda b: b.type = 'text'),
                   lambda b: b.text), chr(10) || chr(10)) END AS text,
       event_time, captured_at, file_id, witness_gen, line_no, machine_id,
       'continue:'||session_id||':'||witness_gen||':'||msg_index AS turn_id,
       false AS is_meta
FROM dialects.v_continue
WHERE role IN ('user', 'assistant');

CREATE OR REPLACE VIEW derived.v_sessions_continue AS
SELECT file_id, arg_max(workspace, witness_gen) AS project, NULL::VARCHAR AS parent_session
FROM dialects.v_continue GROUP BY file_id;

-- Tool calls: an assistant message's toolCalls; errored when its toolCallState says so. call_id is
-- the model's own id, the same in every generation.
CREATE OR REPLACE VIEW derived.v_tool_calls_continue AS
WITH c AS (
  SELECT *, unnest(TRY(from_json(tool_calls, '[{"id":"VARCHAR","function":{"name":"VARCHAR","arguments":"VARCHAR"}}]'))) AS call
  FROM dialects.v_continue WHERE role = 'assistant' AND json_type(tool_calls) = 'ARRAY')
SELECT 'continue-dev' AS agent, session_id, file_id, witness_gen, line_no, machine_id, event_time,
       call.id AS call_id, call.function.name AS tool_name, call.function.arguments AS arguments,
       line_no AS result_line_no,
       CASE list_first(list_filter(TRY(from_json(tool_call_states, '[{"toolCallId":"VARCHAR","status":"VARCHAR"}]')),
                                   lambda s: s.toolCallId = call.id)).status
         WHEN 'errored' THEN true WHEN 'done' THEN false END AS is_error,
       false AS is_sidechain
FROM c;

-- Usage: an assistant message's usage. prompt_tokens counts the cached part too: input here is
-- what is left of it. message_id is the message's place in the history (the history only grows,
-- so it is the same in every generation).
CREATE OR REPLACE VIEW derived.v_usage_lines_continue AS
WITH u AS (
  SELECT *, coalesce(TRY_CAST(usage->>'$.prompt_tokens' AS BIGINT), 0) AS p,
         coalesce(TRY_CAST(usage->>'$.prompt_tokens_details.cache_read_tokens' AS BIGINT), 0) AS cr,
         coalesce(TRY_CAST(usage->>'$.prompt_tokens_details.cache_write_tokens' AS BIGINT), 0) AS cw
  FROM dialects.v_continue WHERE role = 'assistant' AND json_type(usage) = 'OBJECT')
SELECT 'continue-dev' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time,
       usage->>'$.model' AS model,
       'continue:'||session_id||':'||msg_index AS message_id, NULL::VARCHAR AS request_id,
       greatest(p - cr - cw, 0) AS input_tokens,
       coalesce(TRY_CAST(usage->>'$.completion_tokens' AS BIGINT), 0) AS output_tokens,
       cw AS cache_creation_tokens, cr AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM u;
