-- The floor schema. The tables floor.lanes .. floor.ingest_state are the floor document's,
-- verbatim; what follows them is what this cache adds so it can be rebuilt and kept current
-- from lake/ + manifest/manifest.jsonl alone. Every statement is idempotent: the program runs
-- this file on every open of a writable cache.

CREATE SCHEMA IF NOT EXISTS floor;

CREATE TABLE IF NOT EXISTS floor.lanes (
  lane       TEXT PRIMARY KEY,     -- one per kind of session file an agent writes
  agent      TEXT NOT NULL,        -- the registry's lane code
  mode       TEXT NOT NULL CHECK (mode IN ('hook','watch')),
  root_glob  TEXT NOT NULL,
  enabled    BOOLEAN NOT NULL DEFAULT true
);

-- one row per ORIGIN file ever seen (identity carries machine_id: cross-check M4)
CREATE TABLE IF NOT EXISTS floor.files (
  file_id      TEXT PRIMARY KEY,   -- sha256(machine_id:agent:realpath)[:32]
  machine_id   TEXT NOT NULL,
  agent        TEXT NOT NULL,
  lane         TEXT NOT NULL,
  abs_path     TEXT NOT NULL,
  session_hint TEXT,               -- uuid regex'd from filename
  first_seen   TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- append-only observation log (gravity's witness idea, per visit)
CREATE TABLE IF NOT EXISTS floor.witnesses (
  file_id      TEXT NOT NULL,
  observed_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  size_bytes   BIGINT NOT NULL,
  mtime        TIMESTAMPTZ,
  growth       TEXT NOT NULL,      -- 'first' | 'append' | 'rewrite' | 'truncated' | 'unchanged'
  prefix_ok    BOOLEAN,
  new_lines    INTEGER NOT NULL DEFAULT 0
);

-- per-line rows. Duplicates preserved; dedup is derived-layer business (C3 resolution).
-- (Storage, not meaning, departs from the document here. The lines are stored once, in
-- floor.line_store, zstd-compressed (DuckDB keeps long strings uncompressed otherwise: the cache
-- was 1.4x the lake), without a primary key or index (no query used them: DuckDB scans by zone
-- maps, and the loader writes rows in file order; building them cost most of the rebuild's memory
-- and a third of the file). floor.raw_lines is the document's table as a view over it: a line's
-- sha256 and byte length are what raw_line's own bytes give (64 hex characters a line do not
-- compress), computed when read, and stored only for a line whose text is not its bytes (invalid
-- UTF-8 replaced) or that has no newline. (file_id, witness_gen, byte_offset) is still unique: the
-- loader deletes from a restart offset before it writes again, see ops/ingest_lines.sql.)
CREATE TABLE IF NOT EXISTS floor.line_store (
  file_id       TEXT NOT NULL,
  witness_gen   SMALLINT NOT NULL,
  byte_offset   BIGINT NOT NULL,
  line_no       INTEGER NOT NULL,
  raw_line      TEXT NOT NULL USING COMPRESSION zstd,
  utf8_replaced BOOLEAN NOT NULL,
  lane          TEXT NOT NULL,
  agent         TEXT NOT NULL,
  event_time    TIMESTAMPTZ,
  captured_at   TIMESTAMPTZ NOT NULL,
  orig_sha256   TEXT,      -- NULL: sha256(raw_line) is the line's hash
  orig_n_bytes  INTEGER    -- NULL: the line is raw_line's bytes and a newline
);

CREATE OR REPLACE VIEW floor.raw_lines AS
SELECT
  file_id,
  witness_gen,                                  -- bumped on rewrite; OLD GENERATIONS KEPT
  byte_offset,
  line_no,                                      -- 1-based within (file, gen) — the citation line number
  raw_line,                                     -- utf-8; lake object is byte-exact if this was replaced
  coalesce(orig_sha256, sha256(raw_line)) AS line_sha256, -- sha256 of ORIGINAL line bytes (no trailing newline)
  CAST(coalesce(orig_n_bytes, strlen(raw_line) + 1) AS INTEGER) AS n_bytes, -- original byte length incl. newline
  utf8_replaced,
  lane,
  agent,
  event_time,                                   -- the line's OWN clock; nullable (not every line has one)
  captured_at                                   -- NEVER null (the 89/89 lesson)
FROM floor.line_store;

-- the sync-state v1 defined and never used, made real
CREATE TABLE IF NOT EXISTS floor.ingest_state (
  file_id       TEXT PRIMARY KEY,
  witness_gen   SMALLINT NOT NULL DEFAULT 1,
  last_size     BIGINT NOT NULL,
  last_offset   BIGINT NOT NULL,     -- byte offset AFTER the last complete consumed line
  last_line_no  INTEGER NOT NULL,
  prefix_sha256 TEXT NOT NULL,       -- sha256 of bytes [0, last_offset)
  updated_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- ---------------------------------------------------------------------------------------------
-- Additions of this cache.

-- The manifest as a table: one row per manifest line (chunk), keyed by the line's byte offset in
-- manifest/manifest.jsonl. It maps a (file, generation) to its lake file, which is what a
-- citation names, and it is where each line's captured_at comes from.
CREATE TABLE IF NOT EXISTS floor.chunks (
  manifest_offset BIGINT PRIMARY KEY,
  file_id         TEXT NOT NULL,
  witness_gen     SMALLINT NOT NULL,
  lane            TEXT NOT NULL,
  agent           TEXT NOT NULL,         -- the manifest's long agent name (the registry's `agent`)
  session         TEXT,
  byte_from       BIGINT NOT NULL,
  byte_to         BIGINT NOT NULL,
  line_from       INTEGER NOT NULL,
  line_to         INTEGER NOT NULL,
  chunk_sha256    TEXT NOT NULL,
  captured_at     TIMESTAMPTZ NOT NULL,
  event_ts_first  TIMESTAMPTZ,
  machine_id      TEXT NOT NULL,
  origin_path     TEXT NOT NULL,
  source          TEXT,
  lake_path       TEXT NOT NULL,         -- relative to BRAIN_HOME
  unterminated    BOOLEAN NOT NULL DEFAULT false
);

-- What the cache was built from: schema hash of sql/, how far into the manifest it has read.
CREATE TABLE IF NOT EXISTS floor.cache_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- A line's own clock: its top-level `timestamp`, or `created_at` (an older format's name for it). Lines that are not JSON, or carry no clock, get NULL.
CREATE OR REPLACE MACRO floor.event_time_of(line) AS
  TRY_CAST(list_filter(TRY(json_extract_string(line, ['$.timestamp', '$.created_at'])), lambda v: v IS NOT NULL)[1]
           AS TIMESTAMPTZ);
