-- Codex's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql, which unions the derived.*_codex parts with every other agent's).

-- Codex rollouts: {timestamp,type,payload} envelopes; the early Rust files wrote bare items
-- without the envelope, for which the line itself is the body (envelope_type is then the item's
-- own type and is_bare is true).
CREATE OR REPLACE VIEW dialects.v_codex AS
SELECT
  q.file_id, q.witness_gen, q.line_no, q.abs_path, q.session_hint AS session_id,
  coalesce(q.event_time, TRY_CAST(q.j."timestamp" AS TIMESTAMPTZ)) AS event_time,
  q.captured_at,
  q.j.type                                             AS envelope_type,
  -- A bare line that is no item kind but has a role is a message (the earliest files wrote a
  -- user's text in "message", not "content").
  CASE WHEN q.j.payload IS NOT NULL THEN q.j.payload.type
       WHEN q.j.type IN ('message', 'reasoning', 'function_call', 'custom_tool_call', 'local_shell_call',
                         'web_search_call', 'tool_search_call', 'image_generation_call', 'function_call_output',
                         'custom_tool_call_output', 'local_shell_call_output', 'tool_search_output',
                         'function_result') THEN q.j.type
       WHEN q.j.role IS NOT NULL THEN 'message'
       ELSE q.j.type END                               AS body_type,
  coalesce(q.j.payload.role, q.j.role)                 AS role,
  CASE WHEN q.j.payload IS NOT NULL THEN q.j.payload.content
       WHEN q.j.type IS DISTINCT FROM 'message' THEN coalesce(q.j.content, q.j.message)
       ELSE q.j.content END                            AS content,
  -- What a person typed, as the UI's event records it: user_message's message, or (0.17x) an
  -- item_completed UserMessage's content.
  CASE WHEN q.j.type = 'event_msg' AND q.j.payload.type = 'user_message' THEN coalesce((q.j.payload.message->>'$'), '')
       WHEN q.j.type = 'event_msg' AND q.j.payload.type = 'item_completed' AND (q.j.payload.item->>'$.type') = 'UserMessage'
         THEN coalesce(derived.text_of((q.j.payload.item->'$.content')), '') END AS typed_text,
  -- additions
  q.machine_id, q.byte_offset,
  q.j.payload IS NULL                                  AS is_bare,
  last_value(CASE WHEN q.j.type = 'turn_context' THEN q.j.payload.model END IGNORE NULLS)
    OVER (PARTITION BY q.file_id, q.witness_gen ORDER BY q.line_no
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS model,
  coalesce(q.j.payload.cwd, q.j.cwd)                   AS cwd,
  coalesce(q.j.payload.name, q.j.name, (q.j.function->>'$.name')) AS call_name,
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
  q.j.payload.input                                    AS call_input,
  q.j.payload.cwd                                      AS payload_cwd
FROM (SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at,
             f.abs_path, f.session_hint, f.machine_id,
             unnest([TRY(from_json(r.raw_line, '{"timestamp":"VARCHAR","type":"VARCHAR",
               "payload":{"type":"VARCHAR","role":"VARCHAR","content":"JSON","model":"VARCHAR",
                          "cwd":"VARCHAR","name":"VARCHAR","call_id":"VARCHAR","arguments":"JSON",
                          "output":"JSON","info":"JSON","exit_code":"JSON","success":"JSON",
                          "result":"JSON","phase":"VARCHAR","source":"JSON","id":"VARCHAR","input":"JSON",
                          "message":"JSON","item":"JSON"},
               "role":"VARCHAR","content":"JSON","message":"JSON","cwd":"VARCHAR","name":"VARCHAR","call_id":"VARCHAR",
               "arguments":"JSON","function":"JSON"}'))]) AS j
      FROM dialects.v_live r JOIN floor.files f USING (file_id)
      WHERE r.agent = 'codex') q
WHERE q.j IS NOT NULL;

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

-- What the messages, tool calls and usage views below read of each line, from one parse of it
-- (dialects.v_codex): a message's text, a call's arguments, whether an output or an end event
-- says the call failed, a token count's figures. Each of those views read dialects.v_codex itself
-- before. Values a view does not read are NULL (only the lines it reads have them).
CREATE OR REPLACE VIEW derived.v_codex_line_values AS
SELECT file_id, witness_gen, line_no, session_id, machine_id, abs_path, event_time, captured_at,
       envelope_type, body_type, is_bare, role, model, call_name, call_id, typed_text,
       -- For derived.v_sessions_codex: the cwd a session_meta or turn_context names (or the first
       -- line of a bare file), and a session_meta's source.
       CASE WHEN (envelope_type IN ('session_meta', 'turn_context') AND payload_cwd IS NOT NULL)
                 OR (is_bare AND line_no = 1 AND cwd IS NOT NULL) THEN cwd END AS session_cwd,
       CASE WHEN envelope_type = 'session_meta' THEN source_json END AS session_source,
       CASE WHEN (envelope_type = 'response_item' OR is_bare) AND body_type = 'message'
                 AND role IN ('user','assistant')
            THEN derived.text_of(content) END AS text,
       CASE WHEN (envelope_type = 'response_item' OR is_bare)
                 AND body_type IN ('function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call',
                                   'tool_search_call', 'image_generation_call')
            THEN CASE WHEN call_arguments IS NOT NULL AND json_type(call_arguments) = 'VARCHAR'
                      THEN (call_arguments->>'$')
                      ELSE CAST(coalesce(call_arguments, call_input) AS VARCHAR) END END AS arguments,
       CASE WHEN (envelope_type = 'response_item' OR is_bare) AND call_id IS NOT NULL
                 AND body_type IN ('function_call_output', 'custom_tool_call_output', 'local_shell_call_output',
                                   'tool_search_output')
            THEN derived.codex_output_failed(derived.codex_output_text(call_output)) END AS output_failed,
       CASE WHEN envelope_type = 'event_msg' AND call_id IS NOT NULL
            THEN CASE body_type
                   WHEN 'exec_command_end' THEN TRY_CAST((exit_code_json->>'$') AS BIGINT) <> 0
                   WHEN 'patch_apply_end' THEN NOT TRY_CAST((success_json->>'$') AS BOOLEAN)
                   WHEN 'mcp_tool_call_end' THEN (mcp_result->'$.Err') IS NOT NULL
                     OR coalesce(TRY_CAST((mcp_result->>'$.Ok.isError') AS BOOLEAN), false)
                 END END AS event_failed,
       envelope_type = 'event_msg' AND body_type = 'token_count'
         AND token_info IS NOT NULL AND json_type(token_info) = 'OBJECT' AS is_token_count,
       CASE WHEN envelope_type = 'event_msg' AND body_type = 'token_count' THEN (token_info->>'$.model') END AS token_model,
       CASE WHEN envelope_type = 'event_msg' AND body_type = 'token_count' THEN (token_info->'$.last_token_usage') END AS last_u,
       CASE WHEN envelope_type = 'event_msg' AND body_type = 'token_count' THEN (token_info->'$.total_token_usage') END AS total_u
FROM dialects.v_codex;

-- What those views read: derived.v_codex_line_values, or, while the program re-derives some
-- files, its materialisation for them (as derived.v_cc_lines; sql/ops/refresh_derived.sql).
CREATE OR REPLACE VIEW derived.v_codex_lines AS
SELECT * FROM query_table(coalesce(getvariable('brain_codex_lines'), 'derived.v_codex_line_values'));

-- The lines the messages, tool calls and usage are read from: of one form of each session (an
-- archived copy of a rollout is the same session: dialects.other_forms). Every file is a row of
-- derived.sessions still.
CREATE OR REPLACE VIEW derived.v_codex_shown_lines AS
SELECT * FROM derived.v_codex_lines WHERE file_id NOT IN (SELECT file_id FROM dialects.other_forms('codex'));

-- Sessions: the project is the cwd of the first session_meta or turn_context (of the first line,
-- in the early bare files); a sub-agent rollout names its parent thread in session_meta. (From
-- the line values, which hold both for those lines: a parse of its own here read every line again.)
CREATE OR REPLACE VIEW derived.v_sessions_codex AS
SELECT file_id,
       arg_min(session_cwd, line_no) FILTER (WHERE session_cwd IS NOT NULL) AS project,
       -- The first session_meta's (as the dialect reads it): a later one (a sub-agent's, copied
       -- into the file) does not make the file a sub-agent's; arg_min_null keeps its NULL.
       arg_min_null(session_source->>'$.subagent.thread_spawn.parent_thread_id', line_no)
         FILTER (WHERE envelope_type = 'session_meta') AS parent_session
FROM derived.v_codex_lines GROUP BY file_id;

-- Messages: user and assistant message items; the user items a harness injects (environment,
-- instructions: the pattern is src/core/truth.ts's, as the dialect's) are meta and not turns.
-- A turn is one reply as the dialect reads it (truth.ts): the run of reasoning, assistant text and
-- tool calls between two user messages or tool outputs. Its assistant messages share its turn_id
-- (the line it starts at); a reply that is only tool calls (or reasoning) has a row of its own,
-- without text, so it counts as the turn show lists.
CREATE OR REPLACE VIEW derived.v_messages_codex AS
WITH
  k AS (
    SELECT *,
           CASE WHEN (envelope_type = 'response_item' OR is_bare) THEN
                  CASE WHEN body_type = 'message' AND role = 'assistant' THEN 'a'
                       WHEN body_type = 'message' AND role = 'user' THEN 'u'
                       WHEN body_type = 'reasoning' OR body_type IN ('function_call', 'custom_tool_call', 'local_shell_call',
                            'web_search_call', 'tool_search_call', 'image_generation_call') THEN 'a'
                       WHEN body_type IN ('function_call_output', 'custom_tool_call_output', 'local_shell_call_output',
                            'tool_search_output', 'function_result') THEN 'o' END
                WHEN typed_text IS NOT NULL THEN 'u' END AS k
    FROM derived.v_codex_shown_lines),
  s AS (
    SELECT *, CASE WHEN k = 'a' AND lag(k) OVER w IS DISTINCT FROM 'a' THEN 1 ELSE 0 END AS starts
    FROM k WHERE k IS NOT NULL
    WINDOW w AS (PARTITION BY file_id, witness_gen ORDER BY line_no)),
  r AS (
    SELECT *, sum(starts) OVER (PARTITION BY file_id, witness_gen ORDER BY line_no ROWS UNBOUNDED PRECEDING) AS reply_no
    FROM s),
  a AS (
    SELECT *, min(line_no) OVER (PARTITION BY file_id, witness_gen, reply_no) AS reply_line,
           count(*) FILTER (WHERE body_type = 'message') OVER (PARTITION BY file_id, witness_gen, reply_no) AS reply_msgs
    FROM r WHERE k = 'a'),
  -- Which user items a person typed (as the dialect tells them): each event that records typed
  -- input claims one item of its stretch between replies: one with its text, else the item written
  -- nearest it (within three lines; the one before it on a tie). A claimed item is a prompt; an
  -- event that claims none is a prompt on its own (its row is the event's); an item no event
  -- claims is context the harness wrote once the file has shown such an event (by the end of the
  -- item's stretch; redacted files have no other sign), a prompt before that, or context by its
  -- text.
  ev AS (
    SELECT file_id, witness_gen, line_no, reply_no, typed_text FROM r WHERE k = 'u' AND envelope_type = 'event_msg'),
  cand AS (
    SELECT file_id, witness_gen, line_no, reply_no, text FROM r
    WHERE k = 'u' AND envelope_type IS DISTINCT FROM 'event_msg' AND NOT regexp_matches(coalesce(text, ''), {{truth injected_context}})),
  claims AS (
    SELECT e.file_id, e.witness_gen, e.line_no AS ev_line,
           arg_min(c.line_no, CASE WHEN trim(c.text) = trim(e.typed_text) THEN -1000000 + c.line_no
                                   ELSE abs(c.line_no - e.line_no) * 2 + CASE WHEN c.line_no < e.line_no THEN 0 ELSE 1 END END) AS line_no
    FROM ev e JOIN cand c ON c.file_id = e.file_id AND c.witness_gen = e.witness_gen AND c.reply_no = e.reply_no
                         AND (abs(c.line_no - e.line_no) <= 3 OR trim(c.text) = trim(e.typed_text))
    GROUP BY ALL),
  claimed AS (SELECT DISTINCT file_id, witness_gen, line_no FROM claims),
  evfiles AS (SELECT file_id, witness_gen, min(reply_no) AS first_ev FROM ev GROUP BY ALL),
  u AS (
    SELECT r.*,
           regexp_matches(coalesce(r.text, ''), {{truth injected_context}})
             OR (f.first_ev <= r.reply_no AND c.line_no IS NULL) AS ctx
    FROM r
    LEFT JOIN evfiles f ON f.file_id = r.file_id AND f.witness_gen = r.witness_gen
    LEFT JOIN claimed c ON c.file_id = r.file_id AND c.witness_gen = r.witness_gen AND c.line_no = r.line_no
    WHERE r.k = 'u' AND r.envelope_type IS DISTINCT FROM 'event_msg'
    UNION ALL
    SELECT r.* REPLACE ('user' AS role, r.typed_text AS text), false AS ctx
    FROM r ANTI JOIN claims c ON c.file_id = r.file_id AND c.witness_gen = r.witness_gen AND c.ev_line = r.line_no
    WHERE r.k = 'u' AND r.envelope_type = 'event_msg'),
  m AS (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, role, model, text, event_time, captured_at,
           CASE WHEN ctx THEN NULL ELSE 'codex:'||session_id||':'||witness_gen||':'||line_no END AS turn_id,
           ctx AS is_meta
    FROM u
    UNION ALL
    SELECT file_id, witness_gen, line_no, session_id, machine_id, 'assistant' AS role, model,
           CASE WHEN body_type = 'message' THEN text END AS text, event_time, captured_at,
           'codex:'||session_id||':'||witness_gen||':'||reply_line AS turn_id, false AS is_meta
    FROM a WHERE body_type = 'message' OR (reply_msgs = 0 AND line_no = reply_line))
SELECT 'codex:'||session_id||':'||witness_gen||':'||line_no AS msg_id,
       'codex' AS agent, session_id, role, model,
       text, event_time, captured_at, file_id, witness_gen, line_no,
       machine_id, turn_id, is_meta
FROM m;

-- Tool calls: every kind of call item, with its output item and the event that ended it (an
-- exec's exit code, a patch's success, an MCP call's error).
CREATE OR REPLACE VIEW derived.v_tool_calls_codex AS
WITH
  cx_all AS MATERIALIZED (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, event_time, envelope_type,
           body_type, is_bare, call_name, call_id, arguments, output_failed, event_failed
    FROM derived.v_codex_shown_lines
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
           bool_or(output_failed) AS failed
    FROM cx_all
    WHERE (envelope_type = 'response_item' OR is_bare) AND call_id IS NOT NULL
      AND body_type IN ('function_call_output', 'custom_tool_call_output', 'local_shell_call_output',
                        'tool_search_output')
    GROUP BY ALL),
  cx_ev AS (
    SELECT file_id, witness_gen, call_id, bool_or(event_failed) AS failed
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
           c.arguments,
           o.result_line_no,
           CASE WHEN e.failed IS NOT NULL OR o.failed IS NOT NULL
                THEN coalesce(e.failed, false) OR coalesce(o.failed, false) END AS is_error,
           false AS is_sidechain
    FROM cx_calls c
    LEFT JOIN cx_out o ON o.file_id = c.file_id AND o.witness_gen = c.witness_gen AND o.call_id = c.call_id
    LEFT JOIN cx_ev e ON e.file_id = c.file_id AND e.witness_gen = c.witness_gen AND e.call_id = c.call_id)
SELECT * FROM cx;

-- Usage: event_msg token_count; last_token_usage is the delta (input includes cached input;
-- cache_write_input_tokens, written by newer builds, is the cache write); a
-- token_count repeating the previous cumulative total is the duplicate Codex writes.
CREATE OR REPLACE VIEW derived.v_usage_lines_codex AS
WITH
  cx AS (
    SELECT 'codex' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path,
           event_time, coalesce(token_model, model) AS model,
           NULL::VARCHAR AS message_id, NULL::VARCHAR AS request_id,
           last_u, total_u,
           lag(total_u) OVER (PARTITION BY file_id, witness_gen ORDER BY line_no) AS prev_total_u
    FROM derived.v_codex_shown_lines
    WHERE is_token_count),
  cx2 AS (
    SELECT agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
           message_id, request_id,
           coalesce(TRY_CAST((last_u->>'$.input_tokens') AS BIGINT),
                    TRY_CAST((total_u->>'$.input_tokens') AS BIGINT) - coalesce(TRY_CAST((prev_total_u->>'$.input_tokens') AS BIGINT), 0))
             AS in_all,
           coalesce(TRY_CAST((last_u->>'$.cached_input_tokens') AS BIGINT),
                    TRY_CAST((total_u->>'$.cached_input_tokens') AS BIGINT) - coalesce(TRY_CAST((prev_total_u->>'$.cached_input_tokens') AS BIGINT), 0), 0)
             AS cached,
           coalesce(TRY_CAST((last_u->>'$.cache_write_input_tokens') AS BIGINT),
                    TRY_CAST((total_u->>'$.cache_write_input_tokens') AS BIGINT) - coalesce(TRY_CAST((prev_total_u->>'$.cache_write_input_tokens') AS BIGINT), 0), 0)
             AS cache_write,
           coalesce(TRY_CAST((last_u->>'$.output_tokens') AS BIGINT),
                    TRY_CAST((total_u->>'$.output_tokens') AS BIGINT) - coalesce(TRY_CAST((prev_total_u->>'$.output_tokens') AS BIGINT), 0))
             AS out_all,
           NOT (total_u IS NOT NULL AND prev_total_u IS NOT NULL AND CAST(total_u AS VARCHAR) = CAST(prev_total_u AS VARCHAR))
             AS counted
    FROM cx)
SELECT agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       message_id, request_id,
       coalesce(in_all, 0) - coalesce(cached, 0) AS input_tokens,
       coalesce(out_all, 0) AS output_tokens,
       coalesce(cache_write, 0) AS cache_creation_tokens,
       coalesce(cached, 0) AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, counted
FROM cx2;
