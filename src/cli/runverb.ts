// One verb's run as `brain <verb>` does it: its options parsed, its errors said on stderr with the
// verb's name, and the exit code they mean. Shared by the whole CLI (main.ts) and the entries that
// load one verb alone (searchbin.ts).
import { describe, notWritable, BrainError } from '../core/errors';
import { brainHome } from '../core/home';
import { parseArgs, write, type Verb, type VerbContext } from './args';

export async function runVerb(name: string, verb: Verb, rest: string[], ctx: VerbContext): Promise<number> {
  try {
    const args = parseArgs(rest, verb.options);
    return await verb.run(args, ctx);
  } catch (e) {
    const err = notWritable(e, brainHome(ctx.env)) ?? e;
    write(ctx.stderr, `brain ${name}: ${describe(err)}`);
    // A caller that asked for JSON (the editor's worker, scripts) gets the error as JSON on stdout
    // too, with its code, instead of having to parse the human line on stderr.
    if (verb.options.some((o) => o.name === 'json') && rest.includes('--json')) {
      const b = err instanceof BrainError ? err : undefined;
      write(ctx.stdout, JSON.stringify({ error: b?.code ?? 'internal', message: b ? b.message : err instanceof Error ? err.message : String(err), ...(b?.hint ? { hint: b.hint } : {}) }));
    }
    if (e instanceof BrainError && e.code === 'usage') return 2;
    if (e instanceof BrainError && e.code === 'floor-busy') return 75;
    return 3;
  }
}
