// Row records of a database's current state, as a first pass of the recorder writes them (one
// `row` line per row, tables in declared order, rows in key order, every column with its typeof()),
// through the format's own writer (kit/sqlite.ts), without the capture pass: the dialects' unit
// tests read these. Also a plain reader of a table's rows for tests that sum what the agent wrote.
import * as fs from 'node:fs';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { delLine, encodeCell, rowLine, rowsLakeName, type Cell, type DbTable } from '../../src/core/agents/kit/sqlite';

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Lake file name -> its lines, for the rows of `tables` in `file` as they are now. */
export function rowRecords(file: string, tables: DbTable[]): Map<string, string[]> {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  db.defaultSafeIntegers(true);
  const out = new Map<string, string[]>();
  try {
    for (const t of tables) {
      // A table the database lacks has no rows (as the capture reads it).
      if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(t.name)) continue;
      const cols = (db.prepare(`SELECT * FROM ${q(t.name)} LIMIT 0`).columns() as { name: string }[]).map((c) => c.name);
      const keys = t.key.map((k) => (k === 'rowid' ? 'rowid' : q(k)));
      const sel = [
        ...keys.map((k, i) => `typeof(${k}) AS "kt${i}", ${k} AS "kv${i}"`),
        `CAST((${t.session}) AS TEXT) AS "s"`,
        ...cols.map((c, i) => `typeof(${q(c)}) AS "ct${i}", ${q(c)} AS "cv${i}"`),
      ].join(', ');
      const sql = `SELECT ${sel} FROM ${q(t.name)}${t.where ? ` WHERE (${t.where})` : ''} ORDER BY ${keys.join(', ')}`;
      for (const r of db.prepare(sql).iterate() as Iterable<Record<string, unknown>>) {
        const key = t.key.map((_, i) => encodeCell(r[`kt${i}`] as string, r[`kv${i}`])[1]);
        const cells: Cell[] = cols.map((c, i) => {
          const [type, v] = encodeCell(r[`ct${i}`] as string, r[`cv${i}`]);
          return [c, type, v];
        });
        const name = rowsLakeName('', r.s === null || r.s === undefined ? null : String(r.s));
        let a = out.get(name);
        if (!a) out.set(name, (a = []));
        a.push(rowLine(t.name, key, cells));
      }
    }
  } finally {
    db.close();
  }
  return out;
}

/** Writes `lines` (and a newline after each) as lake file `name` under `dir`; returns its path. */
export function writeLake(dir: string, name: string, lines: string[]): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, lines.map((l) => l + '\n').join(''));
  return file;
}

export { delLine };
