import { homeDir, pathFor, type Env } from '../../home';
import type { AgentFiles, OriginRoot } from '../types';
import { editorUserDirs } from '../copilot/paths';

/** Amp's data folder: $XDG_DATA_HOME/amp, else ~/.local/share/amp (on every platform: Amp keeps the
 * XDG layout on macOS and Windows too). */
export function ampDataDir(env: Env): string {
  const p = pathFor(env);
  return p.join(env.XDG_DATA_HOME || p.join(homeDir(env), '.local', 'share'), 'amp');
}

const THREAD = /^[^/]+\.json$/;

/** Amp: one JSON document per thread, rewritten whole on every change: threads/<id>.json, and the
 * folder its VS Code extension kept them in before (globalStorage/sourcegraph.amp/threads3/). */
export const ampFiles: AgentFiles = {
  roots(env: Env): OriginRoot[] {
    const p = pathFor(env);
    const out: OriginRoot[] = [{ dir: p.join(ampDataDir(env), 'threads'), lakePrefix: 'threads', include: (rel) => THREAD.test(rel) }];
    for (const { prefix, dir } of editorUserDirs(env)) {
      out.push({ dir: p.join(dir, 'globalStorage', 'sourcegraph.amp', 'threads3'), lakePrefix: `${prefix}-threads3`, include: (rel) => THREAD.test(rel) });
    }
    return out;
  },
  rewritesWhole: () => true,
  // T-<uuid>.json: the thread id, as Amp names it.
  sessionOf: (rel) => (rel.split('/').pop() ?? rel).replace(/\.json$/, ''),
};
