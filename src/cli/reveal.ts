// --reveal for the recall verbs: secrets are masked in every answer (src/core/secrets/redact) unless
// the user asks to see them in their own terminal. Refused when stdout is not a terminal, so an
// agent running `brain` from its shell (a pipe) cannot have them printed into its context.
import { brainHome } from '../core/home';
import { BrainError } from '../core/errors';
import { maskSecrets, maskedNote, type Masked } from '../core/secrets/redact';
import { scanPending } from '../core/secrets/scan';
import type { OptionSpec, ParsedArgs, VerbContext } from './args';

export const REVEAL_OPTION: OptionSpec = {
  name: 'reveal',
  type: 'bool',
  help: 'print secrets in clear (masked by default; only when stdout is a terminal)',
};

/** The answer masked, or as it is with --reveal on a terminal. */
export async function maskedAnswer<T>(verb: string, args: ParsedArgs, ctx: VerbContext, value: T): Promise<Masked<T>> {
  if (args.opts.reveal) {
    if (!(ctx.stdout as NodeJS.WriteStream).isTTY) {
      throw new BrainError('usage', `${verb} --reveal prints secrets only to a terminal, and stdout is not one`, `run brain ${verb} --reveal in your own terminal, not through a pipe or an agent`);
    }
    return { value, masked: 0 };
  }
  const home = brainHome(ctx.env);
  // Bytes captured since the guard's last pass are scanned first (cheap when nothing is new; a
  // scan already running is not waited for): a secret cut short in a title or snippet is only
  // recognised from the guard's findings on the whole line.
  await scanPending(home, { waitMs: 0 }).catch(() => undefined);
  return maskSecrets(home, value);
}

export function revealNote(verb: string, masked: number): string {
  return maskedNote(masked, `brain ${verb} --reveal`);
}
