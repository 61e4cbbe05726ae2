-- Cursor IDE's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql). A lake file is one composer's row records of cursorDiskKV: its
-- composerData:<id> row and its bubbleId:<id>:<bubble> rows, `value` JSON (text, or a blob holding
-- UTF-8 JSON).

-- One row per row-record line (dialects.row_records, kit/rows.sql), with its key-value key, its
-- kind and its value (JSON).
CREATE OR REPLACE VIEW dialects.v_cursor_ide AS
WITH
  w AS (
    SELECT *, json_extract_string(row_key, '$[0]') AS kv_key, TRY_CAST(dialects.rowrec_text(cols, 'value') AS JSON) AS value
    FROM dialects.row_records('cursor_ide'))
SELECT
  file_id, witness_gen, line_no, abs_path, session_id,
  coalesce(TRY_CAST((value->>'$.createdAt') AS TIMESTAMPTZ),
           to_timestamp(TRY_CAST((value->>'$.lastUpdatedAt') AS BIGINT) / 1000),
           to_timestamp(TRY_CAST((value->>'$.createdAt') AS BIGINT) / 1000)) AS event_time,
  captured_at, op, table_name, row_key, cols,
  -- additions
  machine_id, byte_offset, kv_key,
  CASE WHEN starts_with(kv_key, 'composerData:') THEN 'composer' WHEN starts_with(kv_key, 'bubbleId:') THEN 'bubble' END AS kind,
  CASE WHEN starts_with(kv_key, 'bubbleId:') THEN split_part(kv_key, ':', 3) END AS bubble_id,
  value, is_current, is_deleted
FROM w;

-- The project: the workspace folder the first prompt names.
CREATE OR REPLACE VIEW derived.v_sessions_cursor_ide AS
SELECT file_id,
       regexp_replace(arg_min(value->>'$.workspaceUris[0]', event_time) FILTER (WHERE (value->>'$.workspaceUris[0]') IS NOT NULL), '^file://', '') AS project,
       NULL::VARCHAR AS parent_session
FROM dialects.v_cursor_ide
WHERE kind = 'bubble' AND is_current
GROUP BY file_id;

-- Bubbles in the composer's order (fullConversationHeadersOnly; by time for one it does not list),
-- each with the prompt it answers: an answer's bubbles after one prompt share its turn_id. A bubble
-- without a time of its own is dated by its composer's createdAt (Cursor's clock, not the capture's).
CREATE OR REPLACE VIEW dialects.v_cursor_ide_bubbles AS
WITH
  t AS (
    SELECT file_id, witness_gen,
           min(coalesce(TRY_CAST((value->>'$.createdAt') AS TIMESTAMPTZ),
                        to_timestamp(TRY_CAST((value->>'$.createdAt') AS BIGINT) / 1000))) AS composer_at
    FROM dialects.v_cursor_ide WHERE kind = 'composer' AND is_current GROUP BY ALL),
  c AS (
    SELECT file_id, witness_gen, value->>'$.modelConfig.modelName' AS composer_model,
           unnest(json_extract(value, '$.fullConversationHeadersOnly[*]')) AS h,
           unnest(range(0, CAST(coalesce(json_array_length(value, '$.fullConversationHeadersOnly'), 0) AS BIGINT))) AS pos
    FROM dialects.v_cursor_ide WHERE kind = 'composer' AND is_current),
  m AS (
    SELECT file_id, witness_gen, any_value(composer_model) AS composer_model FROM c GROUP BY ALL),
  b AS (
    SELECT g.*, c.pos, TRY_CAST((g.value->>'$.type') AS INTEGER) AS btype
    FROM dialects.v_cursor_ide g
    LEFT JOIN c ON c.file_id = g.file_id AND c.witness_gen = g.witness_gen AND (c.h->>'$.bubbleId') = g.bubble_id
    WHERE g.kind = 'bubble' AND g.is_current),
  o AS (
    SELECT b.*, row_number() OVER (PARTITION BY file_id, witness_gen ORDER BY pos NULLS LAST, event_time, line_no) AS seq FROM b)
SELECT o.* REPLACE (coalesce(o.event_time, t.composer_at) AS event_time), nullif(m.composer_model, 'default') AS composer_model,
       max(CASE WHEN btype = 1 THEN seq END) OVER (PARTITION BY o.file_id, o.witness_gen ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS prompt_seq
FROM o LEFT JOIN m USING (file_id, witness_gen) LEFT JOIN t USING (file_id, witness_gen);

CREATE OR REPLACE VIEW derived.v_messages_cursor_ide AS
SELECT 'cursor_ide:'||session_id||':'||witness_gen||':'||bubble_id AS msg_id,
       'cursor-ide' AS agent, session_id,
       CASE btype WHEN 1 THEN 'user' ELSE 'assistant' END AS role,
       CASE WHEN btype = 2 THEN coalesce(value->>'$.modelInfo.modelName', composer_model) END AS model,
       nullif(trim(value->>'$.text'), '') AS text, event_time, captured_at, file_id, witness_gen, line_no, machine_id,
       CASE WHEN btype = 1 THEN 'cursor_ide:'||session_id||':'||witness_gen||':'||bubble_id
            ELSE 'cursor_ide:'||session_id||':'||witness_gen||':a'||coalesce(prompt_seq, 0) END AS turn_id,
       false AS is_meta
FROM dialects.v_cursor_ide_bubbles
WHERE btype IN (1, 2);

CREATE OR REPLACE VIEW derived.v_tool_calls_cursor_ide AS
SELECT 'cursor-ide' AS agent, session_id, file_id, witness_gen, line_no, machine_id, event_time,
       value->>'$.toolFormerData.toolCallId' AS call_id, value->>'$.toolFormerData.name' AS tool_name,
       value->>'$.toolFormerData.rawArgs' AS arguments,
       CASE WHEN (value->'$.toolFormerData.result') IS NOT NULL THEN line_no END AS result_line_no,
       CASE (value->>'$.toolFormerData.status') WHEN 'error' THEN true WHEN 'completed' THEN false END AS is_error,
       false AS is_sidechain
FROM dialects.v_cursor_ide_bubbles
WHERE btype = 2 AND (value->'$.toolFormerData') IS NOT NULL;

-- Usage: each assistant bubble's tokenCount (Cursor records input and output per bubble; zero
-- counts are no usage line).
CREATE OR REPLACE VIEW derived.v_usage_lines_cursor_ide AS
SELECT 'cursor-ide' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time,
       coalesce(value->>'$.modelInfo.modelName', composer_model) AS model,
       'cursor_ide:' || bubble_id AS message_id, NULL::VARCHAR AS request_id,
       coalesce(TRY_CAST((value->>'$.tokenCount.inputTokens') AS BIGINT), 0) AS input_tokens,
       coalesce(TRY_CAST((value->>'$.tokenCount.outputTokens') AS BIGINT), 0) AS output_tokens,
       0::BIGINT AS cache_creation_tokens, 0::BIGINT AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM dialects.v_cursor_ide_bubbles
WHERE btype = 2 AND (coalesce(TRY_CAST((value->>'$.tokenCount.inputTokens') AS BIGINT), 0) > 0
                     OR coalesce(TRY_CAST((value->>'$.tokenCount.outputTokens') AS BIGINT), 0) > 0);

-- Times: those of the session's messages (a row record's line has no time of its own).
CREATE OR REPLACE VIEW derived.v_clock_cursor_ide AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_cursor_ide GROUP BY file_id;
