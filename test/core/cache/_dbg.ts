import * as fs from 'node:fs';
import { capturedSandbox, all } from './helpers';
import { rebuildCache } from '../../../src/core/cache';
import { listFiles, FIXTURES } from '../../helpers/env';
(async () => {
  const sb = await capturedSandbox('dbg');
  await rebuildCache(sb.brain);
  const failedIds = new Set<string>();
  for (const f of listFiles(FIXTURES + '/claude/projects').filter((x) => x.endsWith('.jsonl'))) {
    for (const l of fs.readFileSync(FIXTURES + '/claude/projects/' + f, 'utf8').split('\n')) {
      try { const j = JSON.parse(l); if (j.type === 'user' && Array.isArray(j.message?.content)) for (const b of j.message.content) if (b?.type === 'tool_result' && b.is_error === true) failedIds.add(f + ' ' + b.tool_use_id); } catch {}
    }
  }
  const rows = await all(sb.brain, `select f.abs_path, t.call_id, t.is_error from derived.tool_calls t join floor.files f using (file_id) where t.agent='claude-code'`);
  const sqlFailed = new Set(rows.filter((r) => r[2] === true).map((r) => r[1]));
  for (const k of failedIds) { const id = k.split(' ')[1]; if (!sqlFailed.has(id)) console.log('missing', k, rows.filter(r => r[1] === id)); }
  sb.cleanup();
})();
