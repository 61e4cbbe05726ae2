-- Aider's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql). Its chat history is Markdown, not a record a line: the dialect view says
-- what each line is by the rules dialect.ts beside this file follows (read its top comment), and
-- the derived views put runs of lines back together.

CREATE OR REPLACE MACRO dialects.aider_count(s) AS
  CASE WHEN s IS NULL OR s = '' THEN 0::BIGINT
       WHEN right(s, 1) = 'k' THEN CAST(round(TRY_CAST(replace(left(s, -1), ',', '') AS DOUBLE) * 1000) AS BIGINT)
       ELSE TRY_CAST(replace(s, ',', '') AS BIGINT) END;

-- One row per line of a chat history (not of the input history, which no view reads):
--   kind     header | prompt | quote (Aider's words: a quoted line, or a plain one that is not a
--            reply's) | text (a reply's) | blank
--   said     the line without Aider's framing (`#### `, `> `, the two trailing spaces)
--   run      the lines of one prompt, one reply, one command's output or one notice share it;
--            Aider's words after a reply have the reply's run (owner: reply | output | notice)
--   aider_session  the n-th `# aider chat started at` header of the file (0: lines before any),
--            started_at its time (local, as Aider writes it), model the last model Aider announced;
--            session_id is the session the line is of: the folder's, and its header's time
CREATE OR REPLACE VIEW dialects.v_aider AS
WITH
  lines AS (
    SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.captured_at, r.raw_line,
           f.abs_path, f.session_hint, f.machine_id,
           CASE WHEN trim(r.raw_line, ' ' || chr(9) || chr(13)) = '' THEN 'blank'
                WHEN regexp_matches(r.raw_line, '^# aider chat started at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d') THEN 'header'
                WHEN regexp_matches(r.raw_line, '^####( .*)?  $') THEN 'prompt'
                WHEN starts_with(r.raw_line, '>') THEN 'quote'
                ELSE 'plain' END AS b
    FROM dialects.v_live r JOIN floor.files f USING (file_id)
    WHERE r.lane = 'aider' AND NOT regexp_matches(f.abs_path, '[\\/]\.aider\.input\.history$')),
  flags AS (
    SELECT *,
           b = 'prompt' AND coalesce(lag(b) OVER w, '') <> 'prompt' AS prompt_start,
           regexp_matches(raw_line, '^#### ?[/!]')
             AND NOT regexp_matches(raw_line, '^#### ?/(ask|code|architect|help|context)\s+\S') AS cmdflag,
           b = 'quote' AND regexp_matches(raw_line, '^> Tokens: [\d.,]+k? sent(, [\d.,]+k? cache write)?(, [\d.,]+k? cache hit)?, [\d.,]+k? received') AS is_usage
    FROM lines
    WINDOW w AS (PARTITION BY file_id, witness_gen ORDER BY line_no)),
  ctx AS (
    SELECT *,
           coalesce(last_value(CASE WHEN b = 'header' THEN false WHEN prompt_start THEN cmdflag END IGNORE NULLS) OVER wp, false) AS cmd_ctx,
           last_value(CASE WHEN b IN ('header', 'prompt', 'quote') THEN b END IGNORE NULLS) OVER wp AS anchor_before,
           first_value(CASE WHEN b IN ('header', 'prompt', 'quote') THEN is_usage END IGNORE NULLS)
             OVER (PARTITION BY file_id, witness_gen ORDER BY line_no ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS usage_next
    FROM flags
    WINDOW wp AS (PARTITION BY file_id, witness_gen ORDER BY line_no ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)),
  kinds AS (
    SELECT *,
           CASE WHEN b <> 'plain' THEN b
                WHEN coalesce(usage_next, false) OR (anchor_before = 'prompt' AND NOT cmd_ctx) THEN 'text'
                ELSE 'quote' END AS kind
    FROM ctx),
  prev AS (
    SELECT *,
           lag(kind) OVER (PARTITION BY file_id, witness_gen, kind = 'blank' ORDER BY line_no) AS prev_said_kind
    FROM kinds),
  starts AS (
    SELECT *,
           CASE WHEN kind = 'header' THEN 1
                WHEN prompt_start THEN 1
                WHEN kind = 'text' AND coalesce(prev_said_kind, '') <> 'text' THEN 1
                -- Aider's words right after a prompt (or first in the file) are a command's output
                WHEN kind = 'quote' AND coalesce(prev_said_kind, 'prompt') = 'prompt' THEN 1
                ELSE 0 END AS is_start
    FROM prev),
  runs AS (
    SELECT *,
           sum(is_start) OVER w AS run,
           sum(CASE WHEN kind = 'header' THEN 1 ELSE 0 END) OVER w AS aider_session,
           last_value(CASE WHEN kind = 'header' THEN regexp_extract(raw_line, '(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)', 1) END IGNORE NULLS) OVER w AS started_text,
           last_value(CASE WHEN b = 'quote' THEN nullif(regexp_extract(raw_line, '^> (?:Main model|Model|Models): (\S+?)(?: with |,|\s*$)', 1), '') END IGNORE NULLS) OVER w AS model_seen,
           last_value(CASE WHEN kind IN ('header', 'prompt', 'text') THEN kind END IGNORE NULLS) OVER w AS owner
    FROM starts
    WINDOW w AS (PARTITION BY file_id, witness_gen ORDER BY line_no ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))
SELECT
  file_id, witness_gen, line_no, abs_path,
  -- Each header starts a session of its own: the folder's id and the header's time as digits, as
  -- paths.ts (sectionId) names it; lines before the first header are the folder's own.
  CASE WHEN aider_session > 0 THEN session_hint || '.' || regexp_replace(started_text, '[^0-9]', '', 'g') ELSE session_hint END AS session_id,
  CAST(TRY_CAST(started_text AS TIMESTAMP) AS TIMESTAMPTZ) AS event_time, captured_at,
  kind, raw_line,
  CASE kind WHEN 'prompt' THEN CASE WHEN raw_line = '#### <blank>  ' THEN ''
                                    ELSE regexp_replace(regexp_replace(raw_line, '^#### ?', ''), ' {2}$', '') END
            WHEN 'quote' THEN CASE WHEN b = 'quote' THEN regexp_replace(regexp_replace(raw_line, '^> ?', ''), ' {2}$', '')
                                   ELSE raw_line END
            WHEN 'header' THEN regexp_replace(raw_line, '^#\s*', '')
            WHEN 'blank' THEN ''
            ELSE raw_line END AS said,
  -- additions
  machine_id, byte_offset, run, CASE WHEN kind = 'quote' THEN (CASE owner WHEN 'text' THEN 'reply' WHEN 'header' THEN 'notice' ELSE 'output' END) END AS owner,
  aider_session, started_text AS started_at,
  model_seen AS model
FROM runs;

-- Messages: a prompt (its lines joined) and a reply (its text and blank lines, trimmed), one
-- message a turn. Every message of a session has the session's start as its time.
CREATE OR REPLACE VIEW derived.v_messages_aider AS
WITH m AS (
  SELECT file_id, witness_gen, run, any_value(session_id) AS session_id, any_value(machine_id) AS machine_id,
         min(line_no) FILTER (WHERE kind IN ('prompt', 'text')) AS line_no,
         any_value(event_time) AS event_time, max(captured_at) AS captured_at,
         CASE WHEN bool_or(kind = 'prompt') THEN 'user' ELSE 'assistant' END AS role,
         arg_min(model, line_no) FILTER (WHERE kind = 'text') AS model,
         string_agg(said, chr(10) ORDER BY line_no) FILTER (WHERE kind = 'prompt') AS prompt_text,
         string_agg(said, chr(10) ORDER BY line_no) FILTER (WHERE kind IN ('text', 'blank')) AS reply_text
  FROM dialects.v_aider
  WHERE run > 0
  GROUP BY file_id, witness_gen, run
  HAVING bool_or(kind IN ('prompt', 'text')) AND NOT bool_or(kind = 'header'))
SELECT 'aider:'||session_id||':'||witness_gen||':'||line_no AS msg_id,
       'aider' AS agent, session_id, role,
       CASE WHEN role = 'assistant' THEN model END AS model,
       CASE WHEN role = 'user' THEN regexp_replace(prompt_text, '^\n+|\s+$', '', 'g') ELSE trim(reply_text, ' ' || chr(9) || chr(10) || chr(13)) END AS text,
       event_time, captured_at, file_id, witness_gen, line_no, machine_id,
       'aider:'||session_id||':'||witness_gen||':'||line_no AS turn_id,
       false AS is_meta
FROM m;

-- Sessions: the folder the history is in is the project (the origin is <folder>/.aider.chat.history.md).
-- derived.sessions holds a row per file (the history): the sessions inside it are the session_id
-- values of its messages, tool calls and usage.
CREATE OR REPLACE VIEW derived.v_sessions_aider AS
SELECT f.file_id, regexp_replace(f.abs_path, '[\\/][^\\/]*$', '') AS project, NULL::VARCHAR AS parent_session
FROM (SELECT DISTINCT file_id FROM dialects.v_live WHERE lane = 'aider') l
JOIN floor.files f USING (file_id);

-- Tool calls: the edits Aider applied, its commits (the hash is the call's id) and the shell
-- commands it ran, each as Aider reported it after a reply.
CREATE OR REPLACE VIEW derived.v_tool_calls_aider AS
SELECT 'aider' AS agent, session_id, file_id, witness_gen, line_no, machine_id, event_time,
       CASE WHEN starts_with(said, 'Commit ') THEN regexp_extract(said, '^Commit ([0-9a-f]{7,40}) ', 1) END AS call_id,
       CASE WHEN starts_with(said, 'Applied edit to ') THEN 'edit'
            WHEN starts_with(said, 'Commit ') THEN 'commit'
            ELSE 'shell' END AS tool_name,
       CASE WHEN starts_with(said, 'Applied edit to ') THEN trim(substr(said, 17))
            WHEN starts_with(said, 'Commit ') THEN trim(regexp_extract(said, '^Commit [0-9a-f]{7,40} (.*)$', 1))
            ELSE trim(substr(said, 9)) END AS arguments,
       NULL::INTEGER AS result_line_no, NULL::BOOLEAN AS is_error, false AS is_sidechain
FROM dialects.v_aider
WHERE kind = 'quote' AND owner = 'reply' AND regexp_matches(raw_line, '^> ')
  AND (regexp_matches(said, '^Applied edit to .')
       OR regexp_matches(said, '^Commit [0-9a-f]{7,40} ')
       OR regexp_matches(said, '^Running .'));

-- Usage: the `Tokens:` line after a reply (its last, should a reply have two). Aider shows counts
-- rounded ("5.4k"); they are read at that precision. input = sent - cache write - cache hit.
CREATE OR REPLACE VIEW derived.v_usage_lines_aider AS
WITH t AS (
  SELECT *,
         dialects.aider_count(regexp_extract(raw_line, '^> Tokens: ([\d.,]+k?) sent', 1)) AS sent,
         dialects.aider_count(regexp_extract(raw_line, ', ([\d.,]+k?) cache write', 1)) AS cache_write,
         dialects.aider_count(regexp_extract(raw_line, ', ([\d.,]+k?) cache hit', 1)) AS cache_hit,
         dialects.aider_count(regexp_extract(raw_line, ', ([\d.,]+k?) received', 1)) AS received
  FROM dialects.v_aider
  WHERE kind = 'quote' AND owner = 'reply'
    AND regexp_matches(raw_line, '^> Tokens: [\d.,]+k? sent(, [\d.,]+k? cache write)?(, [\d.,]+k? cache hit)?, [\d.,]+k? received')
  QUALIFY row_number() OVER (PARTITION BY file_id, witness_gen, run ORDER BY line_no DESC) = 1)
SELECT 'aider' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       NULL::VARCHAR AS message_id, NULL::VARCHAR AS request_id,
       greatest(sent - cache_write - cache_hit, 0) AS input_tokens,
       received AS output_tokens,
       cache_write AS cache_creation_tokens,
       cache_hit AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM t;
