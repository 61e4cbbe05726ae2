// Gemini CLI (its project folders are hashes or short names: no project from the path).
import { defineAgent } from '../types';
import { geminiDialect } from './dialect';
import { geminiFiles } from './paths';

export const gemini = defineAgent({
  lane: 'gemini',
  agent: 'gemini-cli',
  label: 'Gemini CLI',
  aliases: [],
  env: ['GEMINI_CLI_HOME'],
  ...geminiFiles,
  dialect: geminiDialect,
  views: 'gemini/views.sql',
  cli: { npm: '@google/gemini-cli', bin: 'gemini' },
});
