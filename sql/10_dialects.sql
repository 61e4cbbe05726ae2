-- The dialect views: each one alone knows one agent's vocabulary and projects floor lines into a
-- common shape. The columns named in the floor document come first, in its order and with its
-- meaning; the columns after `-- additions` are this project's extensions (tool calls, usage,
-- project, machine). Each view parses a line once: json_extract with a list of paths returns all
-- the fields from one parse, and x[i]->>'$' turns one of them into text.

CREATE SCHEMA IF NOT EXISTS dialects;
CREATE SCHEMA IF NOT EXISTS derived;

-- latest-generation floor rows only
CREATE OR REPLACE VIEW dialects.v_live AS
SELECT r.* FROM floor.raw_lines r
JOIN floor.ingest_state s ON s.file_id = r.file_id AND s.witness_gen = r.witness_gen;

-- Claude Code: one content block per line; the lines of one reply share message.id + requestId
-- and repeat the same usage.
CREATE OR REPLACE VIEW dialects.v_cc AS
SELECT
  q.file_id, q.witness_gen, q.line_no, q.abs_path, q.session_hint AS session_id,
  q.event_time, q.captured_at,
  (q.x[1]->>'$')                              AS ev_type,
  (q.x[2]->>'$')                              AS role,
  (q.x[3]->>'$')                              AS model,
  q.x[4]                                    AS content,
  TRY_CAST((q.x[5]->>'$') AS BOOLEAN)         AS is_sidechain,
  (q.x[6]->>'$')                              AS cwd,
  -- additions
  q.machine_id, q.byte_offset,
  (q.x[7]->>'$')                              AS line_session_id,
  (q.x[8]->>'$')                              AS uuid,
  (q.x[9]->>'$')                              AS parent_uuid,
  (q.x[10]->>'$')                             AS message_id,
  (q.x[11]->>'$')                             AS request_id,
  coalesce(TRY_CAST((q.x[12]->>'$') AS BOOLEAN), false) AS is_meta,
  coalesce(TRY_CAST((q.x[13]->>'$') AS BOOLEAN), false) AS is_compact_summary,
  (q.x[14]->>'$')                             AS agent_id,
  (q.x[15]->>'$')                             AS subtype,
  (q.x[16]->>'$')                             AS git_branch,
  (q.x[17]->>'$')                             AS version,
  (q.x[18]->>'$')                             AS stop_reason,
  q.x[19]                                   AS usage,
  q.x[20]                                   AS timestamp_json,
  q.x[21]                                   AS cost_usd_json,
  q.x[22]                                   AS is_api_error_json
FROM (SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at,
             f.abs_path, f.session_hint, f.machine_id,
             json_extract(r.raw_line, ['$.type', '$.message.role', '$.message.model', '$.message.content',
               '$.isSidechain', '$.cwd', '$.sessionId', '$.uuid', '$.parentUuid', '$.message.id',
               '$.requestId', '$.isMeta', '$.isCompactSummary', '$.agentId', '$.subtype', '$.gitBranch',
               '$.version', '$.message.stop_reason', '$.message.usage', '$.timestamp', '$.costUSD',
               '$.isApiErrorMessage']) AS x
      FROM dialects.v_live r JOIN floor.files f USING (file_id)
      WHERE r.agent = 'cc' AND json_valid(r.raw_line)) q;

-- Codex rollouts: {timestamp,type,payload} envelopes; the early Rust files wrote bare items
-- without the envelope, for which the line itself is the body (envelope_type is then the item's
-- own type and is_bare is true).
CREATE OR REPLACE VIEW dialects.v_codex AS
SELECT
  q.file_id, q.witness_gen, q.line_no, q.abs_path, q.session_hint AS session_id,
  coalesce(q.event_time, TRY_CAST((q.x[1]->>'$') AS TIMESTAMPTZ)) AS event_time,
  q.captured_at,
  (q.x[2]->>'$')                                         AS envelope_type,
  CASE WHEN q.x[3] IS NULL THEN (q.x[2]->>'$') ELSE (q.x[4]->>'$') END AS body_type,
  coalesce(q.x[5], q.x[17])->>'$'                      AS role,
  coalesce(q.x[6], q.x[18])                            AS content,
  -- additions
  q.machine_id, q.byte_offset,
  q.x[3] IS NULL                                       AS is_bare,
  last_value(CASE WHEN (q.x[2]->>'$') = 'turn_context' THEN (q.x[7]->>'$') END IGNORE NULLS)
    OVER (PARTITION BY q.file_id, q.witness_gen ORDER BY q.line_no
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS model,
  coalesce(q.x[8], q.x[19])->>'$'                      AS cwd,
  coalesce(q.x[9], q.x[20])->>'$'                      AS call_name,
  coalesce(q.x[10], q.x[21])->>'$'                     AS call_id,
  coalesce(q.x[11], q.x[22])                           AS call_arguments,
  q.x[12]                                              AS call_output,
  q.x[13]                                              AS token_info,
  q.x[14]                                              AS exit_code_json,
  q.x[15]                                              AS success_json,
  q.x[16]                                              AS mcp_result,
  (q.x[23]->>'$')                                        AS phase,
  q.x[24]                                              AS source_json,
  (q.x[25]->>'$')                                        AS meta_id,
  q.x[26]                                              AS call_input
FROM (SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at,
             f.abs_path, f.session_hint, f.machine_id,
             json_extract(r.raw_line, [
               '$.timestamp', '$.type', '$.payload', '$.payload.type', '$.payload.role',      -- 1..5
               '$.payload.content', '$.payload.model', '$.payload.cwd', '$.payload.name',      -- 6..9
               '$.payload.call_id', '$.payload.arguments', '$.payload.output',                 -- 10..12
               '$.payload.info', '$.payload.exit_code', '$.payload.success', '$.payload.result', -- 13..16
               '$.role', '$.content', '$.cwd', '$.name', '$.call_id', '$.arguments',            -- 17..22
               '$.payload.phase', '$.payload.source', '$.payload.id', '$.payload.input']) AS x  -- 23..26
      FROM dialects.v_live r JOIN floor.files f USING (file_id)
      WHERE r.agent = 'codex' AND json_valid(r.raw_line)) q;

-- Pi: one complete message per line, a tree by id/parentId; the model is the message's own,
-- else the last model_change (or the v1 header's modelId) before it.
CREATE OR REPLACE VIEW dialects.v_pi AS
SELECT
  q.file_id, q.witness_gen, q.line_no, q.abs_path, q.session_hint AS session_id,
  q.event_time, q.captured_at, q.ev_type,
  last_value(CASE WHEN q.ev_type = 'model_change' OR q.ev_type = 'session'
             THEN (q.x[1]->>'$') END IGNORE NULLS)
    OVER (PARTITION BY q.file_id, q.witness_gen ORDER BY q.line_no
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS model,
  (q.x[2]->>'$')                           AS role,
  q.x[3]                                 AS content,
  -- additions
  q.machine_id, q.byte_offset,
  (q.x[4]->>'$')                           AS message_model,
  (q.x[5]->>'$')                           AS entry_id,
  (q.x[6]->>'$')                           AS parent_id,
  (q.x[7]->>'$')                           AS cwd,
  q.x[8]                                 AS usage,
  (q.x[9]->>'$')                           AS stop_reason,
  (q.x[10]->>'$')                          AS tool_call_id,
  (q.x[11]->>'$')                          AS tool_name,
  TRY_CAST((q.x[12]->>'$') AS BOOLEAN)     AS is_error
FROM (SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at,
             f.abs_path, f.session_hint, f.machine_id,
             json_extract_string(r.raw_line, '$.type') AS ev_type,
             json_extract(r.raw_line, ['$.modelId', '$.message.role', '$.message.content',
               '$.message.model', '$.id', '$.parentId', '$.cwd', '$.message.usage',
               '$.message.stopReason', '$.message.toolCallId', '$.message.toolName',
               '$.message.isError']) AS x
      FROM dialects.v_live r JOIN floor.files f USING (file_id)
      WHERE r.agent = 'pi' AND json_valid(r.raw_line)) q;

-- cursor-agent JSONL transcripts: {"role", "message":{"content":[...]}} and nothing else: no
-- clock, no ids, no model, no usage. The project is only the folder slug (lossy: '/' and '.' both
-- became '-'). The .txt transcripts are not JSON and stay floor rows only.
CREATE OR REPLACE VIEW dialects.v_cursor AS
SELECT
  q.file_id, q.witness_gen, q.line_no, q.abs_path, q.session_hint AS session_id,
  q.event_time, q.captured_at,
  (q.x[1]->>'$')                           AS role,
  q.x[2]                                 AS content,
  -- additions
  q.machine_id, q.byte_offset,
  regexp_extract(q.abs_path, '/projects/([^/]+)/agent-transcripts/', 1) AS project_slug
FROM (SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at,
             f.abs_path, f.session_hint, f.machine_id,
             json_extract(r.raw_line, ['$.role', '$.message.content']) AS x
      FROM dialects.v_live r JOIN floor.files f USING (file_id)
      WHERE r.agent = 'cursor' AND json_valid(r.raw_line)) q;
