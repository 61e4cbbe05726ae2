-- The toy agent's views: its dialect view and its part of derived.messages and derived.sessions.
CREATE OR REPLACE VIEW dialects.v_toy AS
SELECT
  q.file_id, q.witness_gen, q.line_no, q.abs_path, q.session_hint AS session_id,
  coalesce(q.event_time, TRY_CAST(q.j."timestamp" AS TIMESTAMPTZ)) AS event_time, q.captured_at,
  CASE q.j.who WHEN 'me' THEN 'user' WHEN 'bot' THEN 'assistant' END AS role,
  q.j.say AS text, q.j.cwd AS cwd, q.machine_id, q.byte_offset
FROM (SELECT r.file_id, r.witness_gen, r.line_no, r.byte_offset, r.event_time, r.captured_at,
             f.abs_path, f.session_hint, f.machine_id,
             unnest([TRY(from_json(r.raw_line, '{"timestamp":"VARCHAR","who":"VARCHAR","say":"VARCHAR","cwd":"VARCHAR"}'))]) AS j
      FROM dialects.v_live r JOIN floor.files f USING (file_id)
      WHERE r.lane = 'toy') q
WHERE q.j IS NOT NULL;

CREATE OR REPLACE VIEW derived.v_sessions_toy AS
SELECT file_id, arg_min(cwd, line_no) FILTER (WHERE cwd IS NOT NULL) AS project, NULL::VARCHAR AS parent_session
FROM dialects.v_toy GROUP BY file_id;

CREATE OR REPLACE VIEW derived.v_messages_toy AS
SELECT 'toy:'||session_id||':'||witness_gen||':'||line_no AS msg_id, 'toy-agent' AS agent, session_id, role,
       NULL::VARCHAR AS model, text, event_time, captured_at, file_id, witness_gen, line_no, machine_id,
       'toy:'||session_id||':'||witness_gen||':'||line_no AS turn_id, false AS is_meta
FROM dialects.v_toy WHERE role IS NOT NULL;
