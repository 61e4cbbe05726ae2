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
    write(ctx.stderr, `brain ${name}: ${describe(notWritable(e, brainHome(ctx.env)) ?? e)}`);
    if (e instanceof BrainError && e.code === 'usage') return 2;
    if (e instanceof BrainError && e.code === 'floor-busy') return 75;
    return 3;
  }
}
