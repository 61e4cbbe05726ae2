-- The dialect views of Gemini CLI and Copilot Chat (after 10_dialects.sql: same schema, same
-- dialects.v_live). Their files are not all one record a line, so these views put records back
-- together first; where SQL stops short of what the turn index does (src/core/agents/<agent>/
-- dialect.ts), the comment says so.

-- Gemini CLI: one row per message of the conversation as it stands.
-- .jsonl (append log): a message may be written several times under one id, the last write wins
-- (its line is line_no); {"$rewindTo": id} drops that message and every message first written
-- after it, as far as they were written before the rewind. msg_index orders the messages by their
-- first surviving write. Not done here: a {"$set":{"messages":[…]}} checkpoint of the whole list
-- (rare; the turn index applies it).
-- .json (legacy, one pretty-printed document rewritten whole): the document's lines are joined
-- and parsed; every message row has line_no 1 and line_to = the document's last line, since the
-- document as a whole is what a citation can check.
CREATE OR REPLACE VIEW dialects.v_gemini AS
WITH
  lines AS (
    SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at, r.raw_line,
           f.abs_path, f.session_hint, f.machine_id
    FROM dialects.v_live r JOIN floor.files f USING (file_id)
    WHERE r.lane = 'gemini'),
  jl AS (
    SELECT l.* EXCLUDE (raw_line),
           unnest([TRY(from_json(l.raw_line, '{"id":"VARCHAR","type":"VARCHAR","timestamp":"VARCHAR",
             "content":"JSON","displayContent":"JSON","parts":"JSON","model":"VARCHAR","tokens":"JSON",
             "thoughts":"JSON","toolCalls":"JSON","$rewindTo":"VARCHAR"}'))]) AS j
    FROM lines l WHERE NOT regexp_matches(l.abs_path, '\.json$')),
  writes AS (
    SELECT * FROM jl WHERE j IS NOT NULL AND j.type IS NOT NULL),
  rewinds AS (
    SELECT r.file_id, r.witness_gen, r.line_no AS at_line,
           (SELECT min(w.line_no) FROM writes w
            WHERE w.file_id = r.file_id AND w.witness_gen = r.witness_gen
              AND w.j.id = r.j."$rewindTo" AND w.line_no < r.line_no) AS cut
    FROM jl r WHERE r.j."$rewindTo" IS NOT NULL),
  firsts AS (
    SELECT *, min(line_no) OVER (PARTITION BY file_id, witness_gen, coalesce(j.id, CAST(line_no AS VARCHAR))) AS first_line
    FROM writes),
  kept AS (
    SELECT w.* EXCLUDE (first_line),
           min(line_no) OVER (PARTITION BY file_id, witness_gen, coalesce(j.id, CAST(line_no AS VARCHAR))) AS pos
    FROM firsts w
    WHERE NOT EXISTS (SELECT 1 FROM rewinds x
                      WHERE x.file_id = w.file_id AND x.witness_gen = w.witness_gen
                        AND w.line_no < x.at_line AND w.first_line >= x.cut)
    QUALIFY row_number() OVER (PARTITION BY file_id, witness_gen, coalesce(j.id, CAST(line_no AS VARCHAR))
                               ORDER BY line_no DESC) = 1),
  joined AS (
    SELECT file_id, witness_gen, any_value(abs_path) AS abs_path, any_value(session_hint) AS session_hint,
           any_value(machine_id) AS machine_id, min(byte_offset) AS byte_offset,
           max(captured_at) AS captured_at, max(line_no) AS line_to,
           string_agg(raw_line, chr(10) ORDER BY line_no) AS text
    FROM lines WHERE regexp_matches(abs_path, '\.json$')
    GROUP BY file_id, witness_gen),
  docs AS (
    SELECT * EXCLUDE (text),
           TRY(from_json(text,
             '{"messages":[{"id":"VARCHAR","type":"VARCHAR","timestamp":"VARCHAR","content":"JSON",
               "displayContent":"JSON","parts":"JSON","model":"VARCHAR","tokens":"JSON","thoughts":"JSON",
               "toolCalls":"JSON"}]}')) AS doc
    FROM joined),
  legacy AS (
    SELECT d.*, unnest(range(1, len(d.doc.messages) + 1)) AS idx
    FROM docs d WHERE d.doc IS NOT NULL AND len(d.doc.messages) > 0),
  msgs AS (
    SELECT file_id, witness_gen, line_no, line_no AS line_to, abs_path, session_hint, machine_id, byte_offset,
           event_time, captured_at, row_number() OVER (PARTITION BY file_id, witness_gen ORDER BY pos) AS msg_index,
           false AS is_legacy_json, j
    FROM kept
    UNION ALL BY NAME
    SELECT file_id, witness_gen, 1 AS line_no, line_to, abs_path, session_hint, machine_id, byte_offset,
           TRY_CAST(doc.messages[idx].timestamp AS TIMESTAMPTZ) AS event_time, captured_at,
           idx AS msg_index, true AS is_legacy_json, doc.messages[idx] AS j
    FROM legacy)
SELECT
  m.file_id, m.witness_gen, m.line_no, m.abs_path, m.session_hint AS session_id,
  coalesce(m.event_time, TRY_CAST(m.j.timestamp AS TIMESTAMPTZ)) AS event_time, m.captured_at,
  m.j.type                                         AS msg_type,
  CASE WHEN m.j.type = 'user' THEN 'user'
       WHEN m.j.type IN ('gemini', 'model') THEN 'assistant'
       ELSE 'system' END                           AS role,
  m.j.model                                        AS model,
  coalesce(m.j.content, m.j.parts)                 AS content,
  -- additions
  m.machine_id, m.byte_offset, m.line_to, m.msg_index, m.is_legacy_json,
  m.j.id                                           AS message_id,
  m.j.displayContent                               AS display_content,
  m.j.thoughts                                     AS thoughts,
  m.j.toolCalls                                    AS tool_calls,
  m.j.tokens                                       AS tokens
FROM msgs m;

-- Copilot Chat: one row per request of a chatSessions file, one per event of a transcripts file.
-- .json (rewritten whole): the document's lines are joined and parsed; rows have line_no 1 and
-- line_to the document's last line. .jsonl (mutation log): only the requests of the last kind-0
-- snapshot and those pushed onto `requests` by kind-2 lines are here, as they were when
-- written: later sets (kind 1, e.g. a request's response and result), splices and deletes are
-- not replayed in SQL, so a pushed request's reply can be empty here while the turn index, which
-- replays the whole log, has it. reply_text is the response's markdown parts joined (inline file
-- references, which the turn index names, are left out).
CREATE OR REPLACE VIEW dialects.v_copilot AS
WITH
  lines AS (
    SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at, r.raw_line,
           f.abs_path, f.session_hint, f.machine_id,
           CASE WHEN regexp_matches(f.abs_path, '/transcripts/[^/]+\.jsonl$') THEN 'events'
                WHEN regexp_matches(f.abs_path, '\.jsonl$') THEN 'log'
                ELSE 'json' END AS source
    FROM dialects.v_live r JOIN floor.files f USING (file_id)
    WHERE r.lane = 'copilot'),
  joined AS (
    SELECT file_id, witness_gen, any_value(abs_path) AS abs_path, any_value(session_hint) AS session_hint,
           any_value(machine_id) AS machine_id, min(byte_offset) AS byte_offset,
           max(captured_at) AS captured_at, 1 AS line_no, max(line_no) AS line_to, 'json' AS source,
           string_agg(raw_line, chr(10) ORDER BY line_no) AS text
    FROM lines WHERE source = 'json'
    GROUP BY file_id, witness_gen),
  docs AS (
    SELECT * EXCLUDE (text), TRY_CAST(text AS JSON) AS s FROM joined),
  logl AS (
    SELECT l.* EXCLUDE (raw_line), l.line_no AS line_to,
           TRY(CAST(l.raw_line AS JSON)) AS e
    FROM lines l WHERE l.source = 'log'),
  snap AS (
    SELECT * EXCLUDE (e), json_extract(e, '$.v') AS s FROM logl
    WHERE (e->>'$.kind') = '0'
    QUALIFY row_number() OVER (PARTITION BY file_id, witness_gen ORDER BY line_no DESC) = 1),
  reqs AS (
    SELECT d.* EXCLUDE (s), unnest(range(0, CAST(json_array_length(d.s, '$.requests') AS INTEGER))) AS idx,
           d.s AS s
    FROM (SELECT * FROM docs UNION ALL BY NAME SELECT * FROM snap) d
    WHERE json_type(d.s, '$.requests') = 'ARRAY'),
  req_rows AS (
    SELECT file_id, witness_gen, line_no, line_to, abs_path, session_hint, machine_id, byte_offset, captured_at,
           source, idx AS seq, json_extract(s, '$.requests[' || idx || ']') AS r
    FROM reqs
    UNION ALL BY NAME
    -- requests pushed by the log after its snapshot
    SELECT p.file_id, p.witness_gen, p.line_no, p.line_to, p.abs_path, p.session_hint, p.machine_id,
           p.byte_offset, p.captured_at, p.source, 100000 + p.line_no * 100 + p.k AS seq,
           json_extract(p.e, '$.v[' || p.k || ']') AS r
    FROM (SELECT *, unnest(range(0, CAST(coalesce(json_array_length(e, '$.v'), 0) AS INTEGER))) AS k
          FROM logl
          WHERE (e->>'$.kind') = '2' AND CAST(json_extract(e, '$.k') AS VARCHAR) = '["requests"]') p),
  events AS (
    SELECT l.* EXCLUDE (raw_line), l.line_no AS line_to,
           unnest([TRY(from_json(l.raw_line, '{"type":"VARCHAR","id":"VARCHAR","timestamp":"VARCHAR",
             "data":{"sessionId":"VARCHAR","content":"VARCHAR","messageId":"VARCHAR","toolRequests":"JSON",
                     "toolCallId":"VARCHAR","toolName":"VARCHAR","arguments":"JSON","success":"VARCHAR"}}'))]) AS j
    FROM lines l WHERE l.source = 'events')
SELECT
  file_id, witness_gen, line_no, abs_path, session_hint AS session_id,
  make_timestamptz(CAST((r->>'$.timestamp') AS BIGINT) * 1000) AS event_time, captured_at,
  source, 'request' AS ev_type,
  (r->>'$.modelId')                               AS model,
  (r->>'$.message.text')                          AS user_text,
  json_extract(r, '$.response')                   AS response,
  array_to_string(list_transform(
    list_filter(TRY(from_json(json_extract(r, '$.response'), '[{"kind":"VARCHAR","value":"JSON"}]')),
      lambda p: (p.kind IS NULL OR p.kind = 'markdownContent') AND json_type(p.value) = 'VARCHAR'),
    lambda p: p.value->>'$'), '')                 AS reply_text,
  -- additions
  machine_id, byte_offset, line_to, seq,
  (r->>'$.requestId')                             AS request_id,
  json_extract(r, '$.result')                     AS result,
  NULL::VARCHAR AS content, NULL::JSON AS tool_requests, NULL::VARCHAR AS tool_call_id,
  NULL::VARCHAR AS tool_name, NULL::BOOLEAN AS success
FROM req_rows
UNION ALL BY NAME
SELECT
  file_id, witness_gen, line_no, abs_path, session_hint AS session_id,
  coalesce(event_time, TRY_CAST(j.timestamp AS TIMESTAMPTZ)) AS event_time, captured_at,
  source, j.type AS ev_type, NULL AS model, NULL AS user_text, NULL::JSON AS response, NULL AS reply_text,
  machine_id, byte_offset, line_to, line_no AS seq, NULL AS request_id, NULL::JSON AS result,
  j.data.content AS content, j.data.toolRequests AS tool_requests,
  j.data.toolCallId AS tool_call_id, j.data.toolName AS tool_name,
  TRY_CAST(j.data.success AS BOOLEAN) AS success
FROM events WHERE j IS NOT NULL;
