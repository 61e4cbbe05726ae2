// Kilo Code's VS Code extension, a fork of Cline and Roo Code (its legacy task folders).
import { defineAgent } from '../types';
import { kiloDialect } from './dialect';
import { kiloFiles } from './paths';

export const kilo = defineAgent({
  lane: 'kilo',
  agent: 'kilo-code',
  label: 'Kilo Code',
  aliases: [],
  env: [],
  ...kiloFiles,
  dialect: kiloDialect,
  views: 'kilo/views.sql',
});
