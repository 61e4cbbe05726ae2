// The refresh of the derived tables is written once in sql/ops/refresh_derived.sql; its parts
// marked "each lane with derived.v_{lane}_line_values" are repeated for every agent whose views.sql
// defines that view (so an agent's folder alone decides whether its lines are parsed once per
// refresh), and for no other.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BUILTIN, defineAgent, useRegistry } from '../../../src/core/agents';
import { loadSql } from '../../../src/core/cache/sqlfiles';
import { sandbox } from '../../helpers/env';
import { toy } from '../agents/toy';

test('the refresh materialises the line values of each agent that defines them, and only those', () => {
  const sb = sandbox({ name: 'sqlfiles' });
  // A second toy whose views.sql defines its line values (the first one's does not).
  const views = path.join(sb.home, 'views.sql');
  fs.writeFileSync(
    views,
    [
      'CREATE OR REPLACE VIEW dialects.v_toy2 AS SELECT 1 AS x;',
      'CREATE OR REPLACE VIEW derived.v_toy2_line_values AS SELECT 1 AS x;',
      "CREATE OR REPLACE VIEW derived.v_toy2_lines AS SELECT * FROM query_table(coalesce(getvariable('brain_toy2_lines'), 'derived.v_toy2_line_values'));",
      'CREATE OR REPLACE VIEW derived.v_messages_toy2 AS SELECT 1 AS x;',
    ].join('\n'),
  );
  const toy2 = defineAgent({ ...toy, lane: 'toy2', agent: 'toy2-agent', label: 'Toy 2', aliases: [], env: [], views });
  const restore = useRegistry(BUILTIN.with(toy, toy2));
  try {
    const sql = loadSql('ops', 'refresh_derived');
    assert.ok(!sql.includes('{{'), 'every marked part is expanded');
    for (const lane of ['cc', 'codex', 'pi', 'toy2']) {
      assert.ok(sql.includes(`CREATE OR REPLACE TEMP TABLE refresh_${lane}_lines AS SELECT * FROM derived.v_${lane}_line_values;`), lane);
      assert.ok(sql.includes(`SET VARIABLE brain_${lane}_lines = 'temp.main.refresh_${lane}_lines';`), lane);
      assert.ok(sql.includes(`DROP TABLE refresh_${lane}_lines;`), lane);
    }
    for (const lane of ['toy', 'gemini', 'copilot', 'cursor']) assert.ok(!sql.includes(`refresh_${lane}_lines`), lane);
    // Each temporary table is made after the files are named and before the first derived table.
    assert.ok(sql.indexOf('SET VARIABLE brain_refresh_files') < sql.indexOf('CREATE OR REPLACE TEMP TABLE refresh_cc_lines'));
    assert.ok(sql.indexOf('refresh_toy2_lines') < sql.indexOf('INSERT INTO derived.files'));
  } finally {
    restore();
    sb.cleanup();
  }
});
