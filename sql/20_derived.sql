-- The derived layer: the floor document's v_messages_all and messages, plus files, sessions, tool
-- calls and token usage. Views named v_* are the definitions; the tables of the same name without
-- v_ are their materialisation, refreshed per touched file by ops/refresh_derived.sql (each view
-- partitions by file, so a file's rows depend on that file's lines alone). The views sessions,
-- usage and calls run over the materialised tables and do the cross-file work (a session's files
-- as one, deduplication).
--
-- What is an agent's own comes from its views.sql (src/core/agents/<lane>/): a {{union X}} below
-- is replaced, when the schema is assembled, by the union of X_<lane> over every agent whose
-- views.sql defines it (derived.v_messages_<lane> is required; the others are defined by agents
-- that have such data). Each part has exactly the columns the SELECT around it names.
-- dialects.agents (lane, agent, label) is the registry's list, written by the same step.

CREATE SCHEMA IF NOT EXISTS derived;

-- ---------------------------------------------------------------------------------------------
-- Files: one row per origin file (its latest generation), with its session id, project (cwd),
-- machine and times. Each agent's parts of it (what the file says of its session):
-- derived.v_sessions_<lane>: file_id, project, parent_session;
-- derived.v_clock_<lane>: file_id, first_event, last_event, for an agent whose lines carry no time
-- of their own (floor.event_time_of reads a line's top-level timestamp; a row record keeps its
-- times inside its row): the times of the file's messages, as its part of derived.v_messages says.

CREATE OR REPLACE VIEW derived.v_files AS
WITH
  -- One pass over the newest generation's lines of each file. A line is bad when it is not JSON,
  -- or is a JSON null (what TRY(from_json(line, <any struct>)) IS NULL says, checked on edge
  -- cases: json_valid reads with the same options), by a validation that builds nothing: a
  -- from_json here parsed every line once more (a tenth of a refresh). Valid JSON that starts
  -- with { or [ is no null, so only other lines are trimmed (trim copies the line). A CASE, not
  -- OR/AND: DuckDB evaluated the trim of every line under the OR (a sixth of a refresh, measured).
  gen AS (
    SELECT r.file_id, any_value(r.witness_gen) AS witness_gen,
           count(*) AS n_lines,
           count(*) FILTER (WHERE CASE WHEN NOT json_valid(r.raw_line) THEN true
                                       WHEN left(r.raw_line, 1) IN ('{', '[') THEN false
                                       ELSE trim(r.raw_line, ' ' || chr(9) || chr(10) || chr(13)) = 'null' END) AS n_bad_lines,
           min(r.event_time) AS first_event,
           max(r.event_time) AS last_event,
           min(r.captured_at) AS first_captured,
           max(r.captured_at) AS last_captured
    FROM dialects.v_newest r GROUP BY r.file_id),
  -- The session's start is its oldest generation's (a rewrite may cut the newest one's first
  -- line; src/core/truth.ts, sessionFacts).
  span AS (
    SELECT file_id, min(event_time) AS first_event, min(captured_at) AS first_captured
    FROM dialects.v_live GROUP BY file_id),
  own AS ({{union derived.v_sessions}}),
  clock AS ({{union derived.v_clock}}),
  lake AS (
    SELECT file_id, witness_gen, arg_max(lake_path, manifest_offset) AS lake_path
    FROM floor.chunks GROUP BY file_id, witness_gen)
SELECT
  f.file_id,
  coalesce(a.agent, f.lane) AS agent,
  f.lane,
  f.session_hint AS session_id,
  f.machine_id,
  f.abs_path,
  g.witness_gen,
  lake.lake_path,
  o.project,
  o.parent_session,
  least(sp.first_event, g.first_event, c.first_event) AS first_event, greatest(g.last_event, c.last_event) AS last_event,
  least(sp.first_captured, g.first_captured) AS first_captured, g.last_captured,
  g.n_lines, g.n_bad_lines
FROM floor.files f
JOIN gen g USING (file_id)
LEFT JOIN span sp ON sp.file_id = f.file_id
LEFT JOIN own o ON o.file_id = f.file_id
LEFT JOIN clock c ON c.file_id = f.file_id
LEFT JOIN dialects.agents a ON a.lane = f.lane
LEFT JOIN lake ON lake.file_id = g.file_id AND lake.witness_gen = g.witness_gen;

CREATE TABLE IF NOT EXISTS derived.files AS
  SELECT * FROM derived.v_files WITH NO DATA;

-- ---------------------------------------------------------------------------------------------
-- Messages. The document's columns first; then: machine_id, project, turn_id (the lines of one
-- reply share it; NULL for lines that are not a turn: tool results, meta and compaction
-- summaries, harness-injected context), is_meta, is_sidechain (a sub-agent's message: a line an
-- agent marks so, or any line of a sub-agent's own file) and parent_session (the session that
-- started that sub-agent). A count of the main conversation's turns says NOT is_sidechain.
-- An agent's part may leave out is_sidechain (then only its own file says).
-- Every generation of a rewritten file is read; a message several generations hold is one row:
-- messages are the same when role, time, text and is_meta are (the rule turnKey in
-- src/core/turns.ts follows for the turn index), and per such message the rows of the generation
-- holding most of them are kept (the newest of equals). What only an older generation holds
-- (rewritten away) stays, with its witness_gen.

CREATE OR REPLACE VIEW derived.v_messages_all AS
WITH
  m AS (
    SELECT m.msg_id, m.agent, m.session_id, m.role, m.model, m.text, m.event_time, m.captured_at,
           m.file_id, m.witness_gen, m.line_no, m.machine_id, m.turn_id, m.is_meta, s.project,
           coalesce(m.is_sidechain, false) OR s.parent_session IS NOT NULL AS is_sidechain,
           CASE WHEN s.parent_session IS NOT NULL THEN s.parent_session
                WHEN coalesce(m.is_sidechain, false) THEN m.session_id END AS parent_session,
           md5(concat_ws(chr(0), m.role, coalesce(CAST(m.event_time AS VARCHAR), ''), coalesce(m.text, ''),
                         CAST(m.is_meta AS VARCHAR))) AS same
    FROM ({{union derived.v_messages}}) m
    LEFT JOIN derived.files s USING (file_id)),
  -- The generation kept per message, by aggregates rather than two windows over every row: a
  -- window holds all of m's columns (text) in partitions; here only the keys are held.
  g AS (SELECT file_id, same, witness_gen, count(*) AS copies FROM m GROUP BY ALL),
  pick AS (SELECT file_id, same, arg_max(witness_gen, copies * 100000 + witness_gen) AS witness_gen
           FROM g GROUP BY ALL)
SELECT m.* EXCLUDE (same) FROM m
SEMI JOIN pick ON pick.file_id = m.file_id AND pick.same = m.same AND pick.witness_gen = m.witness_gen;

CREATE TABLE IF NOT EXISTS derived.messages AS
  SELECT * FROM derived.v_messages_all WITH NO DATA;

-- Sessions: one row per session, that is per machine, agent and session id, as brain stats counts
-- one (src/core/truth.ts), over every file holding it: a task folder of three files, a
-- conversation folder of a file per event, a session's settings file beside its log.
-- Its project and parent session are those of its earliest file that names one (a file with
-- timed lines before one without: a settings file's project is only read back from its folder's
-- name); its times span all its files. A view, so a session is always its files as they stand.
-- Sub-agents' sessions and sessions without a turn have rows too: the sessions show and stats
-- count are those with a turn of the main conversation in derived.messages (same three keys).
-- A session that is a section of a gathering file counts no lines of its own (n_lines).
CREATE OR REPLACE VIEW derived.sessions AS
WITH parts AS (
  SELECT agent, lane, session_id, machine_id, project, parent_session, first_event, last_event,
         first_captured, last_captured, n_lines, n_bad_lines, abs_path, file_id
  FROM derived.files
  UNION ALL BY NAME
  -- A file that gathers several sessions (a history with a session per header): each session
  -- its messages name is one of its own, with the file's project and its messages' own times.
  SELECT any_value(f.agent) AS agent, f.lane, m.session_id, f.machine_id, any_value(f.project) AS project,
         min(m.event_time) AS first_event, max(m.event_time) AS last_event,
         any_value(f.first_captured) AS first_captured, any_value(f.last_captured) AS last_captured,
         any_value(f.abs_path) AS abs_path, f.file_id
  FROM derived.messages m JOIN derived.files f USING (file_id)
  WHERE m.session_id IS DISTINCT FROM f.session_id AND f.lane IN (SELECT lane FROM dialects.agents WHERE sections)
  GROUP BY f.machine_id, f.lane, m.session_id, f.file_id)
SELECT any_value(agent) AS agent, lane, session_id, machine_id,
       first(project ORDER BY first_event NULLS LAST, first_captured, abs_path) FILTER (WHERE project IS NOT NULL) AS project,
       first(parent_session ORDER BY first_event NULLS LAST, first_captured, abs_path) FILTER (WHERE parent_session IS NOT NULL) AS parent_session,
       min(first_event) AS first_event, max(last_event) AS last_event,
       min(first_captured) AS first_captured, max(last_captured) AS last_captured,
       count(*) AS n_files, CAST(sum(n_lines) AS BIGINT) AS n_lines, CAST(sum(n_bad_lines) AS BIGINT) AS n_bad_lines
FROM parts
-- A file without a session id is a session of its own.
GROUP BY machine_id, lane, session_id, CASE WHEN session_id IS NULL THEN file_id END;

-- ---------------------------------------------------------------------------------------------
-- Tool calls: one row per call, with the line of its result and whether it failed (NULL when the
-- result is missing or says nothing about failure). Sub-agent and sidechain calls are included.

CREATE OR REPLACE VIEW derived.v_tool_calls AS
SELECT agent, session_id, file_id, witness_gen, line_no, machine_id, event_time, call_id, tool_name,
       arguments, result_line_no, is_error, is_sidechain
FROM ({{union derived.v_tool_calls}});

CREATE TABLE IF NOT EXISTS derived.tool_calls AS
  SELECT * FROM derived.v_tool_calls WITH NO DATA;

-- Calls counted as show counts them (src/core/truth.ts): a call that several generations or files
-- of one session record (a rewrite, a second form of the session) is counted once, from the first
-- of them by time, then file, then the newest generation; within one generation of a file every
-- call counts (its ids can repeat: a redacted transcript); a fork is a session of its own, and
-- counts the calls it copied as it counts their turns.
CREATE OR REPLACE VIEW derived.calls AS
SELECT t.*, s.project
FROM derived.tool_calls t LEFT JOIN derived.files s USING (file_id)
QUALIFY t.call_id IS NULL
     OR (t.file_id, t.witness_gen) = first_value((t.file_id, t.witness_gen))
          OVER (PARTITION BY t.agent, t.machine_id, t.session_id, t.call_id
                ORDER BY t.event_time NULLS LAST, t.file_id, t.witness_gen DESC, t.line_no);

-- ---------------------------------------------------------------------------------------------
-- Token usage. usage_lines holds every line that reports usage, in one unit for all agents:
-- input (not served from cache), output, cache creation, cache read. `counted` says whether the
-- line is counted at all; derived.usage then counts each reply once: the lines of one reply share
-- message_id (each with the usage so far), and the last line of the first file (by file_first_ts,
-- then path) is kept, so a reply copied into a resumed session's file counts once (each agent's
-- part says how its lines are counted).

CREATE OR REPLACE VIEW derived.v_usage_lines AS
SELECT agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       message_id, request_id, input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens,
       file_first_ts, counted
FROM ({{union derived.v_usage_lines}});

CREATE TABLE IF NOT EXISTS derived.usage_lines AS
  SELECT * FROM derived.v_usage_lines WITH NO DATA;

-- One row per reply: counted lines, the earlier lines of a reply dropped. A line without a
-- message id that several generations of its file hold (same time, model and tokens) counts once,
-- as derived.messages keeps its messages.
CREATE OR REPLACE VIEW derived.usage AS
WITH
  u AS (
    SELECT u.* EXCLUDE (counted), s.project,
           md5(concat_ws(chr(0), coalesce(CAST(u.event_time AS VARCHAR), ''), coalesce(u.model, ''), u.input_tokens,
                         u.output_tokens, u.cache_creation_tokens, u.cache_read_tokens)) AS same
    FROM derived.usage_lines u LEFT JOIN derived.files s USING (file_id)
    WHERE u.counted),
  c AS (SELECT *, count(*) OVER (PARTITION BY file_id, same, witness_gen) AS copies FROM u)
SELECT * EXCLUDE (same, copies) FROM c
QUALIFY CASE WHEN message_id IS NULL
             THEN witness_gen = arg_max(witness_gen, copies * 100000 + witness_gen) OVER (PARTITION BY file_id, same)
             ELSE row_number() OVER (PARTITION BY agent, message_id
                                     ORDER BY file_first_ts NULLS LAST, abs_path, line_no DESC) = 1 END;
