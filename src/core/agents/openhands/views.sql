-- OpenHands' views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql). A conversation is a folder: base_state.json (its state, rewritten whole)
-- and events/event-<n>-<id>.json, a JSON document per event. All its files carry the
-- conversation's id as their session, so derived.* and stats count it as one session; each
-- event's lines are joined and parsed, and a row cites the event's whole file (line_no 1). The
-- derived tables are refreshed per file: a row that needs another file of the conversation reads
-- it from the whole floor (dialects.v_openhands_floor).

-- One row per file's version: an event (kind, its fields) or the state document (kind 'state').
CREATE OR REPLACE VIEW dialects.v_openhands AS
WITH
  joined AS (SELECT * FROM dialects.json_documents('openhands', '.')),
  docs AS (
    SELECT * EXCLUDE (text), CAST(text AS JSON) AS doc FROM joined WHERE json_valid(text))
SELECT
  file_id, witness_gen, 1 AS line_no, abs_path, session_hint AS session_id,
  TRY_CAST((doc->>'$.timestamp') AS TIMESTAMPTZ) AS event_time, captured_at,
  CASE WHEN regexp_matches(abs_path, '[\\/]base_state\.json$') THEN 'state' ELSE (doc->>'$.kind') END AS kind,
  (doc->>'$.source') AS source,
  -- additions
  machine_id, byte_offset, line_to,
  TRY_CAST(regexp_extract(abs_path, '[\\/]event-(\d{5,})-[^\\/]*$', 1) AS BIGINT) AS event_index,
  (doc->>'$.id') AS event_id,
  json_extract(doc, '$.llm_message') AS llm_message,
  json_extract(doc, '$.thought') AS thought,
  (doc->>'$.tool_name') AS tool_name,
  (doc->>'$.tool_call_id') AS tool_call_id,
  json_extract(doc, '$.tool_call') AS tool_call,
  json_extract(doc, '$.observation') AS observation,
  (doc->>'$.llm_response_id') AS llm_response_id,
  CASE WHEN regexp_matches(abs_path, '[\\/]base_state\.json$') THEN doc END AS state
FROM docs;

-- The text blocks of a content list, each trimmed, a blank line between (dialect.ts textOf).
CREATE OR REPLACE MACRO dialects.openhands_text(content) AS
  array_to_string(list_transform(
    list_filter(TRY(from_json(content, '[{"text":"VARCHAR"}]')), lambda b: trim(coalesce(b.text, '')) <> ''),
    lambda b: trim(b.text)), chr(10) || chr(10));

-- Messages: a user message is a prompt; an agent's message and each action (a tool call, with its
-- thought) are replies.
CREATE OR REPLACE VIEW derived.v_messages_openhands AS
SELECT 'openhands:'||session_id||':'||coalesce(event_id, file_id)||':'||witness_gen AS msg_id,
       'openhands' AS agent, session_id,
       CASE WHEN kind = 'MessageEvent' AND (source = 'user' OR (llm_message->>'$.role') = 'user') THEN 'user' ELSE 'assistant' END AS role,
       NULL::VARCHAR AS model,
       CASE WHEN kind = 'MessageEvent' THEN dialects.openhands_text(json_extract(llm_message, '$.content'))
            ELSE dialects.openhands_text(thought) END AS text,
       event_time, captured_at, file_id, witness_gen, line_no, machine_id,
       'openhands:'||session_id||':'||coalesce(event_id, file_id)||':'||witness_gen AS turn_id,
       false AS is_meta
FROM dialects.v_openhands
WHERE kind IN ('MessageEvent', 'ActionEvent');

-- The newest version of every file of the lane as parsed documents, read from the whole floor
-- (floor.raw_lines, not narrowed to the files a refresh touches): what an event's rows need from
-- the conversation's other files (its state, the action an observation answers).
CREATE OR REPLACE VIEW dialects.v_openhands_floor AS
SELECT f.file_id, f.session_hint AS session_id, f.machine_id, f.abs_path,
       TRY_CAST(string_agg(r.raw_line, chr(10) ORDER BY r.line_no) AS JSON) AS doc
FROM floor.files f
JOIN floor.ingest_state s ON s.file_id = f.file_id
JOIN floor.raw_lines r ON r.file_id = s.file_id AND r.witness_gen = s.witness_gen
WHERE f.lane = 'openhands'
GROUP BY ALL;

-- Sessions: the conversation's working folder, as its state names it, for each of its files.
-- (Refreshed per file: an event's row takes the state as recorded when the event was.)
CREATE OR REPLACE VIEW derived.v_sessions_openhands AS
WITH
  files AS (SELECT DISTINCT file_id, session_id, machine_id FROM dialects.v_openhands),
  st AS (
    SELECT session_id, machine_id,
           any_value(coalesce(doc->>'$.workspace.working_dir', doc->>'$.workspace.root')) AS project
    FROM dialects.v_openhands_floor
    WHERE regexp_matches(abs_path, '[\\/]base_state\.json$') AND session_id IN (SELECT session_id FROM files)
    GROUP BY ALL)
SELECT f.file_id, st.project, NULL::VARCHAR AS parent_session
FROM files f LEFT JOIN st ON st.session_id = f.session_id AND st.machine_id = f.machine_id;

-- Tool calls: one row per outcome (an observation, a rejection, an agent error: each in a file of
-- its own, after its action), with the call's arguments from its action. A call still running has
-- no row yet.
CREATE OR REPLACE VIEW derived.v_tool_calls_openhands AS
WITH
  o AS (
    SELECT * FROM dialects.v_openhands
    WHERE kind IN ('ObservationEvent', 'UserRejectObservation', 'AgentErrorEvent') AND tool_call_id IS NOT NULL),
  a AS (
    SELECT session_id, machine_id, (doc->>'$.tool_call_id') AS call_id, (doc->>'$.tool_call.arguments') AS arguments
    FROM dialects.v_openhands_floor
    WHERE (doc->>'$.kind') = 'ActionEvent' AND session_id IN (SELECT session_id FROM o))
SELECT 'openhands' AS agent, o.session_id, o.file_id, o.witness_gen, o.line_no, o.machine_id, o.event_time,
       o.tool_call_id AS call_id, o.tool_name, any_value(a.arguments) AS arguments, o.line_no AS result_line_no,
       o.kind <> 'ObservationEvent' OR coalesce(TRY_CAST((o.observation->>'$.is_error') AS BOOLEAN), false) AS is_error,
       false AS is_sidechain
FROM o LEFT JOIN a ON a.session_id = o.session_id AND a.machine_id = o.machine_id AND a.call_id = o.tool_call_id
GROUP BY ALL;

-- Usage: the events carry none; the state's stats hold each LLM's accumulated counts
-- (usage_to_metrics.<usage id>.accumulated_token_usage), of the state's newest version only.
-- prompt_tokens includes what was read from the cache: input = prompt - cache read.
CREATE OR REPLACE VIEW derived.v_usage_lines_openhands AS
WITH
  newest AS (
    SELECT * FROM dialects.v_openhands
    WHERE kind = 'state'
    QUALIFY witness_gen = max(witness_gen) OVER (PARTITION BY file_id)),
  m AS (
    SELECT n.*, e.key AS usage_id, e.value AS metrics
    FROM newest n, json_each(json_extract(n.state, '$.stats.usage_to_metrics')) e)
SELECT 'openhands' AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path,
       captured_at AS event_time,
       coalesce(nullif(metrics->>'$.accumulated_token_usage.model', ''), metrics->>'$.model_name') AS model,
       NULL::VARCHAR AS message_id, NULL::VARCHAR AS request_id,
       greatest(coalesce(TRY_CAST((metrics->>'$.accumulated_token_usage.prompt_tokens') AS BIGINT), 0)
                - coalesce(TRY_CAST((metrics->>'$.accumulated_token_usage.cache_read_tokens') AS BIGINT), 0), 0) AS input_tokens,
       coalesce(TRY_CAST((metrics->>'$.accumulated_token_usage.completion_tokens') AS BIGINT), 0) AS output_tokens,
       coalesce(TRY_CAST((metrics->>'$.accumulated_token_usage.cache_write_tokens') AS BIGINT), 0) AS cache_creation_tokens,
       coalesce(TRY_CAST((metrics->>'$.accumulated_token_usage.cache_read_tokens') AS BIGINT), 0) AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM m
WHERE json_type(metrics, '$.accumulated_token_usage') = 'OBJECT';
