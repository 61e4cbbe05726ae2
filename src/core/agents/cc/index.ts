// Claude Code.
import { defineAgent } from '../types';
import { ccDialect } from './dialect';
import { ccHarness } from './harness';
import { ccFiles, ccProject } from './paths';
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
  // projects/<cwd with '/' and '.' folded to '-'>/…, under @config-<hash>/ for a config folder
  // other than the default one.
  projectFromPath: ccProject,
});
