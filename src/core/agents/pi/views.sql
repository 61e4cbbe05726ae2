-- Pi's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql, which unions the derived.*_pi parts with every other agent's).

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

-- What the messages, tool calls and usage views below read of each line, from one parse of it
-- (dialects.v_pi): a message's text, the toolCall blocks, the usage figures. Values a view does
-- not read are NULL (only the lines it reads have them).
CREATE OR REPLACE VIEW derived.v_pi_line_values AS
SELECT * EXCLUDE (content, parsed, usage),
       CASE WHEN ev_type = 'message' AND role IN ('user','assistant') THEN derived.text_of_blocks(content, parsed) END AS text,
       CASE WHEN role = 'assistant' AND contains(CAST(content AS VARCHAR), 'toolCall') THEN parsed END AS blocks
FROM (
  SELECT file_id, witness_gen, line_no, session_id, machine_id, abs_path, event_time, captured_at,
         ev_type, role, coalesce(message_model, model) AS model, tool_call_id, is_error, content, usage,
         CASE WHEN ev_type = 'session' THEN cwd END AS cwd,
         ev_type = 'message' AND role = 'assistant' AND usage IS NOT NULL AND json_type(usage) = 'OBJECT' AS has_usage,
         coalesce(TRY_CAST((usage->>'$.input') AS BIGINT), 0) AS input_tokens,
         coalesce(TRY_CAST((usage->>'$.output') AS BIGINT), 0) AS output_tokens,
         coalesce(TRY_CAST((usage->>'$.cacheWrite') AS BIGINT), 0) AS cache_creation_tokens,
         coalesce(TRY_CAST((usage->>'$.cacheRead') AS BIGINT), 0) AS cache_read_tokens,
         -- A block array, parsed once for the text and the toolCall blocks (content is JSON that
         -- DuckDB wrote: its first character is its type, see derived.text_of).
         unnest([CASE WHEN ev_type = 'message' AND role IN ('user','assistant') AND left(content, 1) = '['
                      THEN TRY(from_json(content, '[{"type":"VARCHAR","text":"VARCHAR","id":"VARCHAR","name":"VARCHAR",
                        "arguments":"JSON"}]')) END]) AS parsed
  FROM dialects.v_pi);

-- What those views read: derived.v_pi_line_values, or, while the program re-derives some files,
-- its materialisation for them (as derived.v_cc_lines; sql/ops/refresh_derived.sql).
CREATE OR REPLACE VIEW derived.v_pi_lines AS
SELECT * FROM query_table(coalesce(getvariable('brain_pi_lines'), 'derived.v_pi_line_values'));

-- Sessions: the project is the session header's cwd (from the line values: a parse of its own
-- here read every line again).
CREATE OR REPLACE VIEW derived.v_sessions_pi AS
SELECT file_id,
       arg_min(cwd, line_no) FILTER (WHERE ev_type = 'session' AND cwd IS NOT NULL) AS project,
       NULL::VARCHAR AS parent_session
FROM derived.v_pi_lines GROUP BY file_id;

-- Messages: one message entry per turn.
CREATE OR REPLACE VIEW derived.v_messages_pi AS
SELECT 'pi:'||session_id||':'||witness_gen||':'||line_no AS msg_id,
       'pi' AS agent, session_id, role, model,
       text, event_time, captured_at, file_id, witness_gen, line_no,
       machine_id,
       'pi:'||session_id||':'||witness_gen||':'||line_no AS turn_id,
       false AS is_meta
FROM derived.v_pi_lines
WHERE ev_type = 'message' AND role IN ('user','assistant');

-- Tool calls: toolCall blocks of assistant messages, each joined to its toolResult message.
CREATE OR REPLACE VIEW derived.v_tool_calls_pi AS
WITH
  pi_lines AS MATERIALIZED (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, event_time, role, blocks,
           tool_call_id, is_error
    FROM derived.v_pi_lines WHERE ev_type = 'message' AND role IN ('assistant', 'toolResult')),
  pi_blocks AS (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, event_time, unnest(blocks) AS b
    FROM pi_lines WHERE blocks IS NOT NULL),
  pi_res AS (
    SELECT file_id, witness_gen, tool_call_id AS call_id, min(line_no) AS result_line_no,
           bool_or(coalesce(is_error, false)) AS is_error
    FROM pi_lines WHERE role = 'toolResult'
    GROUP BY ALL),
  pi AS (
    SELECT 'pi' AS agent, c.session_id, c.file_id, c.witness_gen, c.line_no, c.machine_id,
           c.event_time, c.b.id AS call_id, c.b.name AS tool_name,
           CAST(c.b.arguments AS VARCHAR) AS arguments,
           r.result_line_no, r.is_error, false AS is_sidechain
    FROM pi_blocks c LEFT JOIN pi_res r
      ON r.file_id = c.file_id AND r.witness_gen = c.witness_gen AND r.call_id = c.b.id
    WHERE c.b.type = 'toolCall')
SELECT * FROM pi;

-- Usage: one assistant line per reply, with its usage.
CREATE OR REPLACE VIEW derived.v_usage_lines_pi AS
SELECT 'pi' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       NULL::VARCHAR AS message_id, NULL::VARCHAR AS request_id,
       input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM derived.v_pi_lines
WHERE has_usage;
