// --reveal for the recall verbs: secrets are masked in every answer (src/core/secrets/redact) unless
// the user asks to see them in their own terminal. Refused when stdout is not a terminal, so an
// agent running `brain` from its shell (a pipe) cannot have them printed into its context.
// The front door's context for brain search/show/cite is made here too: they enter as the MCP
// server and the editor do, so they validate, skip, pick the store and mask as those do.
import { brainHome } from '../core/home';
import { BrainError } from '../core/errors';
import { maskSecrets, maskedNote, type Masked } from '../core/secrets/redact';
import { guardPass, type ToolContext } from '../core/tools/door';
import type { OptionSpec, ParsedArgs, VerbContext } from './args';

export const REVEAL_OPTION: OptionSpec = {
  name: 'reveal',
  type: 'bool',
  help: 'print secrets in clear (masked by default; only when stdout is a terminal)',
};

/** Whether the answer goes out in clear: --reveal, and stdout a terminal (else a usage error). */
function revealed(verb: string, args: ParsedArgs, ctx: VerbContext): boolean {
  if (!args.opts.reveal) return false;
  if (!(ctx.stdout as NodeJS.WriteStream).isTTY) {
    throw new BrainError('usage', `${verb} --reveal prints secrets only to a terminal, and stdout is not one`, `run brain ${verb} --reveal in your own terminal, not through a pipe or an agent`);
  }
  return true;
}

/** How a recall verb enters the front door (core/tools): the process's environment (an agent's
 * shell names its session there, and search leaves it out), the turn index kept current (or not
 * opened, --scan), no budget (a terminal pages, a pipe or a file takes it whole), and the answer in
 * clear only with --reveal on a terminal. */
export function recallContext(verb: string, args: ParsedArgs, ctx: VerbContext): ToolContext {
  return {
    env: ctx.env,
    callerEnv: ctx.env,
    home: brainHome(ctx.env),
    index: args.opts.scan ? 'off' : 'live',
    budget: Number.MAX_SAFE_INTEGER,
    reveal: revealed(verb, args, ctx),
  };
}

/** The answer masked, or as it is with --reveal on a terminal (brain sql, which is no recall tool
 * of the front door's here: it runs its own statement with its own caps). */
export async function maskedAnswer<T>(verb: string, args: ParsedArgs, ctx: VerbContext, value: T): Promise<Masked<T>> {
  if (revealed(verb, args, ctx)) return { value, masked: 0 };
  const home = brainHome(ctx.env);
  await guardPass(home);
  return maskSecrets(home, value);
}

export function revealNote(verb: string, masked: number): string {
  return maskedNote(masked, `brain ${verb} --reveal`);
}
