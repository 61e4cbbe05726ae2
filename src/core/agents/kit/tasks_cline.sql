-- Cline's task folders, which Roo Code and Kilo Code kept (clinetask.ts beside this file): the
-- table macros the cline, roo and kilo views.sql call with their lane and agent name, so the three
-- read ui_messages.json one way. A task folder is one session (floor.files.session_hint, the
-- folder's name); api_conversation_history.json and task_metadata.json are captured but give no
-- rows here, as they give no turns to the turn index.

-- One row per ClineMessage of each generation of ui_messages.json (a document rewritten whole:
-- its lines are joined and parsed; every row has line_no 1 and line_to its last line, since the
-- document as a whole is what a citation can check). msg_index is the message's place in it.
CREATE OR REPLACE MACRO dialects.cline_task_rows(lane_name) AS TABLE
WITH
  joined AS (SELECT * FROM dialects.json_documents(lane_name, '[/\\]ui_messages\.json$')),
  docs AS (
    SELECT * EXCLUDE (text),
           TRY(from_json(text, '[{"ts":"DOUBLE","type":"VARCHAR","say":"VARCHAR","ask":"VARCHAR","text":"VARCHAR",
                                  "partial":"BOOLEAN","modelInfo":"JSON"}]')) AS msgs
    FROM joined),
  rows AS (
    SELECT d.* EXCLUDE (msgs), unnest(d.msgs) AS m, unnest(range(1, len(d.msgs) + 1)) AS msg_index
    FROM docs d WHERE d.msgs IS NOT NULL)
SELECT file_id, witness_gen, 1 AS line_no, line_to, abs_path, session_hint AS session_id, machine_id,
       byte_offset, captured_at, msg_index,
       CAST(m.ts AS BIGINT) AS ts,
       to_timestamp(m.ts / 1000.0) AS event_time,
       m.type AS msg_type,
       CASE m.type WHEN 'say' THEN m.say WHEN 'ask' THEN m.ask END AS kind,
       CASE WHEN m.type = 'say' AND m.say IN ('task', 'user_feedback') THEN 'user'
            WHEN (m.type = 'say' AND m.say IN ('text', 'completion_result', 'plan_completion_result', 'reasoning', 'api_req_started'))
              OR (m.type = 'ask' AND m.ask IN ('followup', 'plan_mode_respond', 'act_mode_respond')) THEN 'assistant'
            ELSE 'system' END AS role,
       m.text AS text,
       m.partial AS partial,
       m.modelInfo->>'$.modelId' AS model
FROM rows;

-- The rows that make turns, as the dialect reads them (kit/clinetask.ts), each with its turn: a
-- prompt (say task, user_feedback) is a turn; each model call (say api_req_started) opens a reply,
-- which holds what the model said (part 's': text, answers, a question's or plan's JSON), its
-- reasoning and the calls it made (part 'x') until the next call or prompt; something the model
-- said or called with no reply open (after a prompt, before any call) opens one too. Other rows
-- (checkpoints, errors, outputs, asks for approval, retries) are no part of a turn and close none.
-- turn_key is the time of the row that opened the turn (a ClineMessage's ts is the same in every
-- generation), so a turn several generations hold is one turn.
CREATE OR REPLACE MACRO dialects.cline_task_turn_rows(lane_name) AS TABLE
WITH
  k AS (
    SELECT *,
           CASE WHEN msg_type = 'say' AND kind IN ('task', 'user_feedback') THEN 'p'
                WHEN msg_type = 'say' AND kind = 'api_req_started' THEN 'c'
                WHEN (msg_type = 'say' AND kind IN ('text', 'completion_result', 'plan_completion_result'))
                  OR (msg_type = 'ask' AND kind IN ('followup', 'plan_mode_respond', 'act_mode_respond')) THEN 's'
                WHEN kind IN ('reasoning', 'tool', 'command', 'use_mcp_server', 'browser_action_launch', 'browser_action') THEN 'x'
           END AS part
    FROM dialects.cline_task_rows(lane_name)),
  o AS (
    SELECT *, CASE WHEN part IN ('p', 'c') OR coalesce(lag(part) OVER w, 'p') = 'p' THEN 1 ELSE 0 END AS opens
    FROM k WHERE part IS NOT NULL
    WINDOW w AS (PARTITION BY file_id, witness_gen ORDER BY msg_index)),
  n AS (
    SELECT *, sum(opens) OVER (PARTITION BY file_id, witness_gen ORDER BY msg_index ROWS UNBOUNDED PRECEDING) AS turn_no
    FROM o)
SELECT *,
       coalesce(CAST(first_value(ts) OVER t AS VARCHAR), 'g'||witness_gen||'.'||first_value(msg_index) OVER t) AS turn_key,
       count(*) FILTER (WHERE part = 's') OVER t AS turn_said,
       msg_index = first_value(msg_index) OVER t AS turn_first
FROM n
WINDOW t AS (PARTITION BY file_id, witness_gen, turn_no ORDER BY msg_index ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING);

-- Messages: prompts, and what the model said (a question's or plan answer's JSON read for its
-- words), the rows of one reply sharing its turn_id. A reply with nothing said (only calls or
-- reasoning) has one row of its own, without text, so it counts as the turn show lists.
CREATE OR REPLACE MACRO derived.cline_task_messages(lane_name, agent_name) AS TABLE
SELECT lane_name||':'||session_id||':'||witness_gen||':'||msg_index AS msg_id,
       agent_name AS agent, session_id, CASE WHEN part = 'p' THEN 'user' ELSE 'assistant' END AS role, model,
       CASE WHEN part NOT IN ('p', 's') THEN NULL
            WHEN kind IN ('followup', 'plan_mode_respond', 'act_mode_respond') AND left(ltrim(text), 1) = '{'
              THEN coalesce(TRY(json_extract_string(text, '$.question')), TRY(json_extract_string(text, '$.response')), text)
            ELSE text END AS text,
       event_time, captured_at, file_id, witness_gen, line_no, machine_id,
       lane_name||':'||session_id||':'||turn_key AS turn_id,
       false AS is_meta
FROM dialects.cline_task_turn_rows(lane_name)
WHERE part IN ('p', 's') OR (turn_said = 0 AND turn_first);

-- Tool calls: the tools, commands, MCP calls and browser actions of each reply. call_id is the
-- message's own time (a ClineMessage's identity, the same in every generation), so a call several
-- generations hold counts once. An ask for approval that Cline says again once approved (the same
-- kind and text, the reply's next call) is one call, as the dialect reads it. result_line_no is
-- the document's line.
CREATE OR REPLACE MACRO derived.cline_task_tool_calls(lane_name, agent_name) AS TABLE
WITH
  c AS (
    SELECT *,
           msg_type = 'say' AND lag(msg_type) OVER w = 'ask' AND lag(kind) OVER w = kind
             AND lag(text) OVER w IS NOT DISTINCT FROM text AS repeat
    FROM dialects.cline_task_turn_rows(lane_name)
    WHERE kind IN ('tool', 'command', 'use_mcp_server', 'browser_action_launch', 'browser_action')
    WINDOW w AS (PARTITION BY file_id, witness_gen, turn_no ORDER BY msg_index))
SELECT agent_name AS agent, session_id, file_id, witness_gen, line_no, machine_id, event_time,
       lane_name||':'||session_id||':'||ts AS call_id,
       CASE WHEN kind = 'tool' THEN coalesce(TRY(json_extract_string(text, '$.tool')), 'tool')
            WHEN kind = 'command' THEN 'execute_command'
            WHEN kind = 'use_mcp_server'
              THEN concat_ws(':', 'use_mcp_server', nullif(TRY(json_extract_string(text, '$.serverName')), ''),
                             nullif(TRY(json_extract_string(text, '$.toolName')), ''))
            ELSE 'browser_action' END AS tool_name,
       text AS arguments, line_no AS result_line_no, NULL::BOOLEAN AS is_error, false AS is_sidechain
FROM c
WHERE NOT coalesce(repeat, false);

-- Usage: each model call's say "api_req_started", whose text Cline fills with tokensIn, tokensOut,
-- cacheWrites and cacheReads when the call ends (a call still running has none yet: not counted).
-- message_id is the message's time, the same in every generation of the file.
CREATE OR REPLACE MACRO derived.cline_task_usage_lines(lane_name, agent_name) AS TABLE
WITH u AS (
  SELECT *, TRY_CAST(text AS JSON) AS j
  FROM dialects.cline_task_rows(lane_name)
  WHERE kind = 'api_req_started' AND msg_type = 'say')
SELECT agent_name AS agent, session_id, file_id, witness_gen, line_no, machine_id, abs_path, event_time, model,
       lane_name||':'||session_id||':'||ts AS message_id, NULL::VARCHAR AS request_id,
       -- Roo Code and Kilo Code (which name the apiProtocol) count the cached part in tokensIn.
       CASE WHEN (j->>'$.apiProtocol') IS NOT NULL
              THEN greatest(coalesce(TRY_CAST(j->>'$.tokensIn' AS BIGINT), 0) - coalesce(TRY_CAST(j->>'$.cacheWrites' AS BIGINT), 0)
                            - coalesce(TRY_CAST(j->>'$.cacheReads' AS BIGINT), 0), 0)
            ELSE coalesce(TRY_CAST(j->>'$.tokensIn' AS BIGINT), 0) END AS input_tokens,
       coalesce(TRY_CAST(j->>'$.tokensOut' AS BIGINT), 0) AS output_tokens,
       coalesce(TRY_CAST(j->>'$.cacheWrites' AS BIGINT), 0) AS cache_creation_tokens,
       coalesce(TRY_CAST(j->>'$.cacheReads' AS BIGINT), 0) AS cache_read_tokens,
       NULL::TIMESTAMPTZ AS file_first_ts, true AS counted
FROM u
WHERE j IS NOT NULL AND ((j->'$.tokensIn') IS NOT NULL OR (j->'$.tokensOut') IS NOT NULL
                         OR (j->'$.cacheWrites') IS NOT NULL OR (j->'$.cacheReads') IS NOT NULL);

-- Sessions: the task's working folder for every file of its folder: Roo Code's history_item.json
-- names it (workspace), else the first request Cline sends names it in its environment block. Read
-- from floor.raw_lines, not the files being refreshed: the folder's other files say nothing of it.
CREATE OR REPLACE MACRO derived.cline_task_sessions(lane_name) AS TABLE
WITH
  said AS (
    SELECT f.session_hint, r.witness_gen,
           CASE WHEN regexp_matches(f.abs_path, '[/\\]history_item\.json$') THEN TRY(json_extract_string(r.raw_line, '$.workspace')) END AS workspace,
           CASE WHEN regexp_matches(f.abs_path, '[/\\]ui_messages\.json$')
                THEN nullif(regexp_extract(r.raw_line, '# Current Working Directory \(([^)\\]+)\) Files', 1), '') END AS named
    FROM floor.raw_lines r JOIN floor.files f USING (file_id)
    WHERE r.lane = lane_name AND f.lane = lane_name
      AND regexp_matches(f.abs_path, '[/\\](history_item|ui_messages)\.json$')),
  per AS (
    SELECT session_hint, coalesce(arg_max(workspace, witness_gen) FILTER (WHERE workspace IS NOT NULL),
                                  arg_min(named, witness_gen) FILTER (WHERE named IS NOT NULL)) AS project
    FROM said GROUP BY session_hint)
SELECT f.file_id, per.project, NULL::VARCHAR AS parent_session
FROM floor.files f JOIN per USING (session_hint)
WHERE f.lane = lane_name;
