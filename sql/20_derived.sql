-- The derived layer: the floor document's text_of, v_messages_all and messages, plus sessions,
-- tool calls and token usage. Views named v_* are the definitions; the tables of the same name
-- without v_ are their materialisation, refreshed per touched file by ops/refresh_derived.sql
-- (each view partitions by file, so a file's rows depend on that file's lines alone). The views
-- usage and calls run over the materialised tables and do the cross-file work (deduplication).

CREATE SCHEMA IF NOT EXISTS derived;

-- shared text extraction over the common block-array shape. The document's macro, same result;
-- the array case reads the blocks' type and text with one from_json (twice as fast as extracting
-- each block as JSON and then its fields, measured) and falls back to the document's form if
-- from_json refuses the array.
CREATE OR REPLACE MACRO derived.text_of(content) AS
  CASE WHEN content IS NULL THEN NULL
       WHEN json_type(content) = 'VARCHAR' THEN json_extract_string(content, '$')
       WHEN json_type(content) = 'ARRAY' THEN
         coalesce(
           array_to_string(list_transform(
             list_filter(TRY(from_json(content, '[{"type":"VARCHAR","text":"VARCHAR"}]')),
               lambda b: b.type IN ('text','input_text','output_text')),
             lambda b: b.text), chr(10)),
           array_to_string(list_transform(
             list_filter(json_extract(content,'$[*]'),
               lambda x: json_extract_string(x,'$.type') IN ('text','input_text','output_text')),
             lambda x: json_extract_string(x,'$.text')), chr(10)))
       ELSE NULL END;

-- A JSON number (what JSON.parse gives as a number), for checks that follow ccusage's schema.
CREATE OR REPLACE MACRO derived.is_json_number(j) AS
  j IS NOT NULL AND json_type(j) IN ('UBIGINT', 'BIGINT', 'DOUBLE');

-- Absent, or a non-empty JSON string.
CREATE OR REPLACE MACRO derived.absent_or_text(j) AS
  j IS NULL OR (json_type(j) = 'VARCHAR' AND length((j->>'$')) > 0);

-- Codex tool output text: the output string, or the texts of its input_text parts.
CREATE OR REPLACE MACRO derived.codex_output_text(o) AS
  CASE WHEN o IS NULL THEN NULL
       WHEN json_type(o) = 'VARCHAR' THEN (o->>'$')
       WHEN json_type(o) = 'ARRAY' THEN array_to_string(list_transform(json_extract(o, '$[*]'), lambda x: (x->>'$.text')), chr(10))
       WHEN json_type(o) = 'OBJECT' THEN (o->>'$.text')
       ELSE NULL END;

-- Did a Codex tool output say the command failed? Older shell outputs are a JSON string with
-- metadata.exit_code; newer ones start with "Exit code: N" (or "Process exited with code N").
CREATE OR REPLACE MACRO derived.codex_output_failed(t) AS
  CASE WHEN t IS NULL THEN NULL
       WHEN TRY_CAST(TRY(json_extract_string(t, '$.metadata.exit_code')) AS BIGINT) IS NOT NULL
         THEN TRY_CAST(TRY(json_extract_string(t, '$.metadata.exit_code')) AS BIGINT) <> 0
       WHEN regexp_matches(t, '^(Exit code: |Process exited with code )[0-9]+')
         THEN TRY_CAST(regexp_extract(t, '^(Exit code: |Process exited with code )([0-9]+)', 2) AS BIGINT) <> 0
       ELSE NULL END;

-- ---------------------------------------------------------------------------------------------
-- Sessions: one row per origin file (its latest generation), with project (cwd) and machine.

CREATE OR REPLACE VIEW derived.v_sessions AS
WITH
  -- One pass over the live lines of each file, reading only what locates the session.
  l AS (
    SELECT r.file_id, r.witness_gen, r.line_no, r.lane, r.event_time, r.captured_at,
           unnest([TRY(from_json(r.raw_line, '{"type":"VARCHAR","cwd":"VARCHAR","sessionId":"VARCHAR",
             "payload":{"type":"VARCHAR","cwd":"VARCHAR","source":"JSON"}}'))]) AS j
    FROM dialects.v_live r),
  gen AS (
    SELECT file_id, any_value(witness_gen) AS witness_gen,
           count(*) AS n_lines,
           count(*) FILTER (WHERE j IS NULL) AS n_bad_lines,  -- not a JSON object
           min(event_time) AS first_event,
           max(event_time) AS last_event,
           min(captured_at) AS first_captured,
           max(captured_at) AS last_captured,
           CASE any_value(lane)
             WHEN 'cc' THEN arg_min(j.cwd, line_no) FILTER (WHERE j.cwd IS NOT NULL)
             WHEN 'codex' THEN arg_min(coalesce(j.payload.cwd, j.cwd), line_no)
               FILTER (WHERE (j.type IN ('session_meta', 'turn_context') AND j.payload.cwd IS NOT NULL)
                          OR (j.payload IS NULL AND line_no = 1 AND j.cwd IS NOT NULL))
             WHEN 'pi' THEN arg_min(j.cwd, line_no) FILTER (WHERE j.type = 'session' AND j.cwd IS NOT NULL)
           END AS project,
           arg_min(j.sessionId, line_no) FILTER (WHERE j.sessionId IS NOT NULL) AS line_session,
           arg_min(j.payload.source->>'$.subagent.thread_spawn.parent_thread_id', line_no)
             FILTER (WHERE j.type = 'session_meta') AS codex_parent
    FROM l GROUP BY file_id),
  lake AS (
    SELECT file_id, witness_gen, arg_max(lake_path, manifest_offset) AS lake_path
    FROM floor.chunks GROUP BY file_id, witness_gen)
SELECT
  f.file_id,
  CASE f.lane WHEN 'cc' THEN 'claude-code' WHEN 'cursor' THEN 'cursor-agent' WHEN 'gemini' THEN 'gemini-cli'
              WHEN 'copilot' THEN 'copilot-chat' ELSE f.lane END AS agent,
  f.lane,
  f.session_hint AS session_id,
  f.machine_id,
  f.abs_path,
  g.witness_gen,
  lake.lake_path,
  coalesce(g.project,
           CASE WHEN f.lane = 'cursor' THEN regexp_extract(f.abs_path, '/projects/([^/]+)/agent-transcripts/', 1) END)
    AS project,
  CASE
    WHEN f.lane IN ('cc', 'cursor') AND regexp_matches(f.abs_path, '/subagents/[^/]+$')
      THEN regexp_extract(f.abs_path, '/([^/]+)/subagents/[^/]+$', 1)
    WHEN f.lane = 'cc' AND regexp_matches(f.abs_path, '/agent-[^/]+$') THEN g.line_session
    WHEN f.lane = 'codex' THEN g.codex_parent
  END AS parent_session,
  g.first_event, g.last_event, g.first_captured, g.last_captured,
  g.n_lines, g.n_bad_lines
FROM floor.files f
JOIN gen g USING (file_id)
LEFT JOIN lake ON lake.file_id = g.file_id AND lake.witness_gen = g.witness_gen;

CREATE TABLE IF NOT EXISTS derived.sessions AS
  SELECT * FROM derived.v_sessions WITH NO DATA;

-- ---------------------------------------------------------------------------------------------
-- Messages. The document's columns first; then: machine_id, project, turn_id (the lines of one
-- reply share it: Claude Code's message.id, cursor's run of assistant lines; NULL for lines that
-- are not a turn: tool results, meta and compaction summaries, harness-injected context) and
-- is_meta.

CREATE OR REPLACE VIEW derived.v_messages_all AS
SELECT m.*, s.project
FROM (
  SELECT 'cc:'||session_id||':'||witness_gen||':'||line_no AS msg_id,
         'claude-code' AS agent, session_id, role, model,
         text, event_time, captured_at,
         file_id, witness_gen, line_no,
         machine_id,
         CASE WHEN is_meta OR is_compact_summary THEN NULL
              WHEN role = 'assistant' THEN 'cc:'||session_id||':'||coalesce(message_id, witness_gen||':'||line_no)
              WHEN coalesce(text, '') = '' THEN NULL
              ELSE 'cc:'||session_id||':'||witness_gen||':'||line_no END AS turn_id,
         is_meta OR is_compact_summary AS is_meta
  FROM (SELECT *, derived.text_of(content) AS text FROM dialects.v_cc
        WHERE ev_type IN ('user','assistant') AND NOT coalesce(is_sidechain, false)
          AND role IN ('user','assistant'))
  UNION ALL BY NAME
  SELECT 'codex:'||session_id||':'||witness_gen||':'||line_no AS msg_id,
         'codex' AS agent, session_id, role, model,
         text, event_time, captured_at, file_id, witness_gen, line_no,
         machine_id,
         CASE WHEN codex_meta THEN NULL ELSE 'codex:'||session_id||':'||witness_gen||':'||line_no END AS turn_id,
         codex_meta AS is_meta
  FROM (SELECT *,
               role = 'user' AND regexp_matches(ltrim(coalesce(text, '')),
                 '^(<environment_context>|<user_instructions>|<permissions instructions>|# AGENTS\.md instructions|<INSTRUCTIONS>)')
                 AS codex_meta
        FROM (SELECT *, derived.text_of(content) AS text FROM dialects.v_codex
              WHERE (envelope_type = 'response_item' OR is_bare) AND body_type = 'message'
                AND role IN ('user','assistant')))
  UNION ALL BY NAME
  SELECT 'pi:'||session_id||':'||witness_gen||':'||line_no AS msg_id,
         'pi' AS agent, session_id, role, coalesce(message_model, model) AS model,
         derived.text_of(content) AS text, event_time, captured_at, file_id, witness_gen, line_no,
         machine_id,
         'pi:'||session_id||':'||witness_gen||':'||line_no AS turn_id,
         false AS is_meta
  FROM dialects.v_pi
  WHERE ev_type = 'message' AND role IN ('user','assistant')
  UNION ALL BY NAME
  SELECT 'cursor:'||session_id||':'||witness_gen||':'||line_no AS msg_id,
         'cursor-agent' AS agent, session_id, role, NULL AS model,
         text, event_time, captured_at, file_id, witness_gen, line_no,
         machine_id,
         CASE WHEN role = 'assistant'
                THEN 'cursor:'||session_id||':'||witness_gen||':a'||coalesce(last_prompt, 0)
              WHEN coalesce(text, '') = '' THEN NULL
              ELSE 'cursor:'||session_id||':'||witness_gen||':'||line_no END AS turn_id,
         false AS is_meta
  FROM (SELECT *, derived.text_of(content) AS text,
               max(CASE WHEN role = 'user' AND coalesce(derived.text_of(content), '') <> '' THEN line_no END)
                 OVER (PARTITION BY file_id, witness_gen ORDER BY line_no
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS last_prompt
        FROM dialects.v_cursor
        WHERE role IN ('user','assistant'))
  UNION ALL BY NAME
  -- Gemini CLI (sql/11_dialects_more.sql): one message a turn; Parts are {text} without a type.
  SELECT 'gemini:'||session_id||':'||witness_gen||':'||line_no||':'||msg_index||CASE WHEN is_legacy_json THEN ':json' ELSE '' END AS msg_id,
         'gemini-cli' AS agent, session_id, role, model,
         text, event_time, captured_at, file_id, witness_gen, line_no,
         machine_id,
         'gemini:'||session_id||':'||witness_gen||':'||line_no||':'||msg_index||CASE WHEN is_legacy_json THEN ':json' ELSE '' END AS turn_id,
         false AS is_meta
  FROM (SELECT *,
               CASE WHEN role = 'user' AND json_type(display_content) = 'VARCHAR' AND trim(display_content->>'$') <> ''
                      THEN display_content->>'$'
                    WHEN json_type(content) = 'VARCHAR' THEN content->>'$'
                    WHEN json_type(content) = 'ARRAY' THEN
                      array_to_string(list_filter(list_transform(TRY(from_json(content, '[{"text":"VARCHAR"}]')), lambda b: b.text),
                                                  lambda t: trim(coalesce(t, '')) <> ''), chr(10) || chr(10))
               END AS text
        FROM dialects.v_gemini
        WHERE role IN ('user','assistant'))
  UNION ALL BY NAME
  -- Copilot Chat (sql/11_dialects_more.sql): a request is a prompt and (when it has a response) a
  -- reply; the transcripts stream's user.message and assistant.message events are one each.
  SELECT 'copilot:'||source||':'||session_id||':'||witness_gen||':'||line_no||':'||seq||':'||r.role AS msg_id,
         'copilot-chat' AS agent, session_id, r.role,
         CASE WHEN r.role = 'assistant' THEN model END AS model,
         r.text, event_time, captured_at, file_id, witness_gen, line_no,
         machine_id,
         'copilot:'||source||':'||session_id||':'||witness_gen||':'||line_no||':'||seq||':'||r.role AS turn_id,
         false AS is_meta
  FROM dialects.v_copilot,
       LATERAL (SELECT unnest([{'role': 'user', 'text': user_text},
                               {'role': 'assistant', 'text': CASE WHEN json_array_length(response) > 0 THEN reply_text END}]) AS x) u,
       LATERAL (SELECT u.x.role AS role, u.x.text AS text) r
  WHERE ev_type = 'request' AND (r.role = 'user' OR r.text IS NOT NULL)
  UNION ALL BY NAME
  SELECT 'copilot:'||source||':'||session_id||':'||witness_gen||':'||line_no AS msg_id,
         'copilot-chat' AS agent, session_id,
         CASE ev_type WHEN 'user.message' THEN 'user' ELSE 'assistant' END AS role, NULL AS model,
         content AS text, event_time, captured_at, file_id, witness_gen, line_no,
         machine_id,
         'copilot:'||source||':'||session_id||':'||witness_gen||':'||line_no AS turn_id,
         false AS is_meta
  FROM dialects.v_copilot
  WHERE ev_type IN ('user.message', 'assistant.message')
) m
LEFT JOIN derived.sessions s USING (file_id);

CREATE TABLE IF NOT EXISTS derived.messages AS
  SELECT * FROM derived.v_messages_all WITH NO DATA;

-- ---------------------------------------------------------------------------------------------
-- Tool calls: one row per call, with the line of its result and whether it failed (NULL when the
-- result is missing or says nothing about failure). Sub-agent and sidechain calls are included.

CREATE OR REPLACE VIEW derived.v_tool_calls AS
WITH
  -- Blocks are read as structs of the few fields needed: a tool result's (often large) content is
  -- never copied. Lines without the words tool_use / tool_result have no such block (JSON writers
  -- do not escape ASCII letters), so they are skipped before parsing.
  cc_blocks AS MATERIALIZED (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, event_time, role,
           coalesce(is_sidechain, false) AS is_sidechain,
           unnest(TRY(from_json(content, '[{"type":"VARCHAR","id":"VARCHAR","name":"VARCHAR","input":"JSON",
             "tool_use_id":"VARCHAR","is_error":"VARCHAR"}]'))) AS b
    FROM dialects.v_cc
    WHERE ev_type IN ('assistant', 'user') AND json_type(content) = 'ARRAY'
      AND (contains(CAST(content AS VARCHAR), 'tool_use') OR contains(CAST(content AS VARCHAR), 'tool_result'))),
  cc_res AS (
    SELECT file_id, witness_gen, b.tool_use_id AS call_id, min(line_no) AS result_line_no,
           bool_or(coalesce(TRY_CAST(b.is_error AS BOOLEAN), false)) AS is_error
    FROM cc_blocks WHERE role = 'user' AND b.type = 'tool_result'
    GROUP BY ALL),
  cc AS (
    SELECT 'claude-code' AS agent, c.session_id, c.file_id, c.witness_gen, c.line_no, c.machine_id,
           c.event_time, c.b.id AS call_id, c.b.name AS tool_name,
           CAST(c.b.input AS VARCHAR) AS arguments,
           r.result_line_no, r.is_error, c.is_sidechain
    FROM cc_blocks c LEFT JOIN cc_res r
      ON r.file_id = c.file_id AND r.witness_gen = c.witness_gen AND r.call_id = c.b.id
    WHERE c.role = 'assistant' AND c.b.type = 'tool_use'),
  cx_all AS MATERIALIZED (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, event_time, envelope_type,
           body_type, is_bare, call_name, call_id, call_arguments, call_input, call_output,
           exit_code_json, success_json, mcp_result
    FROM dialects.v_codex
    WHERE body_type IN ('function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call',
                        'tool_search_call', 'image_generation_call', 'function_call_output',
                        'custom_tool_call_output', 'local_shell_call_output', 'tool_search_output',
                        'exec_command_end', 'patch_apply_end', 'mcp_tool_call_end')),
  cx_calls AS (
    SELECT * FROM cx_all
    WHERE (envelope_type = 'response_item' OR is_bare)
      AND body_type IN ('function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call',
                        'tool_search_call', 'image_generation_call')),
  cx_out AS (
    SELECT file_id, witness_gen, call_id, min(line_no) AS result_line_no,
           bool_or(derived.codex_output_failed(derived.codex_output_text(call_output))) AS failed
    FROM cx_all
    WHERE (envelope_type = 'response_item' OR is_bare) AND call_id IS NOT NULL
      AND body_type IN ('function_call_output', 'custom_tool_call_output', 'local_shell_call_output',
                        'tool_search_output')
    GROUP BY ALL),
  cx_ev AS (
    SELECT file_id, witness_gen, call_id,
           bool_or(CASE body_type
                     WHEN 'exec_command_end' THEN TRY_CAST((exit_code_json->>'$') AS BIGINT) <> 0
                     WHEN 'patch_apply_end' THEN NOT TRY_CAST((success_json->>'$') AS BOOLEAN)
                     WHEN 'mcp_tool_call_end' THEN (mcp_result->'$.Err') IS NOT NULL
                       OR coalesce(TRY_CAST((mcp_result->>'$.Ok.isError') AS BOOLEAN), false)
                   END) AS failed
    FROM cx_all
    WHERE envelope_type = 'event_msg' AND call_id IS NOT NULL
      AND body_type IN ('exec_command_end', 'patch_apply_end', 'mcp_tool_call_end')
    GROUP BY ALL),
  cx AS (
    SELECT 'codex' AS agent, c.session_id, c.file_id, c.witness_gen, c.line_no, c.machine_id,
           c.event_time, c.call_id,
           coalesce(c.call_name, CASE c.body_type WHEN 'web_search_call' THEN 'web_search'
                                   WHEN 'local_shell_call' THEN 'local_shell'
                                   ELSE c.body_type END) AS tool_name,
           CASE WHEN c.call_arguments IS NOT NULL AND json_type(c.call_arguments) = 'VARCHAR'
                THEN (c.call_arguments->>'$')
                ELSE CAST(coalesce(c.call_arguments, c.call_input) AS VARCHAR) END AS arguments,
           o.result_line_no,
           CASE WHEN e.failed IS NOT NULL OR o.failed IS NOT NULL
                THEN coalesce(e.failed, false) OR coalesce(o.failed, false) END AS is_error,
           false AS is_sidechain
    FROM cx_calls c
    LEFT JOIN cx_out o ON o.file_id = c.file_id AND o.witness_gen = c.witness_gen AND o.call_id = c.call_id
    LEFT JOIN cx_ev e ON e.file_id = c.file_id AND e.witness_gen = c.witness_gen AND e.call_id = c.call_id),
  pi_lines AS MATERIALIZED (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, event_time, role, content,
           tool_call_id, is_error
    FROM dialects.v_pi WHERE ev_type = 'message' AND role IN ('assistant', 'toolResult')),
  pi_blocks AS (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, event_time,
           unnest(TRY(from_json(content, '[{"type":"VARCHAR","id":"VARCHAR","name":"VARCHAR","arguments":"JSON"}]'))) AS b
    FROM pi_lines
    WHERE role = 'assistant' AND json_type(content) = 'ARRAY' AND contains(CAST(content AS VARCHAR), 'toolCall')),
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
    WHERE c.b.type = 'toolCall'),
  cu_blocks AS MATERIALIZED (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, event_time, role,
           unnest(json_extract(content, '$[*]')) AS b
    FROM dialects.v_cursor
    WHERE role IN ('assistant', 'user') AND json_type(content) = 'ARRAY'),
  cu_res AS (
    SELECT file_id, witness_gen, (b->>'$.tool_use_id') AS call_id, min(line_no) AS result_line_no,
           bool_or(coalesce(TRY_CAST((b->>'$.is_error') AS BOOLEAN), false)) AS is_error
    FROM cu_blocks WHERE role = 'user' AND (b->>'$.type') = 'tool_result' AND (b->>'$.tool_use_id') IS NOT NULL
    GROUP BY ALL),
  cu AS (
    SELECT 'cursor-agent' AS agent, c.session_id, c.file_id, c.witness_gen, c.line_no, c.machine_id,
           c.event_time, (c.b->>'$.id') AS call_id, (c.b->>'$.name') AS tool_name,
           CAST((c.b->'$.input') AS VARCHAR) AS arguments,
           r.result_line_no, r.is_error, false AS is_sidechain
    FROM cu_blocks c LEFT JOIN cu_res r
      ON r.file_id = c.file_id AND r.witness_gen = c.witness_gen AND r.call_id = (c.b->>'$.id')
    WHERE c.role = 'assistant' AND (c.b->>'$.type') = 'tool_use')
SELECT * FROM cc
UNION ALL BY NAME SELECT * FROM cx
UNION ALL BY NAME SELECT * FROM pi
UNION ALL BY NAME SELECT * FROM cu;

CREATE TABLE IF NOT EXISTS derived.tool_calls AS
  SELECT * FROM derived.v_tool_calls WITH NO DATA;

-- A call recorded in several files (a resumed Claude Code session copies earlier lines into its
-- new file) is counted once: the first by time, then file, then line.
CREATE OR REPLACE VIEW derived.calls AS
SELECT t.*, s.project
FROM derived.tool_calls t LEFT JOIN derived.sessions s USING (file_id)
QUALIFY t.call_id IS NULL
     OR row_number() OVER (PARTITION BY t.agent, t.call_id
                           ORDER BY t.event_time NULLS LAST, t.file_id, t.line_no) = 1;

-- ---------------------------------------------------------------------------------------------
-- Token usage. usage_lines holds every line that reports usage, in one unit for all agents:
-- input (not served from cache), output, cache creation, cache read. `counted` says whether the
-- line is counted at all; derived.usage then counts each reply once.
--  * Claude Code: the lines of one reply repeat its usage; counted lines are those ccusage
--    accepts (its schema: numeric input/output, ISO-Z timestamp, ...) in .jsonl files, and
--    derived.usage keeps the first line of each (message.id, requestId) in ccusage's order
--    (files by their earliest timestamp, then line order), so totals equal `ccusage daily`.
--  * Codex: event_msg token_count; last_token_usage is the delta (input includes cached input);
--    a token_count repeating the previous cumulative total is the duplicate Codex writes.
--  * Pi: one assistant line per reply, with its usage.

CREATE OR REPLACE VIEW derived.v_usage_lines AS
WITH
  cc_all AS (
    SELECT session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
           message_id, request_id, usage, raw_line,
           min(TRY_CAST(timestamp_text AS TIMESTAMPTZ)) OVER (PARTITION BY file_id, witness_gen) AS file_first_ts
    FROM dialects.v_cc),
  -- The fields ccusage's schema checks, as JSON (null and absent differ there), for usage lines.
  cc_v AS (
    SELECT *, unnest([json_extract(raw_line, ['$.timestamp', '$.costUSD', '$.isApiErrorMessage', '$.message.content',
             '$.message.model', '$.message.id', '$.requestId', '$.sessionId', '$.version', '$.cwd'])]) AS v
    FROM cc_all WHERE usage IS NOT NULL),
  cc AS (
    SELECT 'claude-code' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path,
           event_time, model, message_id, request_id,
           TRY_CAST((usage->>'$.input_tokens') AS BIGINT) AS input_tokens,
           TRY_CAST((usage->>'$.output_tokens') AS BIGINT) AS output_tokens,
           coalesce(TRY_CAST((usage->>'$.cache_creation_input_tokens') AS BIGINT), 0) AS cache_creation_tokens,
           coalesce(TRY_CAST((usage->>'$.cache_read_input_tokens') AS BIGINT), 0) AS cache_read_tokens,
           file_first_ts,
           json_type(usage) = 'OBJECT'
             AND abs_path LIKE '%.jsonl'
             AND derived.is_json_number((usage->'$.input_tokens'))
             AND derived.is_json_number((usage->'$.output_tokens'))
             AND ((usage->'$.cache_creation_input_tokens') IS NULL OR derived.is_json_number((usage->'$.cache_creation_input_tokens')))
             AND ((usage->'$.cache_read_input_tokens') IS NULL OR derived.is_json_number((usage->'$.cache_read_input_tokens')))
             AND v[1] IS NOT NULL AND json_type(v[1]) = 'VARCHAR'
             AND regexp_full_match((v[1]->>'$'), '\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z')
             AND (v[2] IS NULL OR derived.is_json_number(v[2]))
             AND (v[3] IS NULL OR json_type(v[3]) = 'BOOLEAN')
             AND (v[4] IS NULL OR (json_type(v[4]) = 'ARRAY' AND
                   len(list_filter(json_extract(v[4], '$[*]'),
                       lambda b: json_type(b) <> 'OBJECT'
                            OR ((b->'$.text') IS NOT NULL AND json_type((b->'$.text')) <> 'VARCHAR'))) = 0))
             AND derived.absent_or_text(v[5])
             AND derived.absent_or_text(v[6])
             AND derived.absent_or_text(v[7])
             AND derived.absent_or_text(v[8])
             AND (v[9] IS NULL OR (json_type(v[9]) = 'VARCHAR' AND regexp_matches((v[9]->>'$'), '^\d+\.\d+\.\d+')))
             AND (v[10] IS NULL OR json_type(v[10]) = 'VARCHAR')
             AS counted
    FROM cc_v),
  cx AS (
    SELECT 'codex' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path,
           event_time, coalesce((token_info->>'$.model'), model) AS model,
           NULL::VARCHAR AS message_id, NULL::VARCHAR AS request_id,
           (token_info->'$.last_token_usage') AS last_u,
           (token_info->'$.total_token_usage') AS total_u,
           lag((token_info->'$.total_token_usage')) OVER (PARTITION BY file_id, witness_gen ORDER BY line_no) AS prev_total_u
    FROM dialects.v_codex
    WHERE envelope_type = 'event_msg' AND body_type = 'token_count'
      AND token_info IS NOT NULL AND json_type(token_info) = 'OBJECT'),
  cx2 AS (
    SELECT agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
           message_id, request_id,
           coalesce(TRY_CAST((last_u->>'$.input_tokens') AS BIGINT),
                    TRY_CAST((total_u->>'$.input_tokens') AS BIGINT) - coalesce(TRY_CAST((prev_total_u->>'$.input_tokens') AS BIGINT), 0))
             AS in_all,
           coalesce(TRY_CAST((last_u->>'$.cached_input_tokens') AS BIGINT),
                    TRY_CAST((total_u->>'$.cached_input_tokens') AS BIGINT) - coalesce(TRY_CAST((prev_total_u->>'$.cached_input_tokens') AS BIGINT), 0), 0)
             AS cached,
           coalesce(TRY_CAST((last_u->>'$.output_tokens') AS BIGINT),
                    TRY_CAST((total_u->>'$.output_tokens') AS BIGINT) - coalesce(TRY_CAST((prev_total_u->>'$.output_tokens') AS BIGINT), 0))
             AS out_all,
           NOT (total_u IS NOT NULL AND prev_total_u IS NOT NULL AND CAST(total_u AS VARCHAR) = CAST(prev_total_u AS VARCHAR))
             AS counted
    FROM cx),
  pi AS (
    SELECT 'pi' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path,
           event_time, coalesce(message_model, model) AS model,
           NULL::VARCHAR AS message_id, NULL::VARCHAR AS request_id,
           coalesce(TRY_CAST((usage->>'$.input') AS BIGINT), 0) AS input_tokens,
           coalesce(TRY_CAST((usage->>'$.output') AS BIGINT), 0) AS output_tokens,
           coalesce(TRY_CAST((usage->>'$.cacheWrite') AS BIGINT), 0) AS cache_creation_tokens,
           coalesce(TRY_CAST((usage->>'$.cacheRead') AS BIGINT), 0) AS cache_read_tokens,
           true AS counted
    FROM dialects.v_pi
    WHERE ev_type = 'message' AND role = 'assistant' AND usage IS NOT NULL AND json_type(usage) = 'OBJECT')
SELECT agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       message_id, request_id, input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens,
       file_first_ts, counted
FROM cc
UNION ALL BY NAME
SELECT agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       message_id, request_id,
       coalesce(in_all, 0) - coalesce(cached, 0) AS input_tokens,
       coalesce(out_all, 0) AS output_tokens,
       0::BIGINT AS cache_creation_tokens,
       coalesce(cached, 0) AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, counted
FROM cx2
UNION ALL BY NAME
SELECT agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       message_id, request_id, input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, counted
FROM pi;

CREATE TABLE IF NOT EXISTS derived.usage_lines AS
  SELECT * FROM derived.v_usage_lines WITH NO DATA;

-- One row per reply: counted lines, Claude Code's repeated lines of a reply dropped.
CREATE OR REPLACE VIEW derived.usage AS
SELECT u.* EXCLUDE (counted), s.project
FROM derived.usage_lines u LEFT JOIN derived.sessions s USING (file_id)
WHERE u.counted
QUALIFY u.message_id IS NULL OR u.request_id IS NULL
     OR row_number() OVER (PARTITION BY u.agent, u.message_id, u.request_id
                           ORDER BY u.file_first_ts NULLS LAST, u.abs_path, u.line_no) = 1;
