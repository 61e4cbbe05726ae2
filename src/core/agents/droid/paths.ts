import { homeDir, pathFor, type Env } from '../../home';
import { sessionFromName, type AgentFiles } from '../types';

/** Factory Droid's folder: ~/.factory, where FACTORY_HOME_OVERRIDE takes the place of the home
 * folder (%USERPROFILE% on Windows). */
export function droidDir(env: Env): string {
  return pathFor(env).join(env.FACTORY_HOME_OVERRIDE || homeDir(env), '.factory');
}

const SESSION = /^[^/]+\/[^/]+\.jsonl$/;
const SETTINGS = /^[^/]+\/[^/]+\.settings\.json$/;

/** Factory Droid: sessions/<cwd with '/' made '-'>/<id>.jsonl (appended: the conversation) and
 * <id>.settings.json beside it (rewritten whole: the model, autonomy and the session's token
 * totals so far), captured as generations. The .bak copy Droid keeps of the settings is not. */
export const droidFiles: AgentFiles = {
  roots(env: Env) {
    return [{ dir: pathFor(env).join(droidDir(env), 'sessions'), lakePrefix: '', include: (rel) => SESSION.test(rel) || SETTINGS.test(rel) }];
  },
  rewritesWhole: (rel) => SETTINGS.test(rel),
  sessionOf: (rel) => sessionFromName(rel.replace(/\.settings\.json$/, '.jsonl')),
};

/** Is this lane-relative file a session's settings (its token totals), not its conversation? */
export function isDroidSettings(rel: string): boolean {
  return rel.endsWith('.settings.json');
}
