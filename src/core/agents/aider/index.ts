// Aider (aider.chat): its chat history, kept in each folder it runs in.
import { defineAgent, firstFolder } from '../types';
import { aiderDialect } from './dialect';
import { aiderFiles } from './paths';

export const aider = defineAgent({
  lane: 'aider',
  agent: 'aider',
  label: 'Aider',
  aliases: [],
  env: ['AIDER_CHAT_HISTORY_FILE'],
  ...aiderFiles,
  dialect: aiderDialect,
  views: 'aider/views.sql',
  // <folder folded like Claude Code's projects>_<8 hex>/.aider.chat.history.md: the folder, as a label.
  projectFromPath: (rel) => firstFolder(rel)?.replace(/_[0-9a-f]{8}$/, '') ?? null,
});
