// Crush (charmbracelet/crush, npm @charmland/crush): one SQLite database per project.
import { defineAgent, firstFolder } from '../types';
import { crushDialect } from './dialect';
import { crushFiles } from './paths';

export const crush = defineAgent({
  lane: 'crush',
  agent: 'crush',
  label: 'Crush',
  aliases: ['charm crush'],
  env: ['CRUSH_GLOBAL_DATA', 'XDG_DATA_HOME', 'LOCALAPPDATA'],
  ...crushFiles,
  dialect: crushDialect,
  views: 'crush/views.sql',
  // <project folder name>-<hash>/<session>.rows.jsonl
  projectFromPath: (rel) => firstFolder(rel)?.replace(/-[0-9a-f]{8}$/, '') ?? null,
});
