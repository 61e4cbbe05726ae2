// Roo Code, a fork of Cline (discontinued: its task folders are history only a recorder keeps).
import { defineAgent } from '../types';
import { rooDialect } from './dialect';
import { rooFiles } from './paths';

export const roo = defineAgent({
  lane: 'roo',
  agent: 'roo-code',
  label: 'Roo Code',
  aliases: ['roo-cline'],
  env: [],
  ...rooFiles,
  dialect: rooDialect,
  views: 'roo/views.sql',
});
