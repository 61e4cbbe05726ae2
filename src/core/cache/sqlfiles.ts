// The .sql files of sql/: the floor schema, the dialect views, the derived layer (run in name
// order on every writable open), the ingest operations (sql/ops) and the reports (sql/reports).
// They are read at run time, never inlined: a view can be fixed by editing its file.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrainError } from '../errors';

let cachedDir: string | undefined;

/** sql/ beside the bundle (dist/cli.js, dist/extension.js → ../sql), or at the repository root
 * when running from source (src/core/cache → ../../../sql). BRAIN_SQL_DIR overrides both. */
export function sqlDir(): string {
  if (cachedDir) return cachedDir;
  const candidates = [
    process.env.BRAIN_SQL_DIR,
    path.join(__dirname, '..', 'sql'),
    path.join(__dirname, '..', '..', '..', 'sql'),
  ].filter((d): d is string => !!d);
  for (const d of candidates) {
    if (fs.existsSync(path.join(d, '00_floor.sql'))) {
      cachedDir = d;
      return d;
    }
  }
  throw new BrainError(
    'sql-missing',
    `The SQL files of the DuckDB cache were not found (looked in ${candidates.join(', ')}).`,
    'Reinstall Agent Brain, or set BRAIN_SQL_DIR to the folder holding 00_floor.sql.',
  );
}

export interface Schema {
  files: string[];
  text: string;
  /** Changes whenever any schema file changes: a cache built from another schema is rebuilt. */
  hash: string;
}

let cachedSchema: Schema | undefined;

export function loadSchema(): Schema {
  if (cachedSchema) return cachedSchema;
  const dir = sqlDir();
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const h = createHash('sha256');
  const parts: string[] = [];
  for (const f of files) {
    const t = fs.readFileSync(path.join(dir, f), 'utf8');
    h.update(f).update('\0').update(t).update('\0');
    parts.push(t);
  }
  // The ingest statements decide what lands in the tables too.
  const opsDir = path.join(dir, 'ops');
  for (const f of fs.existsSync(opsDir) ? fs.readdirSync(opsDir).filter((x) => x.endsWith('.sql')).sort() : []) {
    h.update(`ops/${f}`).update('\0').update(fs.readFileSync(path.join(opsDir, f))).update('\0');
  }
  cachedSchema = { files, text: parts.join('\n;\n'), hash: h.digest('hex').slice(0, 16) };
  return cachedSchema;
}

const ops = new Map<string, string>();

/** sql/<group>/<name>.sql, e.g. loadSql('ops', 'ingest_lines'). */
export function loadSql(group: 'ops' | 'reports', name: string): string {
  const key = `${group}/${name}`;
  let t = ops.get(key);
  if (t === undefined) {
    const file = path.join(sqlDir(), group, `${name}.sql`);
    try {
      t = fs.readFileSync(file, 'utf8');
    } catch (e) {
      throw new BrainError('sql-missing', `Cannot read ${file}.`, 'Reinstall Agent Brain.', { cause: e });
    }
    ops.set(key, t);
  }
  return t;
}
