// Cursor's editor chats (the IDE's composer, in chat and agent mode): rows of its state.vscdb,
// recorded as row records. The `cursor` lane is cursor-agent, Cursor's CLI.
import { defineAgent } from '../types';
import { cursorIdeDialect } from './dialect';
import { cursorIdeFiles } from './paths';

export const cursorIde = defineAgent({
  lane: 'cursor_ide',
  agent: 'cursor-ide',
  label: 'Cursor IDE',
  aliases: ['cursor-editor'],
  env: ['XDG_CONFIG_HOME'],
  ...cursorIdeFiles,
  dialect: cursorIdeDialect,
  views: 'cursor_ide/views.sql',
  projectFromPath: () => null,
});
