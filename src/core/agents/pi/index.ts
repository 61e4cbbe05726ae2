// Pi (pi-coding-agent).
import { defineAgent, firstFolder } from '../types';
import { piDialect } from './dialect';
import { piHarness } from './harness';
import { piFiles } from './paths';

export const pi = defineAgent({
  lane: 'pi',
  agent: 'pi',
  label: 'Pi',
  aliases: [],
  env: ['PI_CODING_AGENT_DIR'],
  ...piFiles,
  dialect: piDialect,
  views: 'pi/views.sql',
  cli: { npm: '@mariozechner/pi-coding-agent', bin: 'pi' },
  harness: piHarness,
  // sessions/--<cwd with '/' folded to '-'>--/…
  projectFromPath(rel) {
    const first = firstFolder(rel);
    return first === null ? null : first.replace(/^--|--$/g, '').replace(/-/g, '/').replace(/^(?!\/)/, '/');
  },
});
