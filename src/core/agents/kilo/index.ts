// Kilo Code (its CLI and the extension's CLI backend, built on OpenCode): the same database
// schema in its own data folder, ~/.local/share/kilo/kilo.db.
import { defineAgent } from '../types';
import { openCodeDialect } from '../opencode/dialect';
import { openCodeFamily } from '../opencode/paths';

export const kilo = defineAgent({
  lane: 'kilo',
  agent: 'kilo-code',
  label: 'Kilo Code',
  aliases: ['kilocode', 'kilo code'],
  env: ['XDG_DATA_HOME'],
  ...openCodeFamily('kilo', null),
  dialect: openCodeDialect,
  views: 'kilo/views.sql',
});
