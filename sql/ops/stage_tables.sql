-- Temporary staging tables of one ingest. The program appends rows here with DuckDB's appender
-- (bulk, no per-row INSERT), then the ingest_*.sql statements move them into the floor tables.
-- Times arrive as text and are cast here, so a bad manifest value cannot stop the appender.
CREATE OR REPLACE TEMP TABLE stage_chunks (
  manifest_offset BIGINT, file_id TEXT, witness_gen SMALLINT, lane TEXT, agent TEXT, session TEXT,
  byte_from BIGINT, byte_to BIGINT, line_from INTEGER, line_to INTEGER, chunk_sha256 TEXT,
  captured_at TEXT, event_ts_first TEXT, machine_id TEXT, origin_path TEXT, source TEXT,
  lake_path TEXT, unterminated BOOLEAN);
CREATE OR REPLACE TEMP TABLE stage_lines (
  file_id TEXT, witness_gen SMALLINT, byte_offset BIGINT, line_no INTEGER, raw_line TEXT,
  line_sha256 TEXT, n_bytes INTEGER, utf8_replaced BOOLEAN, lane TEXT, agent TEXT);
CREATE OR REPLACE TEMP TABLE stage_state (
  file_id TEXT, witness_gen SMALLINT, last_size BIGINT, last_offset BIGINT, last_line_no INTEGER,
  prefix_sha256 TEXT);
CREATE OR REPLACE TEMP TABLE bulk_files (
  idx INTEGER, path TEXT, file_id TEXT, witness_gen SMALLINT, lane TEXT, agent TEXT);
CREATE OR REPLACE TEMP TABLE bulk_lines (
  idx INTEGER, line_no INTEGER, byte_offset BIGINT, n_bytes INTEGER, captured_us BIGINT);
CREATE OR REPLACE TEMP TABLE touched_files (file_id TEXT);
CREATE OR REPLACE TEMP TABLE touched_origins (lane TEXT, origin_path TEXT);
