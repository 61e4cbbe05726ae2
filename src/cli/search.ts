import { DEFAULT_LIMIT, type SearchHit, type SearchInput } from '../core/recall';
import { columns, snippetText } from '../core/recall/snippet';
import { matchedText } from '../core/recall/words';
import { BrainError } from '../core/errors';
import { SESSION_ENV } from '../core/harness/caller';
import { callRecall, type McpSearchOutput } from '../core/tools/recall';
import { COMMON_EXIT_CODES, write, type Verb } from './args';
import { registry } from '../core/agents';
import { REVEAL_OPTION, recallContext, revealNote } from './reveal';

/** The words of the command line: each argument a word, unless it holds spaces (a phrase the
 * user quoted), or quotes the shell left in ('"a b" c' as one argument). */
export function splitWords(args: string[]): string[] {
  if (args.length === 1 && !/["“”]/.test(args[0])) return args[0].trim() ? [args[0]] : [];
  const out: string[] = [];
  for (const a of args) {
    if (!/["“”]/.test(a)) {
      if (a.trim()) out.push(a);
      continue;
    }
    for (const m of a.matchAll(/["“]([^"”]+)["”]|([^\s"“”]+)/g)) out.push(m[1] ?? m[2]);
  }
  return out;
}

function width(stream: NodeJS.WritableStream): number {
  const c = (stream as NodeJS.WriteStream).columns;
  return c && c > 40 ? c : 100;
}

function fit(s: string, w: number): string {
  return s.length > w ? `${s.slice(0, w - 1)}…` : s;
}

function when(iso: string | null): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toISOString().slice(0, 16).replace('T', ' ');
}

function project(p: string | null): string {
  if (!p) return '—';
  const parts = p.split('/').filter(Boolean);
  return parts.length ? parts[parts.length - 1] : p;
}

export function formatHit(h: SearchHit, i: number, w: number, term = ''): string[] {
  const head = `${String(i + 1).padStart(2)}  ${h.lane.padEnd(6)} ${project(h.project)}  ${h.machine}  ${when(h.started)}  ${matchedText(h)}  ${h.session}`;
  const out = [fit(head, w)];
  if (h.title) out.push(fit(`    ${h.title}`, w));
  for (const s of h.snippets) {
    const c = s.citation;
    // A generation is named when it is not the file's first, or when the newest no longer holds it.
    const gen = s.rewritten_away ? `gen ${s.gen} (rewritten away) ` : s.gen > 1 ? `gen ${s.gen} ` : '';
    const tag = `  [${s.turn ? `#${s.turn} ` : ''}${s.field === 'text' ? '' : `${s.field} `}${gen}L${c.line_from}-${c.line_to} ${c.sha256.slice(0, 8)}]`;
    // The core's snippet is wider than a terminal: narrow it around the mention, not from its start.
    out.push(`    › ${snippetText(s.text, term, Math.max(20, w - 6 - columns(tag)))}${tag}`);
  }
  if (h.snippets.length) out.push(fit(`      ${h.snippets[0].citation.lake_path}`, w));
  return out;
}

export const search: Verb = {
  name: 'search',
  summary: 'Find sessions that mention a text: what was said first, then tool output.',
  usage: 'search TERM [--agent A] [--project GLOB] [--machine M] [--since WHEN] [--limit N] [--skip SESSION] [--newest] [--scan] [--store DIR] [--json] [--reveal]',
  details: `TERM is literal text, matched case-insensitively as a substring. Several words find the sessions
that hold all of them (each anywhere in the session); quote them ("a b") to find them as one phrase.
Sessions whose user or assistant turns say it come first, most such turns first (the turn index,
turns.sqlite, kept current from the floor on every search); then, while the list has room, sessions
where only tool output, thinking or tool arguments hold it (read from the files). Sessions where only
recorded instructions (system prompt, AGENTS.md) mention it are left out. Terms under 3 characters,
or no usable index, fall back to reading the files, and the header says so; --scan reads the files
without opening the index.
With a store configured (brain init --store), the other machines in it are searched too, where the
store is (over ssh, on the store host); this machine's own floor answers for itself and alone when
the store cannot be reached, and the header says so. Each hit names its machine.
Each hit: session, agent, project, machine, start, title (first prompt), matching turns, and up to 3
snippets with their citations ([#turn Lfrom-to sha256], with "gen N" when the file was rewritten and
the snippet is in generation N > 1, and "(rewritten away)" when only an older generation holds it);
--json prints the full citations.
Secrets in snippets are masked as \`brain secrets\` shows them (--json: "masked": N); --reveal
prints them in clear, only to a terminal.
${COMMON_EXIT_CODES} Exit 1: nothing found.`,
  options: [
    { name: 'agent', type: 'string', help: registry().filterHelp() },
    { name: 'project', type: 'string', help: 'glob over the project path, its folder name or repo (e.g. "*brain*")' },
    { name: 'machine', type: 'string', help: 'only these machines (comma-separated)' },
    { name: 'since', type: 'string', help: 'active since: ISO date/time, or 30m, 12h, 7d, 2w' },
    { name: 'limit', type: 'number', short: 'n', help: `sessions to list (default ${DEFAULT_LIMIT})` },
    { name: 'skip', type: 'string', help: `leave out this session (default: the calling agent session, from ${SESSION_ENV.join(', ')}; "" for none)` },
    { name: 'newest', type: 'bool', help: 'newest first within each tier' },
    { name: 'scan', type: 'bool', help: 'read the files, not the turn index (slower; the header says so)' },
    { name: 'store', type: 'string', help: 'search only this store folder (every machine in it), not BRAIN_HOME and the configured store' },
    { name: 'json', type: 'bool', help: 'machine-readable result (the MCP and LM tools\' shape)' },
    REVEAL_OPTION,
  ],
  async run(args, ctx) {
    // Several words (as the shell splits them) are searched as all words; a quoted phrase is one
    // term. A phrase inside quotes the shell kept ('"a b" c') is a term of its own too.
    const words = splitWords(args.positionals);
    const term = words.join(' ');
    if (!term) throw new BrainError('usage', 'search needs a TERM', 'brain search "what to find"');
    const o = args.opts;
    const input: SearchInput = { term };
    for (const k of ['agent', 'project', 'machine', 'since', 'skip', 'store'] as const) if (o[k] !== undefined) input[k] = o[k] as string;
    if (o.limit !== undefined) input.limit = o.limit as number;
    if (o.newest) input.newest = true;
    // The front door validates, leaves out the calling agent session (named in this process's
    // environment) unless --skip says otherwise, picks the store and masks: as for brain mcp.
    const tctx = { ...recallContext('search', args, ctx), words };
    const r = (await callRecall('search', input, tctx)) as McpSearchOutput & { masked: number };
    const masked = r.masked;
    for (const x of r.refused) write(ctx.stderr, `brain search: refused ${x.machine}:${x.lake_path} — it ${x.problem}; not read (remove or fix that entry)`);
    if (o.json) {
      write(ctx.stdout, JSON.stringify(r));
      return r.hits.length ? 0 : 1;
    }
    const w = width(ctx.stdout);
    // The header is cut to a terminal, not on its way to a program or a file, which gets every fact
    // of it; a store left out is said whole on a line of its own either way.
    const lines = [(ctx.stdout as NodeJS.WriteStream).isTTY ? fit(r.header, w) : r.header];
    if (r.store && !r.store.searched && r.store.note) lines.push(`note: ${r.store.note}`);
    r.hits.forEach((h, i) => {
      if (i === 0 || h.tier !== r.hits[i - 1].tier) lines.push('', h.tier === 'turns' ? 'Said in the conversation:' : 'Only in tool output, thinking, arguments or injected instructions:');
      lines.push(...formatHit(h, i, w, r.term));
    });
    if (masked) lines.push('', revealNote('search', masked));
    write(ctx.stdout, lines.join('\n'));
    return r.hits.length ? 0 : 1;
  },
};
