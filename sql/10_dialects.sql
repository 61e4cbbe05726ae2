-- The dialect views: each one alone knows one agent's vocabulary and projects floor lines into a
-- common shape. The columns named in the floor document come first, in its order and with its
-- meaning; the columns after `-- additions` are this project's (tool calls, usage, project,
-- machine). Each line is parsed once: TRY(from_json(line, shape)) reads every field the view
-- needs into a struct in one pass (3x faster than json_extract with a list of paths, measured),
-- and is NULL for a line that is not JSON, which is how the document's json_valid() filter is
-- kept. Fields that are JSON in the shape stay JSON text (content, usage, arguments, ...).
-- The struct is produced through unnest([...]): DuckDB does not push a filter below an unnest,
-- whereas it copies the from_json call into every pushed-down condition on its fields (one full
-- parse per condition: 10x slower, measured).

CREATE SCHEMA IF NOT EXISTS dialects;
CREATE SCHEMA IF NOT EXISTS derived;

-- latest-generation floor rows only
-- (Addition: while the program re-derives some files it sets the variable brain_refresh_files to
-- their file_ids, so every view above reads only those files' lines; DuckDB cannot push such a
-- filter given from outside through the views' windows and unnests. Unset, as in every query a
-- user can run, the filter passes every file.)
CREATE OR REPLACE VIEW dialects.v_live AS
SELECT r.* FROM floor.raw_lines r
JOIN floor.ingest_state s ON s.file_id = r.file_id AND s.witness_gen = r.witness_gen
WHERE r.file_id IN (SELECT unnest(coalesce(getvariable('brain_refresh_files'),
                                          (SELECT list(file_id) FROM floor.ingest_state))));

-- Claude Code: one content block per line; the lines of one reply share message.id + requestId
-- and repeat the same usage.
CREATE OR REPLACE VIEW dialects.v_cc AS
SELECT
  q.file_id, q.witness_gen, q.line_no, q.abs_path, q.session_hint AS session_id,
  q.event_time, q.captured_at,
  q.j.type                                  AS ev_type,
  q.j.message.role                          AS role,
  q.j.message.model                         AS model,
  q.j.message.content                       AS content,
  TRY_CAST(q.j.isSidechain AS BOOLEAN)      AS is_sidechain,
  q.j.cwd                                   AS cwd,
  -- additions
  q.machine_id, q.byte_offset, q.raw_line,
  q.j.sessionId                             AS line_session_id,
  q.j.uuid                                  AS uuid,
  q.j.parentUuid                            AS parent_uuid,
  q.j.message.id                            AS message_id,
  q.j.requestId                             AS request_id,
  coalesce(TRY_CAST(q.j.isMeta AS BOOLEAN), false)           AS is_meta,
  coalesce(TRY_CAST(q.j.isCompactSummary AS BOOLEAN), false) AS is_compact_summary,
  q.j.agentId                               AS agent_id,
  q.j.subtype                               AS subtype,
  q.j.gitBranch                             AS git_branch,
  q.j.version                               AS version,
  q.j.message.stop_reason                   AS stop_reason,
  q.j.message.usage                         AS usage,
  q.j."timestamp"                           AS timestamp_text
FROM (SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at,
             r.raw_line, f.abs_path, f.session_hint, f.machine_id,
             unnest([TRY(from_json(r.raw_line, '{"type":"VARCHAR","cwd":"VARCHAR","sessionId":"VARCHAR",
               "uuid":"VARCHAR","parentUuid":"VARCHAR","requestId":"VARCHAR","isSidechain":"VARCHAR",
               "isMeta":"VARCHAR","isCompactSummary":"VARCHAR","agentId":"VARCHAR","subtype":"VARCHAR",
               "gitBranch":"VARCHAR","version":"VARCHAR","timestamp":"VARCHAR",
               "message":{"role":"VARCHAR","model":"VARCHAR","id":"VARCHAR","stop_reason":"VARCHAR",
                          "content":"JSON","usage":"JSON"}}'))]) AS j
      FROM dialects.v_live r JOIN floor.files f USING (file_id)
      WHERE r.agent = 'cc') q
WHERE q.j IS NOT NULL;

-- Codex rollouts: {timestamp,type,payload} envelopes; the early Rust files wrote bare items
-- without the envelope, for which the line itself is the body (envelope_type is then the item's
-- own type and is_bare is true).
CREATE OR REPLACE VIEW dialects.v_codex AS
SELECT
  q.file_id, q.witness_gen, q.line_no, q.abs_path, q.session_hint AS session_id,
  coalesce(q.event_time, TRY_CAST(q.j."timestamp" AS TIMESTAMPTZ)) AS event_time,
  q.captured_at,
  q.j.type                                             AS envelope_type,
  CASE WHEN q.j.payload IS NULL THEN q.j.type ELSE q.j.payload.type END AS body_type,
  coalesce(q.j.payload.role, q.j.role)                 AS role,
  coalesce(q.j.payload.content, q.j.content)           AS content,
  -- additions
  q.machine_id, q.byte_offset,
  q.j.payload IS NULL                                  AS is_bare,
  last_value(CASE WHEN q.j.type = 'turn_context' THEN q.j.payload.model END IGNORE NULLS)
    OVER (PARTITION BY q.file_id, q.witness_gen ORDER BY q.line_no
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS model,
  coalesce(q.j.payload.cwd, q.j.cwd)                   AS cwd,
  coalesce(q.j.payload.name, q.j.name)                 AS call_name,
  coalesce(q.j.payload.call_id, q.j.call_id)           AS call_id,
  coalesce(q.j.payload.arguments, q.j.arguments)       AS call_arguments,
  q.j.payload.output                                   AS call_output,
  q.j.payload.info                                     AS token_info,
  q.j.payload.exit_code                                AS exit_code_json,
  q.j.payload.success                                  AS success_json,
  q.j.payload.result                                   AS mcp_result,
  q.j.payload.phase                                    AS phase,
  q.j.payload.source                                   AS source_json,
  q.j.payload.id                                       AS meta_id,
  q.j.payload.input                                    AS call_input
FROM (SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at,
             f.abs_path, f.session_hint, f.machine_id,
             unnest([TRY(from_json(r.raw_line, '{"timestamp":"VARCHAR","type":"VARCHAR",
               "payload":{"type":"VARCHAR","role":"VARCHAR","content":"JSON","model":"VARCHAR",
                          "cwd":"VARCHAR","name":"VARCHAR","call_id":"VARCHAR","arguments":"JSON",
                          "output":"JSON","info":"JSON","exit_code":"JSON","success":"JSON",
                          "result":"JSON","phase":"VARCHAR","source":"JSON","id":"VARCHAR","input":"JSON"},
               "role":"VARCHAR","content":"JSON","cwd":"VARCHAR","name":"VARCHAR","call_id":"VARCHAR",
               "arguments":"JSON"}'))]) AS j
      FROM dialects.v_live r JOIN floor.files f USING (file_id)
      WHERE r.agent = 'codex') q
WHERE q.j IS NOT NULL;

-- Pi: one complete message per line, a tree by id/parentId; the model is the last model_change
-- (or the v1 header's modelId) before the line; message_model is the message's own.
CREATE OR REPLACE VIEW dialects.v_pi AS
SELECT
  q.file_id, q.witness_gen, q.line_no, q.abs_path, q.session_hint AS session_id,
  q.event_time, q.captured_at, q.j.type AS ev_type,
  last_value(CASE WHEN q.j.type IN ('model_change', 'session') THEN q.j.modelId END IGNORE NULLS)
    OVER (PARTITION BY q.file_id, q.witness_gen ORDER BY q.line_no
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS model,
  q.j.message.role                       AS role,
  q.j.message.content                    AS content,
  -- additions
  q.machine_id, q.byte_offset,
  q.j.message.model                      AS message_model,
  q.j.id                                 AS entry_id,
  q.j.parentId                           AS parent_id,
  q.j.cwd                                AS cwd,
  q.j.message.usage                      AS usage,
  q.j.message.stopReason                 AS stop_reason,
  q.j.message.toolCallId                 AS tool_call_id,
  q.j.message.toolName                   AS tool_name,
  TRY_CAST(q.j.message.isError AS BOOLEAN) AS is_error
FROM (SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at,
             f.abs_path, f.session_hint, f.machine_id,
             unnest([TRY(from_json(r.raw_line, '{"type":"VARCHAR","modelId":"VARCHAR","id":"VARCHAR",
               "parentId":"VARCHAR","cwd":"VARCHAR",
               "message":{"role":"VARCHAR","content":"JSON","model":"VARCHAR","usage":"JSON",
                          "stopReason":"VARCHAR","toolCallId":"VARCHAR","toolName":"VARCHAR",
                          "isError":"VARCHAR"}}'))]) AS j
      FROM dialects.v_live r JOIN floor.files f USING (file_id)
      WHERE r.agent = 'pi') q
WHERE q.j IS NOT NULL;

-- cursor-agent JSONL transcripts: {"role", "message":{"content":[...]}} and nothing else: no
-- clock, no ids, no model, no usage. The project is only the folder slug (lossy: '/' and '.' both
-- became '-'). The .txt transcripts are not JSON and stay floor rows only.
CREATE OR REPLACE VIEW dialects.v_cursor AS
SELECT
  q.file_id, q.witness_gen, q.line_no, q.abs_path, q.session_hint AS session_id,
  q.event_time, q.captured_at,
  q.j.role                               AS role,
  q.j.message.content                    AS content,
  -- additions
  q.machine_id, q.byte_offset,
  regexp_extract(q.abs_path, '/projects/([^/]+)/agent-transcripts/', 1) AS project_slug
FROM (SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at,
             f.abs_path, f.session_hint, f.machine_id,
             unnest([TRY(from_json(r.raw_line, '{"role":"VARCHAR","message":{"content":"JSON"}}'))]) AS j
      FROM dialects.v_live r JOIN floor.files f USING (file_id)
      WHERE r.agent = 'cursor') q
WHERE q.j IS NOT NULL;
