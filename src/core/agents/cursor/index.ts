// cursor-agent (Cursor's CLI agent).
import { defineAgent, firstFolder } from '../types';
import { cursorDialect } from './dialect';
import { cursorFiles } from './paths';

export const cursor = defineAgent({
  lane: 'cursor',
  agent: 'cursor-agent',
  label: 'cursor-agent',
  aliases: [],
  env: [],
  ...cursorFiles,
  dialect: cursorDialect,
  views: 'cursor/views.sql',
  // projects/<cwd slug>/agent-transcripts/…
  projectFromPath: firstFolder,
});
