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
    write(ctx.stderr, `brain: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    write(ctx.stdout, helpText(verb));
    return 0;
  }
  return runVerb(name, verb, rest, ctx);
}
