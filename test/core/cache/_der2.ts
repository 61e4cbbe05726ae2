import { openDb } from '../../../src/core/cache/db';
(async () => {
  const db = await openDb('/work/tmp-cache/v-base.duckdb', { readOnly: true });
  const q: Record<string, string> = {
    count: `SELECT count(*), sum(strlen(raw_line)) FROM floor.raw_lines WHERE agent='cc'`,
    valid: `SELECT count(*) FILTER (WHERE json_valid(raw_line)) FROM floor.raw_lines WHERE agent='cc'`,
    try_type: `SELECT count(TRY(json_extract_string(raw_line, '$.type'))) FROM floor.raw_lines WHERE agent='cc'`,
    paths_small: `SELECT count(x[1]) FROM (SELECT json_extract(raw_line, ['$.type','$.message.role','$.message.model','$.isSidechain','$.cwd','$.sessionId','$.uuid','$.parentUuid','$.message.id','$.requestId']) x FROM floor.raw_lines WHERE agent='cc')`,
    paths_content: `SELECT count(x[1]), sum(strlen(x[2])) FROM (SELECT json_extract(raw_line, ['$.type','$.message.content']) x FROM floor.raw_lines WHERE agent='cc')`,
    text_of: `SELECT count(derived.text_of(x[2])) FROM (SELECT json_extract(raw_line, ['$.type','$.message.content']) x FROM floor.raw_lines WHERE agent='cc')`,
    like: `SELECT count(*) FILTER (WHERE contains(raw_line, '"tool_use"')) FROM floor.raw_lines WHERE agent='cc'`,
  };
  for (const [k, sql] of Object.entries(q)) {
    const t = performance.now(); const c = process.cpuUsage();
    const r = await db.conn.runAndReadAll(sql);
    const cu = process.cpuUsage(c);
    console.log(k.padEnd(14), 'wall', Math.round(performance.now() - t), 'cpu', Math.round((cu.user + cu.system) / 1000), JSON.stringify(r.getRowsJson()[0]));
  }
  db.close();
})();
