// Qwen Code (npm @qwen-code/qwen-code), a Gemini CLI fork whose current transcripts are
// Claude-like records in a uuid/parentUuid tree.
import { defineAgent } from '../types';
import { qwenDialect } from './dialect';
import { qwenFiles } from './paths';

export const qwen = defineAgent({
  lane: 'qwen',
  agent: 'qwen-code',
  label: 'Qwen Code',
  aliases: [],
  env: ['QWEN_HOME', 'QWEN_RUNTIME_DIR'],
  ...qwenFiles,
  dialect: qwenDialect,
  views: 'qwen/views.sql',
  cli: { npm: '@qwen-code/qwen-code', bin: 'qwen' },
  // projects/<cwd folded to '-'>/…: a label only (every character but letters and digits became '-').
  projectFromPath(rel) {
    const parts = rel.split('/');
    const i = parts[0] === 'runtime' ? 1 : 0;
    if (parts[i] !== 'projects' || parts.length < i + 2) return null;
    return parts[i + 1].replace(/-/g, '/');
  },
});
