// Codex (the CLI; its rollouts name their cwd, so no project from the path).
import { defineAgent } from '../types';
import { codexDialect } from './dialect';
import { codexHarness } from './harness';
import { codexFiles } from './paths';

export const codex = defineAgent({
  lane: 'codex',
  agent: 'codex',
  label: 'Codex',
  aliases: [],
  env: ['CODEX_HOME'],
  ...codexFiles,
  dialect: codexDialect,
  views: 'codex/views.sql',
  cli: { npm: '@openai/codex', bin: 'codex' },
  harness: codexHarness,
});
