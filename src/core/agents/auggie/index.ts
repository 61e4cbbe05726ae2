// Auggie, Augment Code's command-line agent.
import { defineAgent } from '../types';
import { auggieDialect } from './dialect';
import { auggieFiles } from './paths';

export const auggie = defineAgent({
  lane: 'auggie',
  agent: 'auggie',
  label: 'Auggie',
  aliases: ['augment'],
  env: [],
  ...auggieFiles,
  dialect: auggieDialect,
  views: 'auggie/views.sql',
});
