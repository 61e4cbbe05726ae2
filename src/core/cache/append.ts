// Bulk rows into a DuckDB table through the appender, a data chunk (up to 2048 rows) at a time:
// one native call per column per chunk instead of one per value, and no SQL text per row.
import { DuckDBDataChunk, type DuckDBAppender, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';

const CHUNK_ROWS = 2048;

export class ChunkAppender {
  private cols: DuckDBValue[][];
  private n = 0;
  rows = 0;

  private constructor(
    private readonly appender: DuckDBAppender,
    private readonly types: DuckDBType[],
  ) {
    this.cols = types.map(() => []);
  }

  /** Appender on a temporary table (catalog temp, schema main). */
  static async temp(conn: DuckDBConnection, table: string, types: DuckDBType[]): Promise<ChunkAppender> {
    return new ChunkAppender(await conn.createAppender(table, 'main', 'temp'), types);
  }

  push(row: DuckDBValue[]): void {
    for (let i = 0; i < row.length; i++) this.cols[i].push(row[i]);
    this.n++;
    this.rows++;
    if (this.n >= CHUNK_ROWS) this.flushChunk();
  }

  private flushChunk(): void {
    if (this.n === 0) return;
    const chunk = DuckDBDataChunk.create(this.types, this.n);
    chunk.setColumns(this.cols);
    this.appender.appendDataChunk(chunk);
    this.cols = this.types.map(() => []);
    this.n = 0;
  }

  /** Makes every pushed row visible to SQL on this connection. */
  flush(): void {
    this.flushChunk();
    this.appender.flushSync();
  }

  close(): void {
    this.flushChunk();
    this.appender.closeSync();
  }
}
