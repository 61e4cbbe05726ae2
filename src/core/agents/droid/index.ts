// Factory Droid (npm @factory/cli).
import { defineAgent, firstFolder } from '../types';
import { droidDialect } from './dialect';
import { droidFiles } from './paths';

export const droid = defineAgent({
  lane: 'droid',
  agent: 'factory-droid',
  label: 'Factory Droid',
  aliases: ['factory'],
  env: ['FACTORY_HOME_OVERRIDE'],
  ...droidFiles,
  dialect: droidDialect,
  views: 'droid/views.sql',
  cli: { npm: 'droid', bin: 'droid' },
  // sessions/<cwd with '/' made '-'>/…: a label (a '-' in a folder name reads as a '/').
  projectFromPath(rel) {
    const first = firstFolder(rel);
    return first === null ? null : first.replace(/-/g, '/').replace(/^(?!\/)/, '/');
  },
});
