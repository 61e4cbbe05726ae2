-- What every agent's views share (assembled first; then each agent's views.sql, from
-- src/core/agents/<lane>/, then 20_derived.sql). Each agent's dialect view, dialects.v_<lane>,
-- alone knows that agent's vocabulary and projects floor lines into a common shape. The columns
-- named in the floor document come first, in its order and with its meaning; the columns after
-- `-- additions` are this project's (tool calls, usage, project, machine). Each line is parsed
-- once: TRY(from_json(line, shape)) reads every field the view needs into a struct in one pass
-- (3x faster than json_extract with a list of paths, measured), and is NULL for a line that is
-- not JSON, which is how the document's json_valid() filter is kept. Fields that are JSON in the
-- shape stay JSON text (content, usage, arguments, ...). The struct is produced through
-- unnest([...]): DuckDB does not push a filter below an unnest, whereas it copies the from_json
-- call into every pushed-down condition on its fields (one full parse per condition: 10x slower,
-- measured).

CREATE SCHEMA IF NOT EXISTS dialects;
CREATE SCHEMA IF NOT EXISTS derived;

-- the floor rows of every generation (a rewritten file keeps its older generations; each view
-- reads each generation on its own, partitioned by (file_id, witness_gen), and derived.messages and
-- derived.usage keep a row several generations hold once). dialects.v_newest: the newest only.
-- (Addition: while the program re-derives some files it sets the variable brain_refresh_files to
-- their file_ids, so every view built on it reads only those files' lines; DuckDB cannot push such a
-- filter given from outside through the views' windows and unnests. Unset, as in every query a
-- user can run, the filter passes every file.)
-- The range check beside it is the same filter in a form DuckDB pushes into the scan of
-- floor.raw_lines (getvariable is a constant to the planner), so only the row groups of those files
-- are read and decompressed; without it every view read every line of its agent on each refresh.
CREATE OR REPLACE VIEW dialects.v_live AS
SELECT r.* FROM floor.raw_lines r
WHERE r.file_id IN (SELECT unnest(coalesce(getvariable('brain_refresh_files'),
                                          (SELECT list(file_id) FROM floor.ingest_state))))
  AND (getvariable('brain_refresh_files') IS NULL
       OR r.file_id BETWEEN list_min(getvariable('brain_refresh_files'))
                        AND list_max(getvariable('brain_refresh_files')));

CREATE OR REPLACE VIEW dialects.v_newest AS
SELECT r.* FROM dialects.v_live r
JOIN floor.ingest_state s ON s.file_id = r.file_id AND s.witness_gen = r.witness_gen;

-- The other forms of a session (src/core/truth.ts: a session is one conversation, however many
-- files hold it). An agent may write one session whole in more than one file (a .json and a .jsonl
-- change log of it; an archived copy of a rollout): show reads the largest, by the
-- bytes the manifest claims of its newest generation, the one claimed first on a tie (the turn
-- index's rule, src/core/index/turncount.ts). The others hold the same conversation and have no
-- messages, calls or tokens of their own: an agent whose sessions have forms (its registry entry
-- says `forms`) leaves these files out of its views, and a refresh re-derives every form of a
-- session it touches (src/core/cache/ingest.ts), as which one is shown changes while they grow.
CREATE OR REPLACE MACRO dialects.other_forms(lane_name) AS TABLE
SELECT file_id FROM (
  SELECT f.file_id, f.machine_id, f.session_hint, max(c.byte_to) AS claimed, min(c.manifest_offset) AS first_claim
  FROM floor.files f
  JOIN floor.ingest_state s ON s.file_id = f.file_id
  JOIN floor.chunks c ON c.file_id = s.file_id AND c.witness_gen = s.witness_gen
  WHERE f.lane = lane_name AND c.lane = lane_name
  GROUP BY ALL)
QUALIFY row_number() OVER (PARTITION BY machine_id, session_hint ORDER BY claimed DESC, first_claim) > 1;

-- shared text extraction over the common block-array shape. The document's macro, same result;
-- the array case reads the blocks' type and text with one from_json (twice as fast as extracting
-- each block as JSON and then its fields, measured) and falls back to the document's form if
-- from_json refuses the array.
-- content is always JSON that DuckDB wrote (a "JSON" field of from_json: no blank before the
-- value), so its first character is its type; json_type(content) in the WHEN made the from_json
-- after it hold ~100 MB more per 32 MB of lines (DuckDB 1.5, measured), for the same answer.
-- derived.text_of_blocks is the macro for a view that has parsed the array itself (blocks: its
-- from_json as a list of structs with at least type and text), so one parse gives the text and
-- whatever else the view reads of the blocks; derived.text_of parses for it.
CREATE OR REPLACE MACRO derived.text_of_blocks(content, blocks) AS
  CASE WHEN content IS NULL THEN NULL
       WHEN left(content, 1) = '"' THEN json_extract_string(content, '$')
       WHEN left(content, 1) = '[' THEN
         coalesce(
           array_to_string(list_transform(
             list_filter(blocks, lambda b: b.type IN ('text','input_text','output_text')),
             lambda b: b.text), chr(10)),
           array_to_string(list_transform(
             list_filter(json_extract(content,'$[*]'),
               lambda x: json_extract_string(x,'$.type') IN ('text','input_text','output_text')),
             lambda x: json_extract_string(x,'$.text')), chr(10)))
       ELSE NULL END;

CREATE OR REPLACE MACRO derived.text_of(content) AS
  derived.text_of_blocks(content, TRY(from_json(content, '[{"type":"VARCHAR","text":"VARCHAR"}]')));

-- A JSON number (what JSON.parse gives as a number), for checks that follow ccusage's schema.
CREATE OR REPLACE MACRO derived.is_json_number(j) AS
  j IS NOT NULL AND json_type(j) IN ('UBIGINT', 'BIGINT', 'DOUBLE');

-- Absent, or a non-empty JSON string.
CREATE OR REPLACE MACRO derived.absent_or_text(j) AS
  j IS NULL OR (json_type(j) = 'VARCHAR' AND length((j->>'$')) > 0);
