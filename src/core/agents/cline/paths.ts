import { pathFor, type Env } from '../../home';
import { clineDataDir, taskFolderFiles } from '../kit/clinetask';

/** Cline (VS Code extension, publisher saoudrizwan.claude-dev): its task folders in every editor's
 * globalStorage, and in Cline's own data folder (~/.cline/data/tasks), where newer builds keep them. */
export const clineFiles = taskFolderFiles('saoudrizwan.claude-dev', (env: Env) => [{ prefix: 'cline-data', dir: pathFor(env).join(clineDataDir(env), 'tasks') }]);
