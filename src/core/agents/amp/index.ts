// Amp (ampcode.com): one JSON document per thread.
import { defineAgent } from '../types';
import { ampDialect } from './dialect';
import { ampFiles } from './paths';

export const amp = defineAgent({
  lane: 'amp',
  agent: 'amp',
  label: 'Amp',
  aliases: [],
  env: ['XDG_DATA_HOME'],
  ...ampFiles,
  dialect: ampDialect,
  views: 'amp/views.sql',
});
