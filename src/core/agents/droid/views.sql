-- Factory Droid's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql, which unions the derived.*_droid parts with every other agent's).

-- Factory Droid: one row per record of a sessions/<p>/<id>.jsonl, and one row per generation of
-- its <id>.settings.json (a pretty-printed document rewritten whole: its lines are joined and
-- parsed; the row has line_no 1 and line_to the document's last line, the span a citation can
-- check). A message's blocks are Anthropic-shaped (text, thinking, tool_use, tool_result).
CREATE OR REPLACE VIEW dialects.v_droid AS
WITH
  lines AS (
    SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at, r.raw_line,
           f.abs_path, f.session_hint, f.machine_id, regexp_matches(f.abs_path, '\.settings\.json$') AS is_settings
    FROM dialects.v_live r JOIN floor.files f USING (file_id)
    WHERE r.lane = 'droid'),
  recs AS (
    SELECT l.* EXCLUDE (raw_line, is_settings),
           unnest([TRY(from_json(l.raw_line, '{"type":"VARCHAR","id":"VARCHAR","parentId":"VARCHAR",
             "timestamp":"VARCHAR","title":"VARCHAR","cwd":"VARCHAR",
             "message":{"role":"VARCHAR","content":"JSON","modelId":"VARCHAR"}}'))]) AS j
    FROM lines l WHERE NOT l.is_settings),
  joined AS (
    SELECT file_id, witness_gen, any_value(abs_path) AS abs_path, any_value(session_hint) AS session_hint,
           any_value(machine_id) AS machine_id, min(byte_offset) AS byte_offset,
           max(captured_at) AS captured_at, max(line_no) AS line_to,
           string_agg(raw_line, chr(10) ORDER BY line_no) AS text
    FROM lines WHERE is_settings
    GROUP BY file_id, witness_gen)
SELECT
  file_id, witness_gen, line_no, abs_path, session_hint AS session_id,
  coalesce(event_time, TRY_CAST(j.timestamp AS TIMESTAMPTZ)) AS event_time, captured_at,
  j.type AS rec_type,
  j.message.role AS role,
  j.message.modelId AS model,
  j.message.content AS content,
  -- additions
  machine_id, byte_offset, line_no AS line_to,
  j.id AS record_id, j.parentId AS parent_id, j.cwd AS cwd, j.title AS title,
  NULL::JSON AS settings
FROM recs WHERE j IS NOT NULL
UNION ALL BY NAME
SELECT
  file_id, witness_gen, 1 AS line_no, abs_path, session_hint AS session_id,
  NULL::TIMESTAMPTZ AS event_time, captured_at,
  'settings' AS rec_type, NULL AS role,
  json_extract_string(TRY_CAST(text AS JSON), '$.model') AS model, NULL::JSON AS content,
  machine_id, byte_offset, line_to,
  NULL AS record_id, NULL AS parent_id, NULL AS cwd, NULL AS title,
  TRY_CAST(text AS JSON) AS settings
FROM joined;

-- Sessions: the project is session_start's cwd; a settings file, which names none, gets the label
-- its folder gives (the cwd with '/' made '-', read back with every '-' a '/').
CREATE OR REPLACE VIEW derived.v_sessions_droid AS
SELECT file_id,
       coalesce(arg_min(cwd, line_no) FILTER (WHERE rec_type = 'session_start' AND cwd IS NOT NULL),
                CASE WHEN bool_or(rec_type = 'settings')
                     THEN '/' || ltrim(replace(regexp_extract(any_value(abs_path), '/([^/]+)/[^/]+$', 1), '-', '/'), '/') END) AS project,
       NULL::VARCHAR AS parent_session
FROM dialects.v_droid GROUP BY file_id;

-- Messages: typed prompts (not the context Droid injects, whose record id starts with "context-",
-- nor the tool results that come back as user messages) and model replies.
CREATE OR REPLACE VIEW derived.v_messages_droid AS
SELECT 'droid:'||session_id||':'||witness_gen||':'||line_no AS msg_id,
       'factory-droid' AS agent, session_id, role,
       CASE WHEN role = 'assistant' THEN model END AS model,
       text, event_time, captured_at, file_id, witness_gen, line_no,
       machine_id,
       'droid:'||session_id||':'||witness_gen||':'||line_no AS turn_id,
       false AS is_meta
FROM (SELECT *,
             unnest([TRY(from_json(content, '[{"type":"VARCHAR","text":"VARCHAR"}]'))]) AS blocks
      FROM dialects.v_droid
      WHERE rec_type = 'message' AND role IN ('user', 'assistant')
        AND NOT (role = 'user' AND coalesce(starts_with(record_id, 'context-'), false))) m,
     LATERAL (SELECT CASE WHEN json_type(m.content) = 'VARCHAR' THEN m.content->>'$'
                          ELSE array_to_string(list_transform(list_filter(m.blocks, lambda b: b.type = 'text' AND b.text IS NOT NULL),
                                                              lambda b: b.text), chr(10) || chr(10)) END AS text) x
WHERE m.role = 'assistant' OR json_type(m.content) = 'VARCHAR'
   OR len(list_filter(m.blocks, lambda b: b.type = 'tool_result')) < len(m.blocks);

-- Tool calls: an assistant message's tool_use blocks, each joined to the tool_result block that
-- answers it (is_error as Droid wrote it).
CREATE OR REPLACE VIEW derived.v_tool_calls_droid AS
WITH
  uses AS (
    SELECT session_id, file_id, witness_gen, line_no, machine_id, event_time,
           unnest(TRY(from_json(content, '[{"type":"VARCHAR","id":"VARCHAR","name":"VARCHAR","input":"JSON"}]'))) AS b
    FROM dialects.v_droid
    WHERE rec_type = 'message' AND role = 'assistant' AND json_type(content) = 'ARRAY'),
  res AS (
    SELECT file_id, witness_gen, b.tool_use_id AS call_id, min(line_no) AS result_line_no,
           bool_or(coalesce(b.is_error, false)) AS is_error
    FROM (SELECT file_id, witness_gen, line_no,
                 unnest(TRY(from_json(content, '[{"type":"VARCHAR","tool_use_id":"VARCHAR","is_error":"BOOLEAN"}]'))) AS b
          FROM dialects.v_droid
          WHERE rec_type = 'message' AND role = 'user' AND json_type(content) = 'ARRAY')
    WHERE b.type = 'tool_result'
    GROUP BY ALL)
SELECT 'factory-droid' AS agent, u.session_id, u.file_id, u.witness_gen, u.line_no, u.machine_id, u.event_time,
       u.b.id AS call_id, u.b.name AS tool_name, CAST(u.b.input AS VARCHAR) AS arguments,
       r.result_line_no, r.is_error, false AS is_sidechain
FROM uses u
LEFT JOIN res r ON r.file_id = u.file_id AND r.witness_gen = u.witness_gen AND r.call_id = u.b.id
WHERE u.b.type = 'tool_use';

-- Usage: the settings file's tokenUsage, the session's totals so far (Droid keeps input apart
-- from the cache reads and writes). Each generation holds the totals at its time, so only the
-- newest generation of the file counts; thinkingTokens is not added to output (Droid reports it
-- beside outputTokens, which providers already count it in).
CREATE OR REPLACE VIEW derived.v_usage_lines_droid AS
SELECT 'factory-droid' AS agent, d.session_id, d.file_id, d.witness_gen, d.line_no, d.machine_id, d.abs_path,
       d.captured_at AS event_time, d.model,
       NULL::VARCHAR AS message_id, NULL::VARCHAR AS request_id,
       coalesce(TRY_CAST((d.settings->>'$.tokenUsage.inputTokens') AS BIGINT), 0) AS input_tokens,
       coalesce(TRY_CAST((d.settings->>'$.tokenUsage.outputTokens') AS BIGINT), 0) AS output_tokens,
       coalesce(TRY_CAST((d.settings->>'$.tokenUsage.cacheCreationTokens') AS BIGINT), 0) AS cache_creation_tokens,
       coalesce(TRY_CAST((d.settings->>'$.tokenUsage.cacheReadTokens') AS BIGINT), 0) AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts,
       d.witness_gen = max(d.witness_gen) OVER (PARTITION BY d.file_id) AS counted
FROM dialects.v_droid d
WHERE d.rec_type = 'settings' AND json_type(d.settings, '$.tokenUsage') = 'OBJECT';
