// Cline CLI (npm `cline`, the Cline SDK's session folders).
import { defineAgent } from '../types';
import { clineCliDialect } from './dialect';
import { clineCliFiles } from './paths';

export const clineCli = defineAgent({
  lane: 'cline_cli',
  agent: 'cline-cli',
  label: 'Cline CLI',
  aliases: [],
  env: ['CLINE_DIR', 'CLINE_DATA_DIR', 'CLINE_SESSION_DATA_DIR'],
  ...clineCliFiles,
  dialect: clineCliDialect,
  views: 'cline_cli/views.sql',
  cli: { npm: 'cline', bin: 'cline' },
});
