import { sandbox } from '../../helpers/env';
import { capture } from '../../../src/core/floor/capture';
import { rebuildCache } from '../../../src/core/cache';
(async () => {
  const sb = sandbox({ fixtures: true, name: 'prof' });
  await capture({ home: sb.brain, env: sb.env, quietMs: 0 });
  for (let i = 0; i < 3; i++) { const r = await rebuildCache(sb.brain); console.log(r.ms); }
  sb.cleanup();
})();
