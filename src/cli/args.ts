// A small, strict argument parser: every verb declares its options, an unknown one is an error
// that names it (exit 2), and --help prints the declaration.
import { BrainError } from '../core/errors';
import { visible } from '../core/visible';

export interface OptionSpec {
  name: string;
  /** 'bool' takes no value; 'string' and 'number' take one (--x v or --x=v); 'list' may repeat. */
  type: 'bool' | 'string' | 'number' | 'list';
  help: string;
  short?: string;
}

export interface VerbContext {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  /** The command that runs this CLI again ([node, script]), where it is the process's own entry:
   * `brain record` starts the DuckDB cache's update with it and returns. Absent when the verbs run
   * inside another program (tests, the editor), which then wait for that update. */
  self?: string[];
}

export interface Verb {
  name: string;
  summary: string;
  usage: string;
  /** Extra lines for --help: details, exit codes. */
  details?: string;
  options: OptionSpec[];
  run(args: ParsedArgs, ctx: VerbContext): Promise<number>;
}

export interface ParsedArgs {
  positionals: string[];
  opts: Record<string, string | number | boolean | string[] | undefined>;
}

export function parseArgs(argv: string[], specs: OptionSpec[]): ParsedArgs {
  const out: ParsedArgs = { positionals: [], opts: {} };
  const byName = new Map<string, OptionSpec>();
  for (const s of specs) {
    byName.set(`--${s.name}`, s);
    if (s.short) byName.set(`-${s.short}`, s);
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-') {
      out.positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const key = eq > 0 ? a.slice(0, eq) : a;
    const spec = byName.get(key);
    if (!spec) throw new BrainError('usage', `unknown option ${key}`, 'see --help for the options this command takes');
    if (spec.type === 'bool') {
      if (eq > 0) throw new BrainError('usage', `option ${key} takes no value`);
      out.opts[spec.name] = true;
      continue;
    }
    let v: string | undefined = eq > 0 ? a.slice(eq + 1) : argv[++i];
    if (v === undefined) throw new BrainError('usage', `option ${key} needs a value`);
    if (spec.type === 'number') {
      const n = Number(v);
      if (!Number.isFinite(n)) throw new BrainError('usage', `option ${key} expects a number, got "${v}"`);
      out.opts[spec.name] = n;
    } else if (spec.type === 'list') {
      const prev = (out.opts[spec.name] as string[] | undefined) ?? [];
      out.opts[spec.name] = [...prev, v];
    } else out.opts[spec.name] = v;
    v = undefined;
  }
  return out;
}

export function helpText(v: Verb): string {
  const lines = [`brain ${v.usage}`, '', v.summary];
  if (v.options.length) {
    lines.push('', 'Options:');
    for (const o of v.options) {
      const flag = `${o.short ? `-${o.short}, ` : ''}--${o.name}${o.type === 'bool' ? '' : ' <' + o.type + '>'}`;
      lines.push(`  ${flag.padEnd(28)} ${o.help}`);
    }
  }
  if (v.details) lines.push('', v.details);
  return lines.join('\n') + '\n';
}

export const COMMON_EXIT_CODES = 'Exit codes: 0 ok, 1 problems found (listed), 2 usage error, 3 could not run (named file, what to do).';

/** Every line a verb prints, human or JSON, goes out here, through visible(): session text may
 * hold what a terminal would obey (core/visible.ts). */
export function write(stream: NodeJS.WritableStream, s: string): void {
  const v = visible(s);
  stream.write(v.endsWith('\n') ? v : v + '\n');
}

export function humanBytes(n: number): string {
  const u = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < u.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${u[i]}`;
}

/** The process's streams and environment as a verb sees them. stdin is made on first use: building
 * the stream costs every command (a search) that never reads it. */
export const processIo: VerbContext = {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  get stdin(): NodeJS.ReadableStream {
    return process.stdin;
  },
};
