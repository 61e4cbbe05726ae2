// Kilo Code's VS Code extension before it moved onto its OpenCode-based backend (the `kilo` lane):
// a fork of Cline and Roo Code whose legacy task folders stay behind in the editor's storage.
import { defineAgent } from '../types';
import { kiloDialect } from './dialect';
import { kiloFiles } from './paths';

export const kiloExt = defineAgent({
  lane: 'kilo_ext',
  agent: 'kilo-code-ext',
  label: 'Kilo Code (extension tasks)',
  aliases: [],
  env: [],
  ...kiloFiles,
  dialect: kiloDialect,
  views: 'kilo_ext/views.sql',
});
