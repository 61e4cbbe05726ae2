-- OpenCode's views over its row records (kit/sqlite.ts: one JSONL line per row version, the last
-- version of each key is the row as it stands, a "del" line removes it; read with
-- dialects.rows_latest and row_col, kit/rows.sql). The macros here are shared with the agents
-- built on OpenCode (Kilo Code), whose views.sql is assembled after this one.

-- One row per message of an OpenCode-family session as it stands (deleted ones flagged), with the
-- text of its text parts (synthetic ones left out of user prompts), its model and its tokens.
CREATE OR REPLACE MACRO dialects.opencode_messages(lane_name) AS TABLE
WITH
  rows AS (SELECT * FROM dialects.rows_latest(lane_name)),
  msgs AS (
    SELECT file_id, witness_gen, line_no, byte_offset, captured_at, abs_path, session_hint, machine_id,
           op = 'del' AS deleted,
           dialects.row_col(cols, 'id') AS message_id,
           TRY_CAST(dialects.row_col(cols, 'time_created') AS BIGINT) AS t_ms,
           dialects.row_col(cols, 'data') AS data
    FROM rows WHERE tbl = 'message'),
  parts AS (
    SELECT file_id, witness_gen, dialects.row_col(cols, 'message_id') AS message_id,
           dialects.row_col(cols, 'id') AS part_id, dialects.row_col(cols, 'data') AS data
    FROM rows WHERE tbl = 'part' AND op = 'row'),
  texts AS (
    SELECT p.file_id, p.witness_gen, p.message_id,
           string_agg(json_extract_string(p.data, '$.text'), chr(10) || chr(10) ORDER BY p.part_id) AS text
    FROM parts p
    WHERE json_extract_string(p.data, '$.type') = 'text'
      AND coalesce(json_extract_string(p.data, '$.synthetic'), 'false') <> 'true'
    GROUP BY ALL)
SELECT m.file_id, m.witness_gen, m.line_no, m.byte_offset, m.abs_path, m.session_hint AS session_id,
       m.machine_id, m.captured_at, m.deleted, m.message_id,
       make_timestamptz(m.t_ms * 1000) AS event_time,
       json_extract_string(m.data, '$.role') AS role,
       json_extract_string(m.data, '$.modelID') AS model,
       json_extract_string(m.data, '$.path.cwd') AS cwd,
       TRY_CAST(json_extract_string(m.data, '$.tokens.input') AS BIGINT) AS input_tokens,
       TRY_CAST(json_extract_string(m.data, '$.tokens.output') AS BIGINT)
         + coalesce(TRY_CAST(json_extract_string(m.data, '$.tokens.reasoning') AS BIGINT), 0) AS output_tokens,
       TRY_CAST(json_extract_string(m.data, '$.tokens.cache.write') AS BIGINT) AS cache_creation_tokens,
       TRY_CAST(json_extract_string(m.data, '$.tokens.cache.read') AS BIGINT) AS cache_read_tokens,
       t.text
FROM msgs m LEFT JOIN texts t
  ON t.file_id = m.file_id AND t.witness_gen = m.witness_gen AND t.message_id = m.message_id;

-- Tool calls: the `tool` parts as they stand.
CREATE OR REPLACE MACRO dialects.opencode_tool_calls(lane_name, agent_name) AS TABLE
SELECT agent_name AS agent, r.session_hint AS session_id, r.file_id, r.witness_gen, r.line_no, r.machine_id,
       make_timestamptz(TRY_CAST(dialects.row_col(r.cols, 'time_created') AS BIGINT) * 1000) AS event_time,
       json_extract_string(dialects.row_col(r.cols, 'data'), '$.callID') AS call_id,
       json_extract_string(dialects.row_col(r.cols, 'data'), '$.tool') AS tool_name,
       CAST(json_extract(dialects.row_col(r.cols, 'data'), '$.state.input') AS VARCHAR) AS arguments,
       r.line_no AS result_line_no,
       json_extract_string(dialects.row_col(r.cols, 'data'), '$.state.status') = 'error' AS is_error,
       false AS is_sidechain
FROM dialects.rows_latest(lane_name) r
WHERE r.tbl = 'part' AND r.op = 'row' AND json_extract_string(dialects.row_col(r.cols, 'data'), '$.type') = 'tool';

-- Sessions: the project is the session row's directory.
CREATE OR REPLACE MACRO dialects.opencode_sessions(lane_name) AS TABLE
SELECT file_id, any_value(dialects.row_col(cols, 'directory')) AS project,
       any_value(dialects.row_col(cols, 'parent_id')) AS parent_session
FROM dialects.rows_latest(lane_name) WHERE tbl = 'session' AND op = 'row' GROUP BY file_id;

-- derived.messages' rows of an OpenCode-family lane: a deleted message (kept, marked) is no turn.
CREATE OR REPLACE MACRO dialects.opencode_message_rows(lane_name, agent_name) AS TABLE
SELECT lane_name||':'||session_id||':'||witness_gen||':'||line_no AS msg_id, agent_name AS agent, session_id,
       CASE WHEN deleted THEN 'system' ELSE role END AS role, model, text, event_time, captured_at, file_id,
       witness_gen, line_no, machine_id, CASE WHEN NOT deleted THEN lane_name||':'||session_id||':'||message_id END AS turn_id, deleted AS is_meta
FROM dialects.opencode_messages(lane_name) WHERE role IS NOT NULL;

-- derived.usage_lines' rows of an OpenCode-family lane: each live reply's tokens.
CREATE OR REPLACE MACRO dialects.opencode_usage_rows(lane_name, agent_name) AS TABLE
SELECT agent_name AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       message_id, NULL::VARCHAR AS request_id, input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM dialects.opencode_messages(lane_name) WHERE role = 'assistant' AND NOT deleted AND input_tokens IS NOT NULL;

CREATE OR REPLACE VIEW dialects.v_opencode AS SELECT * FROM dialects.opencode_messages('opencode');

CREATE OR REPLACE VIEW derived.v_sessions_opencode AS SELECT * FROM dialects.opencode_sessions('opencode');

CREATE OR REPLACE VIEW derived.v_messages_opencode AS SELECT * FROM dialects.opencode_message_rows('opencode', 'opencode');

CREATE OR REPLACE VIEW derived.v_tool_calls_opencode AS SELECT * FROM dialects.opencode_tool_calls('opencode', 'opencode');

CREATE OR REPLACE VIEW derived.v_usage_lines_opencode AS SELECT * FROM dialects.opencode_usage_rows('opencode', 'opencode');

-- Times: those of the session's messages (a row record's line has no time of its own).
CREATE OR REPLACE VIEW derived.v_clock_opencode AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_opencode GROUP BY file_id;
