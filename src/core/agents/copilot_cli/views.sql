-- Copilot CLI's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql, which unions the derived.*_copilot_cli parts with every other agent's).

-- Copilot CLI: one row per event of a session-state/<id>/events.jsonl, and one per chat message of
-- a legacy history-session-state/<id>.json (a document rewritten whole: its lines are joined and
-- parsed, and every row has line_no 1 and line_to the document's last line, the span a citation
-- can check). A sub-agent's events carry agentId.
CREATE OR REPLACE VIEW dialects.v_copilot_cli AS
WITH
  lines AS (
    SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at, r.raw_line,
           f.abs_path, f.session_hint, f.machine_id, regexp_matches(f.abs_path, '\.json$') AS legacy
    FROM dialects.v_live r JOIN floor.files f USING (file_id)
    WHERE r.lane = 'copilot_cli'),
  events AS (
    SELECT l.* EXCLUDE (raw_line, legacy),
           unnest([TRY(from_json(l.raw_line, '{"type":"VARCHAR","id":"VARCHAR","parentId":"VARCHAR",
             "timestamp":"VARCHAR","agentId":"VARCHAR",
             "data":{"sessionId":"VARCHAR","content":"VARCHAR","model":"VARCHAR","messageId":"VARCHAR",
                     "toolRequests":"JSON","toolCallId":"VARCHAR","toolName":"VARCHAR","arguments":"JSON",
                     "success":"JSON","usage":"JSON","context":{"cwd":"VARCHAR"},"message":"VARCHAR"}}'))]) AS j
    FROM lines l WHERE NOT l.legacy),
  joined AS (
    SELECT file_id, witness_gen, any_value(abs_path) AS abs_path, any_value(session_hint) AS session_hint,
           any_value(machine_id) AS machine_id, min(byte_offset) AS byte_offset,
           max(captured_at) AS captured_at, max(line_no) AS line_to,
           string_agg(raw_line, chr(10) ORDER BY line_no) AS text
    FROM lines WHERE legacy
    GROUP BY file_id, witness_gen),
  docs AS (
    SELECT * EXCLUDE (text),
           TRY(from_json(text, '{"sessionId":"VARCHAR","startTime":"VARCHAR",
             "chatMessages":[{"role":"VARCHAR","content":"JSON","tool_calls":"JSON","tool_call_id":"VARCHAR",
                              "name":"VARCHAR"}]}')) AS doc
    FROM joined),
  legacy AS (
    SELECT d.*, unnest(range(1, len(d.doc.chatMessages) + 1)) AS idx
    FROM docs d WHERE d.doc IS NOT NULL AND len(d.doc.chatMessages) > 0)
SELECT
  file_id, witness_gen, line_no, abs_path, session_hint AS session_id,
  coalesce(event_time, TRY_CAST(j.timestamp AS TIMESTAMPTZ)) AS event_time, captured_at,
  j.type                                           AS ev_type,
  CASE j.type WHEN 'user.message' THEN 'user' WHEN 'assistant.message' THEN 'assistant'
              WHEN 'system.message' THEN 'system' END AS role,
  j.data.model                                     AS model,
  j.data.content                                   AS content,
  -- additions
  machine_id, byte_offset, line_no AS line_to, line_no AS seq, false AS is_legacy_json,
  j.id                                             AS event_id,
  j.parentId                                       AS parent_id,
  j.agentId                                        AS agent_id,
  j.data.messageId                                 AS message_id,
  j.data.toolRequests                              AS tool_requests,
  j.data.toolCallId                                AS tool_call_id,
  j.data.toolName                                  AS tool_name,
  j.data.arguments                                 AS arguments,
  CASE WHEN json_type(j.data.success) = 'BOOLEAN' THEN CAST(j.data.success AS BOOLEAN) END AS success,
  j.data.usage                                     AS usage,
  j.data.context.cwd                               AS cwd,
  j.data.message                                   AS notice
FROM events WHERE j IS NOT NULL
UNION ALL BY NAME
SELECT
  file_id, witness_gen, 1 AS line_no, abs_path, session_hint AS session_id,
  TRY_CAST(doc.startTime AS TIMESTAMPTZ) AS event_time, captured_at,
  'chat.' || coalesce(doc.chatMessages[idx].role, '?') AS ev_type,
  CASE WHEN doc.chatMessages[idx].role IN ('user', 'assistant', 'system') THEN doc.chatMessages[idx].role END AS role,
  NULL::VARCHAR AS model,
  CASE WHEN json_type(doc.chatMessages[idx].content) = 'VARCHAR' THEN doc.chatMessages[idx].content->>'$'
       WHEN json_type(doc.chatMessages[idx].content) = 'ARRAY' THEN
         array_to_string(list_filter(list_transform(TRY(from_json(doc.chatMessages[idx].content, '[{"text":"VARCHAR"}]')),
                                                    lambda b: b.text), lambda t: trim(coalesce(t, '')) <> ''), chr(10) || chr(10))
  END AS content,
  machine_id, byte_offset, line_to, idx AS seq, true AS is_legacy_json,
  NULL AS event_id, NULL AS parent_id, NULL AS agent_id, NULL AS message_id,
  doc.chatMessages[idx].tool_calls AS tool_requests,
  doc.chatMessages[idx].tool_call_id AS tool_call_id,
  doc.chatMessages[idx].name AS tool_name,
  NULL::JSON AS arguments, NULL::BOOLEAN AS success, NULL::JSON AS usage, NULL AS cwd, NULL AS notice
FROM legacy;

-- Sessions: the project is the working directory session.start names (else a resume's).
CREATE OR REPLACE VIEW derived.v_sessions_copilot_cli AS
SELECT file_id,
       coalesce(arg_min(cwd, line_no) FILTER (WHERE ev_type = 'session.start' AND cwd IS NOT NULL),
                arg_min(cwd, line_no) FILTER (WHERE cwd IS NOT NULL)) AS project,
       NULL::VARCHAR AS parent_session
FROM dialects.v_copilot_cli GROUP BY file_id;

-- Messages: a user.message is a prompt, an assistant.message one reply (a sub-agent's: is_sidechain).
CREATE OR REPLACE VIEW derived.v_messages_copilot_cli AS
SELECT 'copilot_cli:'||session_id||':'||witness_gen||':'||line_no||':'||seq AS msg_id,
       'copilot-cli' AS agent, session_id, role,
       CASE WHEN role = 'assistant' THEN model END AS model,
       content AS text, event_time, captured_at, file_id, witness_gen, line_no,
       machine_id,
       'copilot_cli:'||session_id||':'||witness_gen||':'||line_no||':'||seq AS turn_id,
       false AS is_meta,
       agent_id IS NOT NULL AS is_sidechain
FROM dialects.v_copilot_cli
WHERE role IN ('user', 'assistant');

-- Tool calls: an assistant.message's toolRequests, each joined to its tool.execution_complete
-- (success false is a failure). Legacy documents: an assistant message's tool_calls, with no
-- result line (the results are in the same document).
CREATE OR REPLACE VIEW derived.v_tool_calls_copilot_cli AS
WITH
  reqs AS (
    SELECT session_id, file_id, witness_gen, line_no, machine_id, event_time, agent_id, is_legacy_json,
           unnest(TRY(from_json(tool_requests, '[{"toolCallId":"VARCHAR","id":"VARCHAR","name":"VARCHAR",
             "arguments":"JSON","function":{"name":"VARCHAR","arguments":"JSON"}}]'))) AS q
    FROM dialects.v_copilot_cli
    WHERE role = 'assistant' AND json_type(tool_requests) = 'ARRAY'),
  done AS (
    SELECT file_id, witness_gen, tool_call_id, min(line_no) AS result_line_no,
           bool_or(success = false) AS failed, bool_or(success IS NOT NULL) AS said
    FROM dialects.v_copilot_cli WHERE ev_type = 'tool.execution_complete' AND tool_call_id IS NOT NULL
    GROUP BY ALL)
SELECT 'copilot-cli' AS agent, c.session_id, c.file_id, c.witness_gen, c.line_no, c.machine_id, c.event_time,
       coalesce(c.q.toolCallId, c.q.id) AS call_id,
       coalesce(c.q.name, c.q.function.name) AS tool_name,
       CASE WHEN json_type(coalesce(c.q.arguments, c.q.function.arguments)) = 'VARCHAR'
            THEN coalesce(c.q.arguments, c.q.function.arguments)->>'$'
            ELSE CAST(coalesce(c.q.arguments, c.q.function.arguments) AS VARCHAR) END AS arguments,
       d.result_line_no,
       CASE WHEN d.said THEN d.failed END AS is_error,
       c.agent_id IS NOT NULL AS is_sidechain
FROM reqs c
LEFT JOIN done d ON d.file_id = c.file_id AND d.witness_gen = c.witness_gen AND d.tool_call_id = c.q.toolCallId;

-- Usage: one session.usage_record per model call. Copilot's inputTokens counts the cached prompt
-- (read and written) too: input here is the rest, so the four add up to Copilot's total. The
-- shutdown event's per-model totals repeat these and are not read.
CREATE OR REPLACE VIEW derived.v_usage_lines_copilot_cli AS
WITH
  u AS (
    SELECT session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time,
           coalesce(usage->>'$.model', model) AS model,
           coalesce(TRY_CAST((usage->>'$.inputTokens') AS BIGINT), 0) AS t_in,
           coalesce(TRY_CAST((usage->>'$.outputTokens') AS BIGINT), 0) AS t_out,
           coalesce(TRY_CAST((usage->>'$.cacheReadTokens') AS BIGINT), 0) AS t_cr,
           coalesce(TRY_CAST((usage->>'$.cacheWriteTokens') AS BIGINT), 0) AS t_cw
    FROM dialects.v_copilot_cli
    WHERE ev_type = 'session.usage_record' AND json_type(usage) = 'OBJECT')
SELECT 'copilot-cli' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       NULL::VARCHAR AS message_id, NULL::VARCHAR AS request_id,
       greatest(t_in - t_cr - t_cw, 0) AS input_tokens,
       t_out AS output_tokens,
       t_cw AS cache_creation_tokens,
       t_cr AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM u;
