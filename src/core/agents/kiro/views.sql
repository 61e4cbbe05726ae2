-- Kiro CLI's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql). A Kiro lake file is one conversation's row records: each version of its
-- conversations_v2 row (Kiro CLI) or conversations row (Amazon Q CLI), `value` the whole
-- ConversationState JSON. The conversation shown is the row's latest version. Kiro records no
-- token counts: no usage lines.

CREATE OR REPLACE MACRO dialects.rowrec_cell(cols, name) AS list_filter(cols, lambda c: (c->>'$[0]') = name)[1];
CREATE OR REPLACE MACRO dialects.rowrec_text(cols, name) AS
  CASE (dialects.rowrec_cell(cols, name)->>'$[1]')
    WHEN 'blob' THEN TRY(decode(from_base64(dialects.rowrec_cell(cols, name)->>'$[2]')))
    WHEN 'text-b64' THEN TRY(decode(from_base64(dialects.rowrec_cell(cols, name)->>'$[2]')))
    WHEN 'null' THEN NULL
    ELSE dialects.rowrec_cell(cols, name)->>'$[2]' END;

CREATE OR REPLACE VIEW dialects.v_kiro AS
WITH
  l AS (
    SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.captured_at, f.abs_path, f.session_hint, f.machine_id,
           unnest([TRY(from_json(r.raw_line, '{"op":"VARCHAR","table":"VARCHAR","key":"JSON","cols":"JSON[]"}'))]) AS j
    FROM dialects.v_live r JOIN floor.files f USING (file_id)
    WHERE r.lane = 'kiro'),
  v AS (
    SELECT l.* EXCLUDE (j), j.op AS op, j."table" AS table_name, CAST(j.key AS VARCHAR) AS row_key, j.cols AS cols
    FROM l WHERE j IS NOT NULL AND j.op IN ('row', 'del'))
SELECT
  file_id, witness_gen, line_no, abs_path, session_hint AS session_id,
  to_timestamp(TRY_CAST(dialects.rowrec_text(cols, 'updated_at') AS BIGINT) / 1000) AS event_time,
  captured_at, op, table_name, row_key, cols,
  -- additions
  machine_id, byte_offset,
  dialects.rowrec_text(cols, 'key') AS folder,
  TRY_CAST(dialects.rowrec_text(cols, 'value') AS JSON) AS state,
  op = 'row' AND line_no = max(CASE WHEN op = 'row' THEN line_no END) OVER w_kiro AS is_current,
  arg_max(op, line_no) OVER w_kiro = 'del' AS is_deleted
FROM v
WINDOW w_kiro AS (PARTITION BY file_id, witness_gen, table_name, row_key);

-- The project: the working directory the first prompt reported, else the row's folder key.
CREATE OR REPLACE VIEW derived.v_sessions_kiro AS
SELECT file_id,
       any_value(coalesce(state->>'$.history[0].user.env_context.env_state.current_working_directory', folder)) AS project,
       NULL::VARCHAR AS parent_session
FROM dialects.v_kiro
WHERE is_current
GROUP BY file_id;

-- Messages: per history entry its prompt (a user entry that only returns tool results is none)
-- and its reply.
CREATE OR REPLACE VIEW derived.v_messages_kiro AS
WITH
  h AS (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, captured_at,
           coalesce(state->>'$.model_info.model_id', state->>'$.model') AS conv_model,
           unnest(range(0, CAST(coalesce(json_array_length(state->'$.history'), 0) AS BIGINT))) AS idx, state
    FROM dialects.v_kiro WHERE is_current AND state IS NOT NULL),
  e AS (
    SELECT h.* EXCLUDE (state), state->'$.history'->(CAST(idx AS INTEGER)) AS e FROM h),
  msgs AS (
    SELECT *, 'user' AS role, 0 AS part,
           coalesce(e->>'$.user.content.Prompt.prompt', e->>'$.user.content.CancelledToolUses.prompt') AS text,
           coalesce(TRY_CAST((e->>'$.user.timestamp') AS TIMESTAMPTZ), to_timestamp(TRY_CAST((e->>'$.request_metadata.request_start_timestamp_ms') AS BIGINT) / 1000)) AS event_time,
           NULL::VARCHAR AS model
    FROM e
    UNION ALL BY NAME
    SELECT *, 'assistant' AS role, 1 AS part,
           coalesce(e->>'$.assistant.Response.content', e->>'$.assistant.ToolUse.content') AS text,
           coalesce(to_timestamp(TRY_CAST((e->>'$.request_metadata.stream_end_timestamp_ms') AS BIGINT) / 1000), TRY_CAST((e->>'$.user.timestamp') AS TIMESTAMPTZ)) AS event_time,
           coalesce(e->>'$.request_metadata.model_id', conv_model) AS model
    FROM e WHERE (e->'$.assistant.Response') IS NOT NULL OR (e->'$.assistant.ToolUse') IS NOT NULL)
SELECT 'kiro:'||session_id||':'||witness_gen||':'||line_no||':'||idx||':'||part AS msg_id,
       'kiro-cli' AS agent, session_id, role, model, trim(text) AS text, event_time, captured_at,
       file_id, witness_gen, line_no, machine_id,
       CASE WHEN role = 'user' AND text IS NULL THEN NULL ELSE 'kiro:'||session_id||':'||witness_gen||':'||line_no||':'||idx||':'||part END AS turn_id,
       false AS is_meta
FROM msgs
WHERE role = 'assistant' OR text IS NOT NULL;

-- Tool calls: the tool_uses of ToolUse replies, joined to the result a later entry returns.
CREATE OR REPLACE VIEW derived.v_tool_calls_kiro AS
WITH
  e AS (
    SELECT file_id, witness_gen, line_no, session_id, machine_id,
           unnest(json_extract(state, '$.history[*]')) AS e
    FROM dialects.v_kiro WHERE is_current AND state IS NOT NULL),
  calls AS (
    SELECT e.* EXCLUDE (e), to_timestamp(TRY_CAST((e->>'$.request_metadata.stream_end_timestamp_ms') AS BIGINT) / 1000) AS event_time,
           unnest(json_extract(e, '$.assistant.ToolUse.tool_uses[*]')) AS u
    FROM e WHERE (e->'$.assistant.ToolUse') IS NOT NULL),
  res AS (
    SELECT file_id, witness_gen, r->>'$.tool_use_id' AS call_id, any_value(line_no) AS result_line_no,
           bool_or(lower(r->>'$.status') = 'error') AS is_error
    FROM (SELECT file_id, witness_gen, line_no,
                 unnest(json_extract(coalesce(e->'$.user.content.ToolUseResults.tool_use_results', e->'$.user.content.CancelledToolUses.tool_use_results'), '$[*]')) AS r
          FROM e)
    GROUP BY ALL)
SELECT 'kiro-cli' AS agent, c.session_id, c.file_id, c.witness_gen, c.line_no, c.machine_id, c.event_time,
       c.u->>'$.id' AS call_id, coalesce(nullif(c.u->>'$.orig_name', ''), c.u->>'$.name') AS tool_name,
       CAST(c.u->'$.args' AS VARCHAR) AS arguments, r.result_line_no, r.is_error, false AS is_sidechain
FROM calls c LEFT JOIN res r ON r.file_id = c.file_id AND r.witness_gen = c.witness_gen AND r.call_id = (c.u->>'$.id');
