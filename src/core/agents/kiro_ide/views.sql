-- Kiro's views (assembled into the cache's schema after sql/10_dialects.sql, before
-- sql/20_derived.sql). Both of its session files are JSON documents rewritten whole: each
-- generation's lines are joined and parsed, and every row cites the whole document (line_no 1 ..
-- line_to), as dialect.ts beside this file reads them. Kiro's files carry no token counts and no
-- tool calls the public readers know of: no usage or tool-call views.

-- One row per entry of a session's version (.chat: chat[] or history[]; workspace-sessions:
-- history[] with a message each).
CREATE OR REPLACE VIEW dialects.v_kiro_ide AS
WITH
  joined AS (SELECT * FROM dialects.json_documents('kiro_ide', '.')),
  docs AS (
    SELECT * EXCLUDE (text), CAST(text AS JSON) AS doc,
           CASE WHEN json_type(CAST(text AS JSON), '$.chat') = 'ARRAY' THEN '$.chat' ELSE '$.history' END AS list
    FROM joined WHERE json_valid(text)),
  items AS (
    SELECT d.*, unnest(range(0, CAST(coalesce(json_array_length(d.doc, d.list), 0) AS BIGINT))) AS idx
    FROM docs d),
  entries AS (
    SELECT *, json_extract(doc, list || '[' || idx || ']') AS e FROM items)
SELECT
  file_id, witness_gen, 1 AS line_no, abs_path, session_hint AS session_id,
  NULL::TIMESTAMPTZ AS event_time, captured_at,
  coalesce(e->>'$.message.role', e->>'$.role') AS role,
  coalesce(json_extract(e, '$.message.content'), json_extract(e, '$.content')) AS content,
  -- additions
  machine_id, byte_offset, line_to, idx + 1 AS entry_index,
  coalesce(doc->>'$.metadata.modelId', doc->>'$.selectedModel', doc->>'$.defaultModelTitle') AS model,
  (e->>'$.promptLogs.completion') AS completion,
  (doc->>'$.title') AS title,
  make_timestamptz(TRY_CAST((doc->>'$.metadata.startTime') AS BIGINT) * 1000) AS started
FROM entries;

-- Text of a content (a string, or text blocks joined by a line break).
CREATE OR REPLACE MACRO dialects.kiro_ide_text(content) AS
  CASE WHEN json_type(content) = 'VARCHAR' THEN content->>'$'
       ELSE array_to_string(list_transform(
              list_filter(TRY(from_json(content, '[{"type":"VARCHAR","text":"VARCHAR"}]')),
                          lambda b: coalesce(b.type, 'text') = 'text' AND trim(coalesce(b.text, '')) <> ''),
              lambda b: b.text), chr(10)) END;

-- What the person typed, out of Kiro's steering rules and environment around it (dialect.ts
-- kiroUserText); '' when the entry is only those.
CREATE OR REPLACE MACRO dialects.kiro_ide_after(t, tag) AS
  CASE WHEN position(tag IN t) > 0
       THEN trim(ltrim(regexp_extract(t, '(?s)^.*' || tag || '(.*)$', 1), '`' || chr(13) || chr(10)))
       ELSE t END;
CREATE OR REPLACE MACRO dialects.kiro_ide_user_part(t) AS
  CASE WHEN starts_with(t, '## Included Rules') OR starts_with(t, '<steering-reminder>') THEN ''
       WHEN starts_with(t, 'Follow these instructions') AND length(t) > 5000 THEN ''
       ELSE t END;
CREATE OR REPLACE MACRO dialects.kiro_ide_user_text(raw) AS
  CASE WHEN starts_with(trim(coalesce(raw, '')), '<identity>') THEN ''
       ELSE dialects.kiro_ide_user_part(regexp_replace(split_part(
              dialects.kiro_ide_after(dialects.kiro_ide_after(trim(coalesce(raw, '')), '</user-rule>'), '</steering-reminder>'),
              '<EnvironmentContext>', 1), '^\s+|\s+$', '', 'g')) END;

-- Messages: a person's entry with something they typed is a prompt; every bot or assistant entry
-- is a reply (an empty or "On it." one in its prompt log's words).
CREATE OR REPLACE VIEW derived.v_messages_kiro_ide AS
WITH m AS (
  SELECT *, dialects.kiro_ide_text(content) AS raw FROM dialects.v_kiro_ide WHERE role IN ('human', 'user', 'bot', 'assistant'))
SELECT 'kiro_ide:'||session_id||':'||witness_gen||':'||entry_index AS msg_id,
       'kiro-ide' AS agent, session_id,
       CASE WHEN role IN ('human', 'user') THEN 'user' ELSE 'assistant' END AS role,
       CASE WHEN role IN ('bot', 'assistant') THEN model END AS model,
       CASE WHEN role IN ('human', 'user') THEN dialects.kiro_ide_user_text(raw)
            WHEN (regexp_replace(coalesce(raw, ''), '^\s+|\s+$', '', 'g') IN ('', 'On it.'))
                 AND regexp_replace(coalesce(completion, ''), '^\s+|\s+$', '', 'g') <> ''
              THEN regexp_replace(completion, '^\s+|\s+$', '', 'g')
            ELSE regexp_replace(coalesce(raw, ''), '^\s+|\s+$', '', 'g') END AS text,
       coalesce(event_time, started) AS event_time, captured_at, file_id, witness_gen, line_no, machine_id,
       'kiro_ide:'||session_id||':'||witness_gen||':'||entry_index AS turn_id,
       false AS is_meta
FROM m
WHERE role IN ('bot', 'assistant') OR dialects.kiro_ide_user_text(raw) <> '';

-- Times: those of the session's messages (a document's lines have no time of their own).
CREATE OR REPLACE VIEW derived.v_clock_kiro_ide AS
SELECT file_id, min(event_time) AS first_event, max(event_time) AS last_event FROM derived.v_messages_kiro_ide GROUP BY file_id;
