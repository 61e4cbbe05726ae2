-- cursor-agent's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql, which unions the derived.*_cursor parts with every other agent's).

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

-- Sessions: the project is the folder slug (lossy), a sub-agent's parent the folder above
-- subagents/.
CREATE OR REPLACE VIEW derived.v_sessions_cursor AS
SELECT file_id,
       nullif(regexp_extract(abs_path, '/projects/([^/]+)/agent-transcripts/', 1), '') AS project,
       CASE WHEN regexp_matches(abs_path, '/subagents/[^/]+$')
              THEN regexp_extract(abs_path, '/([^/]+)/subagents/[^/]+$', 1) END AS parent_session
FROM floor.files WHERE lane = 'cursor';

-- The chat's start, from its store.db `meta` row (a row record: the value cell holds hex-encoded
-- JSON with createdAt in ms): a transcript line has no clock of its own.
CREATE OR REPLACE VIEW dialects.v_cursor_started AS
WITH
  cell AS (
    SELECT f.machine_id, f.session_hint AS session_id,
           list_filter(q.j.cols, lambda c: (c->>'$[0]') = 'value')[1] AS c
    FROM (SELECT r.file_id, unnest([TRY(from_json(r.raw_line, '{"op":"VARCHAR","table":"VARCHAR","cols":"JSON[]"}'))]) AS j
          FROM dialects.v_live r WHERE r.lane = 'cursor' AND starts_with(r.raw_line, '{"op":"row"')) q
    JOIN floor.files f USING (file_id)
    WHERE q.j."table" = 'meta'),
  txt AS (
    SELECT machine_id, session_id,
           CASE c->>'$[1]' WHEN 'blob' THEN TRY(decode(from_base64(c->>'$[2]'))) ELSE c->>'$[2]' END AS v
    FROM cell),
  meta AS (
    SELECT machine_id, session_id,
           TRY_CAST(CASE WHEN regexp_matches(v, '^([0-9a-fA-F]{2})+$') THEN TRY(decode(unhex(v))) ELSE v END AS JSON) AS m
    FROM txt)
SELECT machine_id, session_id, min(to_timestamp(TRY_CAST((m->>'$.createdAt') AS BIGINT) / 1000)) AS started
FROM meta GROUP BY ALL;

-- Messages: assistant lines after one prompt are one turn (no ids to tell replies apart), dated
-- by the chat's start.
CREATE OR REPLACE VIEW derived.v_messages_cursor AS
SELECT 'cursor:'||session_id||':'||witness_gen||':'||line_no AS msg_id,
       'cursor-agent' AS agent, session_id, role, NULL AS model,
       text, coalesce(event_time, started) AS event_time, captured_at, file_id, witness_gen, line_no,
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
LEFT JOIN dialects.v_cursor_started USING (machine_id, session_id);

-- Tool calls: tool_use blocks, each joined to the tool_result naming it, dated by the chat's start.
CREATE OR REPLACE VIEW derived.v_tool_calls_cursor AS
WITH
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
           coalesce(c.event_time, st.started) AS event_time, (c.b->>'$.id') AS call_id, (c.b->>'$.name') AS tool_name,
           CAST((c.b->'$.input') AS VARCHAR) AS arguments,
           r.result_line_no, r.is_error, false AS is_sidechain
    FROM cu_blocks c LEFT JOIN cu_res r
      ON r.file_id = c.file_id AND r.witness_gen = c.witness_gen AND r.call_id = (c.b->>'$.id')
    LEFT JOIN dialects.v_cursor_started st ON st.machine_id = c.machine_id AND st.session_id = c.session_id
    WHERE c.role = 'assistant' AND (c.b->>'$.type') = 'tool_use')
SELECT * FROM cu;
