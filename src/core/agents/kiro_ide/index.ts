// Kiro (kiro.dev), the IDE's agent.
import { defineAgent } from '../types';
import { kiroDialect } from './dialect';
import { kiroFiles, kiroWorkspace } from './paths';

export const kiroIde = defineAgent({
  lane: 'kiro_ide',
  agent: 'kiro-ide',
  label: 'Kiro IDE',
  aliases: [],
  env: [],
  ...kiroFiles,
  dialect: kiroDialect,
  views: 'kiro_ide/views.sql',
  // workspace-sessions/<the workspace folder, base64url>/…: the folder itself.
  projectFromPath: kiroWorkspace,
});
