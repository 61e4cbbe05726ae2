// Functions this program adds to every DuckDB connection it opens (db.ts): what SQL alone cannot
// do with an agent's bytes. They run on the JS thread (the node API marshals the calls), so every
// query that uses them must be run with the async API, as all of the cache's are.
import * as zlib from 'node:zlib';
import { DuckDBScalarFunction, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';

type Unzstd = (b: Buffer) => Buffer;
const unzstd = (zlib as unknown as { zstdDecompressSync?: Unzstd }).zstdDecompressSync;

/** brain_unzstd_b64(text): the UTF-8 text of the zstd frame whose bytes `text` holds in base64
 * (a blob cell of a row record: Zed keeps each thread so); NULL when it is not one, or when this
 * Node has no zstd. */
function unzstdB64(s: unknown): string | null {
  if (typeof s !== 'string' || !unzstd) return null;
  try {
    return unzstd(Buffer.from(s, 'base64')).toString('utf8');
  } catch {
    return null;
  }
}

export function registerFunctions(conn: DuckDBConnection): void {
  conn.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: 'brain_unzstd_b64',
      mainFunction: (_info, input, output) => {
        const v = input.getColumnVector(0);
        for (let i = 0; i < input.rowCount; i++) output.setItem(i, unzstdB64(v.getItem(i)));
        output.flush();
      },
      returnType: VARCHAR,
      parameterTypes: [VARCHAR],
      specialHandling: true,
    }),
  );
}
