// Errors that name the thing, say what to do, and keep their cause. The code is stable so the
// status bar, doctor and --json can say the same thing.
// The CLI is more than one bundle (dist/cli.js, dist/cli-mcp.js), each with its own copy of this
// class: `instanceof` goes by a registry-wide brand, not by which copy made the error.
const BRAND = Symbol.for('agent-brain.BrainError');

export class BrainError extends Error {
  static override [Symbol.hasInstance](v: unknown): boolean {
    return typeof v === 'object' && v !== null && (v as Record<symbol, unknown>)[BRAND] === true;
  }

  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'BrainError';
    Object.defineProperty(this, BRAND, { value: true });
  }
}

export function errnoCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/** A write that failed because the disk (or the user's quota) is full, as the error every front end
 * shows: what happened, that nothing is lost, and what to do. Null for any other error. */
export function diskFull(e: unknown, where: string): BrainError | null {
  const code = errnoCode(e);
  if (code !== 'ENOSPC' && code !== 'EDQUOT' && code !== 'SQLITE_FULL') return null;
  return new BrainError(
    'disk-full',
    `the disk that holds ${where} is full (${code === 'EDQUOT' ? 'over quota' : 'no space left'}): recording stopped before claiming what it could not write`,
    `free space there (df -h ${where}) and record again: nothing is lost, the agents' own files are untouched, the floor keeps everything it had claimed, and the next pass takes up where this one stopped`,
    { cause: e },
  );
}

export function describe(e: unknown): string {
  if (e instanceof BrainError) return e.hint ? `${e.message}\n  ${e.hint}` : e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}
