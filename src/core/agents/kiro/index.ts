// Kiro (kiro.dev), the IDE's agent.
import { defineAgent } from '../types';
import { kiroDialect } from './dialect';
import { kiroFiles, kiroWorkspace } from './paths';

export const kiro = defineAgent({
  lane: 'kiro',
  agent: 'kiro-ide',
  label: 'Kiro',
  aliases: [],
  env: [],
  ...kiroFiles,
  dialect: kiroDialect,
  views: 'kiro/views.sql',
  // workspace-sessions/<the workspace folder, base64url>/…: the folder itself.
  projectFromPath: kiroWorkspace,
});
