// The dialect registration list: lane -> how its lake files become turns. Adding an agent is one
// folder (paths.ts + dialect.ts) plus one line here and one in ./index.ts.
import type { Dialect } from '../turns';
import { ccDialect } from './cc/dialect';
import { codexDialect } from './codex/dialect';
import { piDialect } from './pi/dialect';
import { cursorDialect } from './cursor/dialect';
import { geminiDialect } from './gemini/dialect';
import { copilotDialect } from './copilot/dialect';

export const DIALECTS: Dialect[] = [ccDialect, codexDialect, piDialect, cursorDialect, geminiDialect, copilotDialect];

export function dialectFor(lane: string): Dialect | undefined {
  return DIALECTS.find((d) => d.lane === lane);
}
