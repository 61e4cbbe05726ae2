// Functions this program adds to every DuckDB connection it opens (db.ts): what SQL alone cannot
// do with an agent's bytes. They run on the JS thread (the node API marshals the calls), so every
// query that uses them must be run with the async API, as all of the cache's are.
import * as zlib from 'node:zlib';
import { DuckDBScalarFunction, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { fields, toJsonLists } from '../agents/kit/protobuf';

type Unzstd = (b: Buffer) => Buffer;
const unzstd = (zlib as unknown as { zstdDecompressSync?: Unzstd }).zstdDecompressSync;

/** brain_unzstd_b64(text): the UTF-8 text of the zstd frame whose bytes `text` holds in base64
 * (a blob cell of a row record: an agent that keeps its documents zstd-compressed); NULL when it
 * is not one, or when this Node has no zstd. */
function unzstdB64(s: unknown): string | null {
  if (typeof s !== 'string' || !unzstd) return null;
  try {
    return unzstd(Buffer.from(s, 'base64')).toString('utf8');
  } catch {
    return null;
  }
}

/** brain_protobuf_json(text): the protobuf message whose bytes `text` holds in base64, as JSON
 * keyed by field number, every field a list (kit/protobuf.ts); NULL when it is not one (for agents
 * that keep messages as protobuf without publishing the schema). */
function protobufJson(s: unknown): string | null {
  if (typeof s !== 'string') return null;
  const f = fields(Buffer.from(s, 'base64'));
  return f ? JSON.stringify(toJsonLists(f)) : null;
}

function scalar(name: string, fn: (s: unknown) => string | null): DuckDBScalarFunction {
  return DuckDBScalarFunction.create({
    name,
    mainFunction: (_info, input, output) => {
      const v = input.getColumnVector(0);
      for (let i = 0; i < input.rowCount; i++) output.setItem(i, fn(v.getItem(i)));
      output.flush();
    },
    returnType: VARCHAR,
    parameterTypes: [VARCHAR],
    specialHandling: true,
  });
}

export function registerFunctions(conn: DuckDBConnection): void {
  conn.registerScalarFunction(scalar('brain_unzstd_b64', unzstdB64));
  conn.registerScalarFunction(scalar('brain_protobuf_json', protobufJson));
}
