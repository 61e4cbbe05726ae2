import { brainHome } from '../core/home';
import { describe, notWritable } from '../core/errors';
import { recordHook, type HookPayload } from '../core/floor/hook';
import { write, type Verb } from './args';
import { registry } from '../core/agents';

async function readStdin(stdin: NodeJS.ReadableStream, timeoutMs: number): Promise<string> {
  if ((stdin as NodeJS.ReadStream).isTTY) return '';
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = () => {
      clearTimeout(t);
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const t = setTimeout(done, timeoutMs);
    stdin.on('data', (c: Buffer) => chunks.push(c));
    stdin.on('end', done);
    stdin.on('error', done);
  });
}

export const hook: Verb = {
  name: 'hook',
  summary: "Record a session's repo metadata from a harness hook (JSON payload on stdin).",
  usage: `hook <${registry().list.map((a) => a.lane).join('|')}> [--strict]`,
  details: `Reads {session_id, transcript_path, cwd, hook_event_name, source} on stdin and writes
meta/<lane>/<session>.json (git common dir, remote, branch, commit, cwd) through the spool.
Never fails the agent's hook: problems go to stderr and the exit code is 0 (use --strict to see them as exit 1).`,
  options: [{ name: 'strict', type: 'bool', help: 'exit 1 when the record could not be written' }],
  async run(args, ctx) {
    try {
      const name = args.positionals[0];
      if (!name) throw new Error(`which agent? brain hook <${registry().list.map((a) => a.lane).join('|')}>`);
      const lane = registry().find(name)?.lane ?? name;
      const raw = await readStdin(ctx.stdin, 2000);
      let payload: HookPayload = {};
      if (raw.trim()) {
        try {
          payload = JSON.parse(raw) as HookPayload;
        } catch {
          throw new Error('hook payload on stdin is not JSON');
        }
      }
      recordHook(brainHome(ctx.env), lane, payload, ctx.env);
      return 0;
    } catch (e) {
      write(ctx.stderr, `brain hook: ${describe(notWritable(e, brainHome(ctx.env)) ?? e)} (the agent is not affected)`);
      return args.opts.strict ? 1 : 0;
    }
  },
};
