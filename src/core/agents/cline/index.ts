// Cline, the VS Code extension (in VS Code, Insiders, VSCodium, Cursor and code-server).
import { defineAgent } from '../types';
import { clineDialect } from './dialect';
import { clineFiles } from './paths';

export const cline = defineAgent({
  lane: 'cline',
  agent: 'cline',
  label: 'Cline',
  aliases: ['claude-dev'],
  env: ['CLINE_DIR', 'CLINE_DATA_DIR'],
  ...clineFiles,
  dialect: clineDialect,
  views: 'cline/views.sql',
});
