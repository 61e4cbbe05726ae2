import { openDb } from '../../../src/core/cache/db';
import { loadSql } from '../../../src/core/cache/sqlfiles';
(async () => {
  const db = await openDb('/work/tmp-cache/v-base.duckdb', { readOnly: false, memoryLimit: '4GB' });
  await db.conn.run(loadSql('ops', 'stage_tables'));
  await db.conn.run('INSERT INTO touched_files SELECT file_id FROM floor.files');
  for (const v of (process.argv[2] ?? 'v_sessions,v_messages_all,v_tool_calls,v_usage_lines').split(',')) {
    const t = performance.now(); const c = process.cpuUsage();
    await db.conn.run(`CREATE OR REPLACE TEMP TABLE x AS SELECT * FROM derived.${v} WHERE file_id IN (SELECT file_id FROM touched_files)`);
    const cu = process.cpuUsage(c);
    console.log(v, 'wall', Math.round(performance.now() - t), 'cpu', Math.round((cu.user + cu.system) / 1000), 'rss', Math.round(process.memoryUsage().rss / 1e6));
  }
  for (const v of ['v_cc', 'v_codex', 'v_pi']) {
    const t = performance.now(); const c = process.cpuUsage();
    await db.conn.run(`CREATE OR REPLACE TEMP TABLE x AS SELECT * FROM dialects.${v}`);
    const cu = process.cpuUsage(c);
    console.log(v, 'wall', Math.round(performance.now() - t), 'cpu', Math.round((cu.user + cu.system) / 1000), 'rss', Math.round(process.memoryUsage().rss / 1e6));
  }
  const t = performance.now();
  await db.conn.run(`CREATE OR REPLACE TEMP TABLE x AS SELECT count(*) FILTER (WHERE json_valid(raw_line)) FROM floor.raw_lines`);
  console.log('json_valid all', Math.round(performance.now() - t));
  db.close();
})();
