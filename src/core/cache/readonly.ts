// What `brain sql` (and the MCP / LM SQL tools) accept: exactly one statement that reads. The
// connection is already read-only, with file access off and its settings locked; this check is
// there to refuse writes with a message that says so, before DuckDB gives a less direct one.
import { StatementType } from '@duckdb/node-api';
import { BrainError } from '../errors';

const WRITE_WORDS = new Set([
  'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'TRUNCATE', 'CREATE', 'DROP', 'ALTER', 'COPY', 'EXPORT',
  'IMPORT', 'ATTACH', 'DETACH', 'INSTALL', 'LOAD', 'FORCE', 'UPDATE_EXTENSIONS', 'SET', 'RESET',
  'CHECKPOINT', 'VACUUM', 'CALL', 'BEGIN', 'START', 'COMMIT', 'ROLLBACK', 'ABORT', 'END',
  'USE', 'PREPARE', 'EXECUTE', 'DEALLOCATE', 'ANALYZE', 'COMMENT',
]);

/** The first keyword of a statement, skipping comments, whitespace, parentheses and EXPLAIN [ANALYZE]. */
export function leadingKeyword(sql: string): string {
  let s = sql;
  for (;;) {
    const before = s;
    s = s.replace(/^\s+/, '').replace(/^--[^\n]*\n?/, '').replace(/^\/\*[\s\S]*?\*\//, '').replace(/^\(+/, '');
    if (s === before) break;
  }
  const m = /^([A-Za-z_]+)/.exec(s);
  if (!m) return '';
  const w = m[1].toUpperCase();
  if (w === 'EXPLAIN') {
    const rest = s.slice(m[0].length).replace(/^\s+(ANALYZE|ANALYSE)\b/i, '');
    return leadingKeyword(rest) || 'EXPLAIN';
  }
  return w;
}

export function refuse(kind: string): BrainError {
  return new BrainError(
    'sql-read-only',
    `brain sql is read-only: ${kind} statements are refused.`,
    'Only SELECT (with WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN) can run here. The cache is rebuilt from the floor by `brain rebuild`; nothing else writes to it.',
  );
}

/** Refuses, before anything runs, a statement whose first keyword writes. */
export function precheck(sql: string): void {
  if (sql.trim().length === 0) throw new BrainError('sql-empty', 'No SQL statement given.', 'Example: brain sql "SELECT agent, count(*) FROM derived.messages GROUP BY agent"');
  const w = leadingKeyword(sql);
  if (WRITE_WORDS.has(w)) throw refuse(w);
}

const ALLOWED = new Set<number>([StatementType.SELECT, StatementType.EXPLAIN]);

/** Refuses a prepared statement whose type is not a read. */
export function checkType(type: number, sql: string): void {
  if (ALLOWED.has(type)) return;
  const name = (StatementType as unknown as Record<number, string>)[type];
  throw refuse(name ?? (leadingKeyword(sql) || `type ${type}`));
}
