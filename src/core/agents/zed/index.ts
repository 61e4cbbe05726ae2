// Zed's agent panel (zed-industries/zed, crates/agent): threads in a SQLite database, recorded as
// row records.
import { defineAgent } from '../types';
import { zedDialect } from './dialect';
import { zedFiles } from './paths';

export const zed = defineAgent({
  lane: 'zed',
  agent: 'zed',
  label: 'Zed',
  aliases: ['zed-agent'],
  env: ['XDG_DATA_HOME', 'FLATPAK_XDG_DATA_HOME'],
  ...zedFiles,
  dialect: zedDialect,
  views: 'zed/views.sql',
});
