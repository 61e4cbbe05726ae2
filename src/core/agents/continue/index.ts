// Continue (the `cn` CLI and the VS Code / JetBrains extensions share ~/.continue/sessions).
import { defineAgent } from '../types';
import { continueDialect } from './dialect';
import { continueFiles } from './paths';

export const continueAgent = defineAgent({
  lane: 'continue',
  agent: 'continue-dev',
  label: 'Continue.dev',
  aliases: ['cn'],
  env: ['CONTINUE_GLOBAL_DIR'],
  ...continueFiles,
  dialect: continueDialect,
  views: 'continue/views.sql',
  cli: { npm: '@continuedev/cli', bin: 'cn' },
});
