// Goose (block/goose): sessions in one SQLite database, recorded as row records.
import { defineAgent } from '../types';
import { gooseDialect } from './dialect';
import { gooseFiles } from './paths';

export const goose = defineAgent({
  lane: 'goose',
  agent: 'goose',
  label: 'Goose',
  aliases: [],
  env: ['GOOSE_PATH_ROOT', 'XDG_DATA_HOME'],
  ...gooseFiles,
  dialect: gooseDialect,
  views: 'goose/views.sql',
});
