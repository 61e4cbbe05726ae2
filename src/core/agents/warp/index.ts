// Warp's agent mode (closed source): conversations in warp.sqlite, recorded as row records.
import { defineAgent } from '../types';
import { warpDialect } from './dialect';
import { warpFiles } from './paths';

export const warp = defineAgent({
  lane: 'warp',
  agent: 'warp',
  label: 'Warp',
  aliases: ['warp-terminal'],
  env: ['XDG_STATE_HOME'],
  ...warpFiles,
  dialect: warpDialect,
  views: 'warp/views.sql',
  projectFromPath: () => null,
});
