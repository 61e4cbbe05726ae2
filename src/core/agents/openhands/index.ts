// OpenHands CLI (the OpenHands agent SDK's local conversations).
import { defineAgent } from '../types';
import { openhandsDialect } from './dialect';
import { openhandsFiles } from './paths';

export const openhands = defineAgent({
  lane: 'openhands',
  agent: 'openhands',
  label: 'OpenHands',
  aliases: [],
  env: [],
  ...openhandsFiles,
  dialect: openhandsDialect,
  views: 'openhands/views.sql',
});
