// brain <verb>: parse, validate, call core, print. Verbs hold no logic of their own.
import { VERSION } from '../core/store/version';
import { helpText, write, type VerbContext } from './args';
import { runVerb } from './runverb';
import { VERBS } from './verbs';
import { registry } from '../core/agents';

function usage(): string {
  const all = Object.values(VERBS).map((load) => load());
  const w = Math.max(...all.map((v) => v.name.length));
  return [
    'brain — records every coding-agent session, backs it up, and finds it again.',
    '',
    'Usage: brain <command> [options]   (brain <command> --help for details)',
    '',
    'Commands:',
    ...all.map((v) => `  ${v.name.padEnd(w)}  ${v.summary}`),
    '',
    `Environment: BRAIN_HOME (default ~/.brain), ${registry().envVars().join(', ')}.`,
  ].join('\n');
}

/** Edit distance (insertions, deletions, substitutions, swaps of neighbours), for "did you mean". */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const c = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + c);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The verb a mistyped name most likely meant: the nearest within a third of its length (at least
 * 2 edits), or one it begins. */
export function closest(name: string, verbs: string[]): string | null {
  const n = name.toLowerCase();
  let best: string | null = null;
  let bestD = Infinity;
  for (const v of verbs) {
    const dv = v.startsWith(n) && n.length >= 2 ? 0.5 : distance(n, v);
    if (dv < bestD) {
      bestD = dv;
      best = v;
    }
  }
  return best !== null && bestD <= Math.max(2, Math.floor(n.length / 3)) ? best : null;
}

export async function main(argv: string[], ctx: VerbContext): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    write(ctx.stdout, usage());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === 'version') {
    write(ctx.stdout, VERSION);
    return 0;
  }
  const verb = Object.hasOwn(VERBS, name) ? VERBS[name]() : undefined;
  if (!verb) {
    const near = closest(name, Object.keys(VERBS));
    write(ctx.stderr, `brain: unknown command "${name}"${near ? `: did you mean "brain ${near}"?` : ''}\n(brain --help lists the commands)`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    write(ctx.stdout, helpText(verb));
    return 0;
  }
  return runVerb(name, verb, rest, ctx);
}
