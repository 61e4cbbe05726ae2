import { openDb } from '../../../src/core/cache/db';
(async () => {
  const db = await openDb('/work/tmp-cache/v-base.duckdb', { readOnly: true });
  const q: Record<string, string> = {
    paths_small: `SELECT count(x[1]) FROM (SELECT json_extract(raw_line, ['$.type','$.message.role','$.message.model','$.isSidechain','$.cwd','$.sessionId','$.uuid','$.parentUuid','$.message.id','$.requestId']) x FROM floor.raw_lines WHERE agent='cc')`,
    from_json: `SELECT count(x.type) FROM (SELECT TRY(from_json(raw_line, '{"type":"VARCHAR","cwd":"VARCHAR","sessionId":"VARCHAR","uuid":"VARCHAR","parentUuid":"VARCHAR","requestId":"VARCHAR","isSidechain":"VARCHAR","message":{"role":"VARCHAR","model":"VARCHAR","id":"VARCHAR"}}')) x FROM floor.raw_lines WHERE agent='cc')`,
    from_json_all: `SELECT count(x.type), sum(strlen(x.message.content)) FROM (SELECT TRY(from_json(raw_line, '{"type":"VARCHAR","cwd":"VARCHAR","sessionId":"VARCHAR","uuid":"VARCHAR","parentUuid":"VARCHAR","requestId":"VARCHAR","isSidechain":"VARCHAR","isMeta":"VARCHAR","isCompactSummary":"VARCHAR","agentId":"VARCHAR","subtype":"VARCHAR","gitBranch":"VARCHAR","version":"VARCHAR","timestamp":"JSON","costUSD":"JSON","isApiErrorMessage":"JSON","message":{"role":"VARCHAR","model":"VARCHAR","id":"VARCHAR","stop_reason":"VARCHAR","content":"JSON","usage":"JSON"}}')) x FROM floor.raw_lines WHERE agent='cc')`,
    text_of: `SELECT count(derived.text_of(x[2])) FROM (SELECT json_extract(raw_line, ['$.type','$.message.content']) x FROM floor.raw_lines WHERE agent='cc')`,
    text_fast: `SELECT count(CASE WHEN json_type(c) = 'VARCHAR' THEN c->>'$' WHEN json_type(c)='ARRAY' THEN array_to_string(list_transform(list_filter(TRY(from_json(c, '[{"type":"VARCHAR","text":"VARCHAR"}]')), lambda b: b.type IN ('text','input_text','output_text')), lambda b: b.text), chr(10)) END) FROM (SELECT json_extract(raw_line, '$.message.content') c FROM floor.raw_lines WHERE agent='cc')`,
  };
  for (const [k, sql] of Object.entries(q)) {
    const t = performance.now(); const c = process.cpuUsage();
    try { const r = await db.conn.runAndReadAll(sql);
    const cu = process.cpuUsage(c);
    console.log(k.padEnd(14), 'wall', Math.round(performance.now() - t), 'cpu', Math.round((cu.user + cu.system) / 1000), JSON.stringify(r.getRowsJson()[0])); } catch (e) { console.log(k, 'ERR', (e as Error).message.split('\n')[0]); }
  }
  db.close();
})();
