// Claude Code.
import { defineAgent, firstFolder } from '../types';
import { ccDialect } from './dialect';
import { ccHarness } from './harness';
import { ccFiles } from './paths';
import { ccRetention } from './retention';

export const cc = defineAgent({
  lane: 'cc',
  agent: 'claude-code',
  label: 'Claude Code',
  aliases: ['claude'],
  env: ['CLAUDE_CONFIG_DIR'],
  ...ccFiles,
  dialect: ccDialect,
  views: 'cc/views.sql',
  cli: { npm: '@anthropic-ai/claude-code', bin: 'claude' },
  harness: ccHarness,
  retention: ccRetention,
  // projects/<cwd with '/' and '.' folded to '-'>/…
  projectFromPath: firstFolder,
});
