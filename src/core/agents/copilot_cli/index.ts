// GitHub Copilot CLI (npm @github/copilot), the terminal agent; Copilot Chat in the editor is the
// copilot lane.
import { defineAgent } from '../types';
import { copilotCliDialect } from './dialect';
import { copilotCliFiles } from './paths';

export const copilotCli = defineAgent({
  lane: 'copilot_cli',
  agent: 'copilot-cli',
  label: 'Copilot CLI',
  aliases: ['github-copilot-cli'],
  env: ['COPILOT_HOME'],
  ...copilotCliFiles,
  dialect: copilotCliDialect,
  views: 'copilot_cli/views.sql',
  cli: { npm: '@github/copilot', bin: 'copilot' },
});
