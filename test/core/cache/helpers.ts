// Shared by the cache tests: a sandbox whose floor was captured by the real `capture` from the
// fixture copies, and a few small readers.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sandbox, type Sandbox } from '../../helpers/env';
import { capture } from '../../../src/core/floor/capture';

/** Fixture copies in HOME, captured into BRAIN_HOME (unterminated tails captured at once). */
export async function capturedSandbox(name: string, prepare?: (sb: Sandbox) => void): Promise<Sandbox> {
  const sb = sandbox({ fixtures: true, name });
  prepare?.(sb);
  const r = await capture({ home: sb.brain, env: sb.env, quietMs: 0, lockWaitMs: 10_000 });
  if (r.applied === 0) throw new Error('capture applied nothing');
  return sb;
}

/** Appends a line to a file (creating folders). */
export function appendLine(file: string, line: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.appendFileSync(file, line.endsWith('\n') ? line : line + '\n');
}

export function writeJsonl(file: string, objs: unknown[]): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, objs.map((o) => (typeof o === 'string' ? o : JSON.stringify(o)) + '\n').join(''));
}
