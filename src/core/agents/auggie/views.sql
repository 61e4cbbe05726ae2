-- Auggie's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql). A session is one JSON document rewritten whole: each generation's lines are
-- joined and parsed, and every row cites the whole document (line_no 1 .. line_to), as dialect.ts
-- beside this file reads it. Auggie's files carry no token counts or tool calls the public
-- readers know of: no usage or tool-call views.

-- One row per exchange of a session's version.
CREATE OR REPLACE VIEW dialects.v_auggie AS
WITH
  joined AS (SELECT * FROM dialects.json_documents('auggie', '.')),
  docs AS (
    SELECT * EXCLUDE (text), CAST(text AS JSON) AS doc
    FROM joined WHERE json_valid(text) AND json_type(CAST(text AS JSON), '$.chatHistory') = 'ARRAY'),
  items AS (
    SELECT d.*, unnest(range(0, CAST(json_array_length(d.doc, '$.chatHistory') AS BIGINT))) AS idx
    FROM docs d)
SELECT
  file_id, witness_gen, 1 AS line_no, abs_path, session_hint AS session_id,
  TRY_CAST((h->>'$.finishedAt') AS TIMESTAMPTZ) AS event_time, captured_at,
  (h->>'$.exchange.request_message') AS request_message,
  (h->>'$.exchange.response_text')   AS response_text,
  -- additions
  machine_id, byte_offset, line_to, idx + 1 AS exchange_index,
  (doc->>'$.sessionId') AS native_session, (doc->>'$.title') AS title,
  TRY_CAST((h->>'$.completed') AS BOOLEAN) AS completed,
  json_extract(h, '$.exchange.request_nodes') AS request_nodes
FROM (SELECT *, json_extract(doc, '$.chatHistory[' || idx || ']') AS h FROM items);

-- Messages: an exchange's prompt and its reply, each when it says something.
CREATE OR REPLACE VIEW derived.v_messages_auggie AS
SELECT 'auggie:'||session_id||':'||witness_gen||':'||exchange_index||':'||r.role AS msg_id,
       'auggie' AS agent, session_id, r.role, NULL::VARCHAR AS model, trim(r.text) AS text,
       event_time, captured_at, file_id, witness_gen, line_no, machine_id,
       'auggie:'||session_id||':'||witness_gen||':'||exchange_index||':'||r.role AS turn_id,
       false AS is_meta
FROM dialects.v_auggie,
     LATERAL (SELECT unnest([{'role': 'user', 'text': request_message},
                             {'role': 'assistant', 'text': response_text}]) AS x) u,
     LATERAL (SELECT u.x.role AS role, u.x.text AS text) r
WHERE trim(coalesce(r.text, '')) <> '';

-- Sessions: the workspace folder the first exchange's IDE state names is the project.
CREATE OR REPLACE VIEW derived.v_sessions_auggie AS
WITH f AS (
  SELECT file_id, witness_gen, exchange_index,
         unnest(TRY(from_json(request_nodes, '[{"type":"BIGINT","ide_state_node":{"workspace_folders":[{"folder_root":"VARCHAR","repository_root":"VARCHAR"}]}}]'))) AS n
  FROM dialects.v_auggie)
SELECT a.file_id,
       (SELECT arg_min(coalesce(f.n.ide_state_node.workspace_folders[1].repository_root, f.n.ide_state_node.workspace_folders[1].folder_root),
                       f.witness_gen * -1000000 + f.exchange_index)
        FROM f WHERE f.file_id = a.file_id AND f.n.ide_state_node IS NOT NULL) AS project,
       NULL::VARCHAR AS parent_session
FROM (SELECT DISTINCT file_id FROM dialects.v_auggie) a;

-- Times: those of the session's messages (a document's lines have no time of their own).
CREATE OR REPLACE VIEW derived.v_clock_auggie AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_auggie GROUP BY file_id;
