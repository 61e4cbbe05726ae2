// Kiro CLI (and the Amazon Q Developer CLI before it): conversations in a SQLite key/value
// table, recorded as row records, and, in newer builds, session files under ~/.kiro.
import { defineAgent } from '../types';
import { kiroDialect } from './dialect';
import { kiroFiles } from './paths';

export const kiro = defineAgent({
  lane: 'kiro',
  agent: 'kiro-cli',
  label: 'Kiro CLI',
  aliases: ['amazon-q', 'q-cli'],
  env: ['KIRO_HOME', 'XDG_DATA_HOME'],
  ...kiroFiles,
  dialect: kiroDialect,
  views: 'kiro/views.sql',
  // lake/kiro/{kiro-cli,amazon-q,sessions}/…: the folder is not a project.
  projectFromPath: () => null,
});
