// GitHub Copilot Chat in VS Code-family editors.
import { defineAgent } from '../types';
import { copilotDialect } from './dialect';
import { copilotFiles } from './paths';

export const copilot = defineAgent({
  lane: 'copilot',
  agent: 'copilot-chat',
  label: 'Copilot Chat',
  aliases: [],
  env: [],
  ...copilotFiles,
  dialect: copilotDialect,
  views: 'copilot/views.sql',
});
