-- Qwen Code's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql, which unions the derived.*_qwen parts with every other agent's).

-- Qwen Code: one row per record of a projects/<p>/chats/<id>.jsonl (a tree by uuid/parentUuid),
-- and one per message of a legacy tmp/<hash>/chats/*.json (a document rewritten whole: its lines
-- are joined and parsed, and every row has line_no 1 and line_to the document's last line, the
-- span a citation can check). parts holds the Gemini-shaped parts (text, thought, functionCall,
-- functionResponse); a legacy message's content and toolCalls are mapped onto the same columns.
CREATE OR REPLACE VIEW dialects.v_qwen AS
WITH
  lines AS (
    SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at, r.raw_line,
           f.abs_path, f.session_hint, f.machine_id, regexp_matches(f.abs_path, '\.json$') AS legacy
    FROM dialects.v_live r JOIN floor.files f USING (file_id)
    WHERE r.lane = 'qwen'),
  recs AS (
    SELECT l.* EXCLUDE (raw_line, legacy),
           unnest([TRY(from_json(l.raw_line, '{"uuid":"VARCHAR","parentUuid":"VARCHAR","sessionId":"VARCHAR",
             "timestamp":"VARCHAR","type":"VARCHAR","subtype":"VARCHAR","cwd":"VARCHAR","model":"VARCHAR",
             "message":{"role":"VARCHAR","parts":"JSON"},"usageMetadata":"JSON",
             "toolCallResult":{"callId":"VARCHAR","status":"VARCHAR"},"systemPayload":"JSON"}'))]) AS j
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
           TRY(from_json(text, '{"sessionId":"VARCHAR","messages":[{"id":"VARCHAR","type":"VARCHAR",
             "timestamp":"VARCHAR","content":"JSON","model":"VARCHAR","tokens":"JSON","toolCalls":"JSON"}]}')) AS doc
    FROM joined),
  legacy AS (
    SELECT d.*, unnest(range(1, len(d.doc.messages) + 1)) AS idx
    FROM docs d WHERE d.doc IS NOT NULL AND len(d.doc.messages) > 0)
SELECT
  file_id, witness_gen, line_no, abs_path, session_hint AS session_id,
  coalesce(event_time, TRY_CAST(j.timestamp AS TIMESTAMPTZ)) AS event_time, captured_at,
  j.type AS rec_type, j.subtype AS subtype,
  CASE WHEN j.type = 'user' AND coalesce(j.subtype, 'mid_turn_user_message') = 'mid_turn_user_message' THEN 'user'
       WHEN j.type = 'assistant' THEN 'assistant'
       WHEN j.type = 'tool_result' THEN 'tool'
       ELSE 'system' END AS role,
  j.model AS model,
  j.message.parts AS parts,
  -- additions
  machine_id, byte_offset, line_no AS line_to, line_no AS seq, false AS is_legacy_json,
  j.uuid AS uuid, j.parentUuid AS parent_uuid, j.cwd AS cwd,
  j.usageMetadata AS usage,
  j.toolCallResult.callId AS tool_call_id, j.toolCallResult.status AS tool_status,
  j.systemPayload AS system_payload,
  NULL::JSON AS tool_calls
FROM recs WHERE j IS NOT NULL
UNION ALL BY NAME
SELECT
  file_id, witness_gen, 1 AS line_no, abs_path, session_hint AS session_id,
  TRY_CAST(doc.messages[idx].timestamp AS TIMESTAMPTZ) AS event_time, captured_at,
  doc.messages[idx].type AS rec_type, NULL AS subtype,
  CASE WHEN doc.messages[idx].type = 'user' THEN 'user'
       WHEN doc.messages[idx].type IN ('gemini', 'qwen', 'model') THEN 'assistant'
       ELSE 'system' END AS role,
  doc.messages[idx].model AS model,
  CASE WHEN json_type(doc.messages[idx].content) = 'VARCHAR'
       THEN CAST(json_array(json_object('text', doc.messages[idx].content->>'$')) AS JSON)
       ELSE doc.messages[idx].content END AS parts,
  machine_id, byte_offset, line_to, idx AS seq, true AS is_legacy_json,
  doc.messages[idx].id AS uuid, NULL AS parent_uuid, NULL AS cwd,
  -- a legacy message's tokens, in usageMetadata's names
  CASE WHEN json_type(doc.messages[idx].tokens) = 'OBJECT' THEN
    CAST(json_object('promptTokenCount', doc.messages[idx].tokens->'$.input',
                     'candidatesTokenCount', doc.messages[idx].tokens->'$.output',
                     'cachedContentTokenCount', doc.messages[idx].tokens->'$.cached') AS JSON) END AS usage,
  NULL AS tool_call_id, NULL AS tool_status, NULL::JSON AS system_payload,
  doc.messages[idx].toolCalls AS tool_calls
FROM legacy;

-- Sessions: the project is the working directory the records name (the first that does).
CREATE OR REPLACE VIEW derived.v_sessions_qwen AS
SELECT file_id,
       arg_min(cwd, line_no) FILTER (WHERE cwd IS NOT NULL) AS project,
       NULL::VARCHAR AS parent_session
FROM dialects.v_qwen GROUP BY file_id;

-- Messages: typed prompts and model replies; the text is the parts' text (thought parts left out).
CREATE OR REPLACE VIEW derived.v_messages_qwen AS
SELECT 'qwen:'||session_id||':'||witness_gen||':'||line_no||':'||seq AS msg_id,
       'qwen-code' AS agent, session_id, role,
       CASE WHEN role = 'assistant' THEN model END AS model,
       text, event_time, captured_at, file_id, witness_gen, line_no,
       machine_id,
       'qwen:'||session_id||':'||witness_gen||':'||line_no||':'||seq AS turn_id,
       false AS is_meta
FROM (SELECT *,
             CASE WHEN json_type(parts) = 'VARCHAR' THEN parts->>'$'
                  ELSE array_to_string(list_transform(
                         list_filter(TRY(from_json(parts, '[{"text":"VARCHAR","thought":"BOOLEAN"}]')),
                                     lambda p: p.text IS NOT NULL AND NOT coalesce(p.thought, false)),
                         lambda p: p.text), chr(10) || chr(10)) END AS text
      FROM dialects.v_qwen
      WHERE role IN ('user', 'assistant'));

-- Tool calls: an assistant record's functionCall parts, each joined to the tool_result record
-- that answers it (toolCallResult.callId; status error is a failure). Legacy documents: a
-- message's toolCalls (their results are inside the same document).
CREATE OR REPLACE VIEW derived.v_tool_calls_qwen AS
WITH
  calls AS (
    SELECT session_id, file_id, witness_gen, line_no, machine_id, event_time,
           unnest(TRY(from_json(parts, '[{"functionCall":{"id":"VARCHAR","name":"VARCHAR","args":"JSON"}}]'))) AS p
    FROM dialects.v_qwen
    WHERE role = 'assistant' AND NOT is_legacy_json AND json_type(parts) = 'ARRAY'),
  legacy_calls AS (
    SELECT session_id, file_id, witness_gen, line_no, machine_id, event_time,
           unnest(TRY(from_json(tool_calls, '[{"id":"VARCHAR","name":"VARCHAR","args":"JSON","status":"VARCHAR"}]'))) AS c
    FROM dialects.v_qwen
    WHERE is_legacy_json AND json_type(tool_calls) = 'ARRAY'),
  results AS (
    SELECT file_id, witness_gen, tool_call_id, min(line_no) AS result_line_no,
           bool_or(tool_status = 'error') AS failed, bool_or(tool_status IS NOT NULL) AS said
    FROM dialects.v_qwen WHERE rec_type = 'tool_result' AND tool_call_id IS NOT NULL
    GROUP BY ALL)
SELECT 'qwen-code' AS agent, c.session_id, c.file_id, c.witness_gen, c.line_no, c.machine_id, c.event_time,
       c.p.functionCall.id AS call_id, c.p.functionCall.name AS tool_name,
       CAST(c.p.functionCall.args AS VARCHAR) AS arguments,
       r.result_line_no, CASE WHEN r.said THEN r.failed END AS is_error, false AS is_sidechain
FROM calls c
LEFT JOIN results r ON r.file_id = c.file_id AND r.witness_gen = c.witness_gen AND r.tool_call_id = c.p.functionCall.id
WHERE c.p.functionCall IS NOT NULL
UNION ALL BY NAME
SELECT 'qwen-code' AS agent, session_id, file_id, witness_gen, line_no, machine_id, event_time,
       c.id AS call_id, c.name AS tool_name, CAST(c.args AS VARCHAR) AS arguments,
       NULL::INTEGER AS result_line_no,
       CASE WHEN c.status IS NOT NULL THEN c.status = 'error' END AS is_error, false AS is_sidechain
FROM legacy_calls;

-- Usage: an assistant record's usageMetadata (Gemini's names). promptTokenCount counts the cached
-- prompt too: input here is the rest. candidatesTokenCount is the whole completion (Qwen fills it
-- with an OpenAI-compatible API's completion_tokens, reasoning included), so thoughts are not
-- added again.
CREATE OR REPLACE VIEW derived.v_usage_lines_qwen AS
WITH
  u AS (
    SELECT session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
           coalesce(TRY_CAST((usage->>'$.promptTokenCount') AS BIGINT), 0) AS t_prompt,
           coalesce(TRY_CAST((usage->>'$.candidatesTokenCount') AS BIGINT), 0) AS t_out,
           coalesce(TRY_CAST((usage->>'$.cachedContentTokenCount') AS BIGINT), 0) AS t_cached
    FROM dialects.v_qwen
    WHERE role = 'assistant' AND json_type(usage) = 'OBJECT')
SELECT 'qwen-code' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       NULL::VARCHAR AS message_id, NULL::VARCHAR AS request_id,
       greatest(t_prompt - t_cached, 0) AS input_tokens,
       t_out AS output_tokens,
       0::BIGINT AS cache_creation_tokens,
       t_cached AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM u;
