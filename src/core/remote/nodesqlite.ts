// better-sqlite3's API, as much of it as the turn index uses, over node:sqlite (Node ≥ 22.13, no
// native module to ship). dist/remote.js loads it in better-sqlite3's place, so the store host
// keeps the store's turn index with the same code this machine uses. Requiring it where node has
// no node:sqlite throws, as a missing better-sqlite3 does, and the caller falls back to the scan.

/** The part of node:sqlite used here (the installed @types/node predates it). */
declare namespace NodeSqlite {
  type SQLInputValue = null | number | bigint | string | Uint8Array;
  interface StatementSync {
    run(...p: SQLInputValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
    get(...p: SQLInputValue[]): unknown;
    all(...p: SQLInputValue[]): unknown[];
  }
  interface DatabaseSync {
    prepare(sql: string): StatementSync;
    exec(sql: string): void;
    close(): void;
  }
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const sqlite = require('node:sqlite') as { DatabaseSync: new (file: string, o: { readOnly: boolean }) => NodeSqlite.DatabaseSync };

type Params = unknown[];

/** better-sqlite3 spreads an array argument into positional parameters (the turn index binds a
 * multi-row insert so); node:sqlite would take it as an object of named ones. */
function args(p: Params): NodeSqlite.SQLInputValue[] {
  return p.flatMap((v) => (Array.isArray(v) ? v : [v])) as NodeSqlite.SQLInputValue[];
}

class Statement {
  private mode: 'rows' | 'pluck' | 'raw' = 'rows';

  constructor(private readonly st: NodeSqlite.StatementSync) {}

  pluck(on = true): this {
    this.mode = on ? 'pluck' : 'rows';
    return this;
  }

  raw(on = true): this {
    this.mode = on ? 'raw' : 'rows';
    return this;
  }

  private shape(row: Record<string, unknown> | undefined): unknown {
    if (row === undefined || this.mode === 'rows') return row;
    const values = Object.values(row);
    return this.mode === 'pluck' ? values[0] : values;
  }

  run(...p: Params): { changes: number; lastInsertRowid: number } {
    const r = this.st.run(...args(p));
    return { changes: Number(r.changes), lastInsertRowid: Number(r.lastInsertRowid) };
  }

  get(...p: Params): unknown {
    return this.shape(this.st.get(...args(p)) as Record<string, unknown> | undefined);
  }

  all(...p: Params): unknown[] {
    return (this.st.all(...args(p)) as Record<string, unknown>[]).map((r) => this.shape(r));
  }

  *iterate(...p: Params): IterableIterator<unknown> {
    for (const r of this.all(...p)) yield r;
  }
}

class Database {
  private readonly db: NodeSqlite.DatabaseSync;
  private depth = 0;

  constructor(file: string | Buffer, opts: { timeout?: number; readonly?: boolean } = {}) {
    if (typeof file !== 'string') throw new Error('node:sqlite opens files only, not an image in memory');
    this.db = new sqlite.DatabaseSync(file, { readOnly: !!opts.readonly });
    this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(opts.timeout ?? 5000))}`);
  }

  get inTransaction(): boolean {
    const own = (this.db as unknown as { isTransaction?: boolean }).isTransaction;
    return own ?? this.depth > 0;
  }

  prepare(sql: string): Statement {
    return new Statement(this.db.prepare(sql));
  }

  exec(sql: string): this {
    this.db.exec(sql);
    // Counted for nodes without isTransaction (before 22.16): the turn index opens and ends its
    // transactions with exec alone.
    const s = sql.trim().toUpperCase();
    if (s.startsWith('BEGIN')) this.depth++;
    else if ((s.startsWith('COMMIT') || s.startsWith('ROLLBACK') || s.startsWith('END')) && this.depth > 0) this.depth--;
    return this;
  }

  pragma(text: string, o: { simple?: boolean } = {}): unknown {
    const rows = this.db.prepare(`PRAGMA ${text}`).all() as Record<string, unknown>[];
    return o.simple ? (rows[0] ? Object.values(rows[0])[0] : undefined) : rows;
  }

  transaction<A extends unknown[]>(fn: (...a: A) => unknown): (...a: A) => unknown {
    return (...a: A) => {
      this.exec('BEGIN');
      try {
        const r = fn(...a);
        this.exec('COMMIT');
        return r;
      } catch (e) {
        if (this.inTransaction) this.exec('ROLLBACK');
        throw e;
      }
    };
  }

  close(): void {
    this.db.close();
  }
}

export = Database;
