-- Claude Code's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql, which unions the derived.*_cc parts with every other agent's).

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

-- Usage lines that count are those ccusage's schema accepts (numeric input/output, ISO-Z
-- timestamp, ...) in .jsonl files; v holds the line's fields that schema checks, as JSON.
CREATE OR REPLACE MACRO derived.cc_usage_counted(usage, abs_path, v) AS
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
    AND (v[10] IS NULL OR json_type(v[10]) = 'VARCHAR');

-- What the derived views below read of each line, from one parse of it (dialects.v_cc) and one
-- of its content: a message's text, the tool blocks, the usage figures and whether they count.
-- Each derived table read dialects.v_cc itself before, and parsed the content again: ~7 parses
-- of every line per refresh. Columns a view does not need are NULL where they would be large.
CREATE OR REPLACE VIEW derived.v_cc_line_values AS
SELECT * EXCLUDE (content, parsed, usage, v),
       CASE WHEN ev_type IN ('user','assistant') AND role IN ('user','assistant')
            THEN derived.text_of_blocks(content, parsed) END AS text,
       -- The tool blocks only (a refresh holds them in memory). Lines without the words tool_use /
       -- tool_result have none (JSON writers do not escape ASCII letters).
       CASE WHEN contains(CAST(content AS VARCHAR), 'tool_use') OR contains(CAST(content AS VARCHAR), 'tool_result')
            THEN list_filter(parsed, lambda b: b.type IN ('tool_use', 'tool_result')) END AS blocks,
       CASE WHEN usage IS NOT NULL THEN derived.cc_usage_counted(usage, abs_path, v) END AS counted
FROM (
  SELECT file_id, witness_gen, line_no, session_id, machine_id, abs_path, event_time, captured_at,
         ev_type, role, model, message_id, request_id, uuid, is_sidechain, is_meta, is_compact_summary,
         cwd, line_session_id, content, usage,
         TRY_CAST(timestamp_text AS TIMESTAMPTZ) AS line_ts,
         usage IS NOT NULL AS has_usage,
         TRY_CAST((usage->>'$.input_tokens') AS BIGINT) AS input_tokens,
         TRY_CAST((usage->>'$.output_tokens') AS BIGINT) AS output_tokens,
         coalesce(TRY_CAST((usage->>'$.cache_creation_input_tokens') AS BIGINT), 0) AS cache_creation_tokens,
         coalesce(TRY_CAST((usage->>'$.cache_read_input_tokens') AS BIGINT), 0) AS cache_read_tokens,
         -- A block array, parsed once for the text and the tool blocks, as structs of the few
         -- fields needed: a tool result's (often large) content is never copied. content is JSON
         -- that DuckDB wrote, so its first character is its type (see derived.text_of).
         unnest([CASE WHEN ev_type IN ('user', 'assistant') AND left(content, 1) = '['
                      THEN TRY(from_json(content, '[{"type":"VARCHAR","text":"VARCHAR","id":"VARCHAR","name":"VARCHAR",
                        "input":"JSON","tool_use_id":"VARCHAR","is_error":"VARCHAR"}]')) END]) AS parsed,
         -- The fields ccusage's schema checks, as JSON (null and absent differ there), for usage
         -- lines. (In an unnest, so each use of v reads the one list.)
         unnest([CASE WHEN usage IS NOT NULL THEN json_extract(raw_line, ['$.timestamp', '$.costUSD',
           '$.isApiErrorMessage', '$.message.content', '$.message.model', '$.message.id', '$.requestId',
           '$.sessionId', '$.version', '$.cwd']) END]) AS v
  FROM dialects.v_cc);

-- What the derived views read: derived.v_cc_line_values, or, while the program re-derives some
-- files, that view materialised once for those files (the temporary table the variable
-- brain_cc_lines names, see sql/ops/refresh_derived.sql), so the statements that fill the four
-- derived tables share one parse. Unset, as in every query a user can run, it is the view.
CREATE OR REPLACE VIEW derived.v_cc_lines AS
SELECT * FROM query_table(coalesce(getvariable('brain_cc_lines'), 'derived.v_cc_line_values'));

-- Sessions: the project is the first cwd a line names; a sub-agent's parent is the folder above
-- subagents/, or (the older flat agent-*.jsonl) the sessionId its lines carry. (Every file has a
-- row, one whose lines are none of them JSON too.)
CREATE OR REPLACE VIEW derived.v_sessions_cc AS
WITH
  g AS (
    SELECT file_id,
           arg_min(cwd, line_no) FILTER (WHERE cwd IS NOT NULL) AS project,
           arg_min(line_session_id, line_no) FILTER (WHERE line_session_id IS NOT NULL) AS line_session
    FROM derived.v_cc_lines GROUP BY file_id),
  files AS (SELECT DISTINCT file_id FROM dialects.v_live WHERE lane = 'cc')
SELECT files.file_id, g.project,
       CASE WHEN regexp_matches(f.abs_path, '/subagents/[^/]+$')
              THEN regexp_extract(f.abs_path, '/([^/]+)/subagents/[^/]+$', 1)
            WHEN regexp_matches(f.abs_path, '/agent-[^/]+$') THEN g.line_session
       END AS parent_session
FROM files JOIN floor.files f USING (file_id) LEFT JOIN g USING (file_id);

-- Messages: the user and assistant lines, a sub-agent's too (is_sidechain: an isSidechain line, in
-- the parent's file or its own; derived.messages adds the parent session).
-- A reply is written a line per content block, its lines sharing message.id (else requestId, else
-- the line's uuid); tool results, other chains' lines and lines that are no message can come
-- between them. Ids repeat (a resumed or retried request, a redacted transcript), so a reply is not
-- every line with its id: in the main conversation (every line of a sub-agent's own file) a reply is
-- the run of assistant lines with one id up to the next user line that is not a tool result or the
-- next assistant line with another id; that line opens a stretch. Sidechain lines (sub-agents
-- written inline, several at once) never open one: their lines with one id within a stretch are one
-- reply. The dialect (dialect.ts) reads the same rule.
CREATE OR REPLACE VIEW derived.v_messages_cc AS
WITH
  l AS (
    SELECT *,
           NOT coalesce(is_sidechain, false) OR regexp_matches(abs_path, '/agent-[^/]*$') AS cc_main,
           coalesce(nullif(message_id, ''), nullif(request_id, ''), nullif(uuid, ''), 'line-'||line_no) AS reply_key,
           ev_type = 'user' AND coalesce(list_contains(list_transform(blocks, lambda b: b.type), 'tool_result'), false) AS cc_result
    FROM derived.v_cc_lines
    WHERE ev_type IN ('user','assistant')),
  -- The main conversation's previous message line: its reply's id, '' for a user line.
  o AS (
    SELECT *,
           cc_main AND NOT cc_result
             AND (ev_type = 'user'
                  OR reply_key IS DISTINCT FROM last_value(CASE WHEN cc_main AND NOT cc_result
                                                                THEN CASE WHEN ev_type = 'assistant' THEN reply_key ELSE '' END END
                                                           IGNORE NULLS) OVER (PARTITION BY file_id, witness_gen ORDER BY line_no
                                                                               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)) AS opens
    FROM l),
  s AS (
    SELECT *, coalesce(max(CASE WHEN opens THEN line_no END)
                         OVER (PARTITION BY file_id, witness_gen ORDER BY line_no ROWS UNBOUNDED PRECEDING), 0) AS stretch
    FROM o)
SELECT 'cc:'||session_id||':'||witness_gen||':'||line_no AS msg_id,
       'claude-code' AS agent, session_id, role, model,
       text, event_time, captured_at,
       file_id, witness_gen, line_no,
       machine_id,
       CASE WHEN cc_meta THEN NULL
            WHEN role = 'assistant' AND cc_main THEN 'cc:'||session_id||':'||witness_gen||':'||stretch
            WHEN role = 'assistant' THEN 'cc:'||session_id||':'||witness_gen||':'||stretch||':'||reply_key
            WHEN coalesce(text, '') = '' OR cc_aside THEN NULL
            ELSE 'cc:'||session_id||':'||witness_gen||':'||line_no END AS turn_id,
       cc_meta AS is_meta,
       coalesce(is_sidechain, false) AS is_sidechain
-- A user line that is a harness notice (an interrupt) is meta; one holding a command's output is
-- not a turn either (src/core/truth.ts, the dialect's rules).
FROM (SELECT *,
             coalesce(is_meta, false) OR coalesce(is_compact_summary, false)
               OR (role = 'user' AND regexp_matches(coalesce(text, ''), {{truth notice}})) AS cc_meta,
             role = 'user' AND regexp_matches(coalesce(text, ''), {{truth command_output}}) AS cc_aside
      FROM s
      WHERE role IN ('user','assistant'));

-- Tool calls: tool_use blocks of assistant lines, each joined to the tool_result naming it.
CREATE OR REPLACE VIEW derived.v_tool_calls_cc AS
WITH
  cc_blocks AS MATERIALIZED (
    SELECT file_id, witness_gen, line_no, session_id, machine_id, event_time, role,
           coalesce(is_sidechain, false) AS is_sidechain, unnest(blocks) AS b
    FROM derived.v_cc_lines WHERE blocks IS NOT NULL),
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
    WHERE c.role = 'assistant' AND c.b.type = 'tool_use')
SELECT * FROM cc;

-- Usage: the lines of one reply (one per content block, as it streams) each carry its usage so
-- far, output growing; counted lines are those derived.cc_usage_counted accepts, and
-- derived.usage keeps, per message.id, the last counted line of the first file that has it (files
-- by their earliest timestamp): the reply's whole usage, once. (ccusage keeps the first line,
-- which misses what the reply wrote after its first block.)
CREATE OR REPLACE VIEW derived.v_usage_lines_cc AS
WITH
  cc_all AS (
    SELECT *, min(line_ts) OVER (PARTITION BY file_id, witness_gen) AS file_first_ts
    FROM (SELECT file_id, witness_gen, line_no, session_id, machine_id, abs_path, event_time, model,
                 message_id, request_id, has_usage, input_tokens, output_tokens, cache_creation_tokens,
                 cache_read_tokens, counted, line_ts
          FROM derived.v_cc_lines))
SELECT 'claude-code' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path,
       event_time, model, message_id, request_id, input_tokens, output_tokens, cache_creation_tokens,
       cache_read_tokens, file_first_ts, counted
FROM cc_all WHERE has_usage;
