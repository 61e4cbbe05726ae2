// OpenCode (npm opencode-ai): sessions in a SQLite database (recorded as row records, see
// kit/sqlite.ts), plus the legacy storage/ JSON files recorded as files.
import { defineAgent } from '../types';
import { openCodeDialect } from './dialect';
import { openCodeFiles } from './paths';

export const opencode = defineAgent({
  lane: 'opencode',
  agent: 'opencode',
  label: 'OpenCode',
  aliases: ['opencode-ai'],
  env: ['XDG_DATA_HOME', 'OPENCODE_DB'],
  ...openCodeFiles,
  dialect: openCodeDialect,
  views: 'opencode/views.sql',
});
