import { type ReadInput, type ReadOutput, type TurnView } from '../core/recall';
import { callRecall, type McpReadOutput } from '../core/tools/recall';
import { BrainError } from '../core/errors';
import type { Citation } from '../core/turns';
import { COMMON_EXIT_CODES, write, type Verb } from './args';
import { REVEAL_OPTION, recallContext, revealNote } from './reveal';
import { paged } from './pager';

function fence(s: string): string {
  const longest = Math.max(2, ...(s.match(/`+/g) ?? []).map((m) => m.length));
  const f = '`'.repeat(longest + 1);
  return `${f}\n${s}\n${f}`;
}

function cite(c: Citation): string {
  return `<sub>cite: ${c.machine}:${c.lake_path} lines ${c.line_from}–${c.line_to} (bytes ${c.byte_from}–${c.byte_to}) sha256 ${c.sha256}</sub>`;
}

function details(summary: string, body: string): string {
  return `<details><summary>${summary.replace(/</g, '&lt;')}</summary>\n\n${body}\n\n</details>`;
}

function oneLine(s: string, max = 80): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function turn(t: TurnView): string {
  const head = [`## ${t.n} · ${t.role}${t.kind === 'prompt' || t.kind === 'reply' ? '' : ` (${t.kind})`}`];
  if (t.model) head.push(t.model);
  if (t.ts) head.push(t.ts);
  if (t.sidechain) head.push('sub-agent');
  if (t.branch) head.push('branch');
  if (t.rewritten_away) {
    const [a, b] = t.rewritten_away.gens;
    head.push(a === b ? `only in generation ${a} (rewritten away)` : `only in generations ${a}–${b} (rewritten away)`);
  }
  const parts = [head.join(' · ')];
  if (t.role === 'system' && t.kind === 'instructions') parts.push(details('recorded instructions', t.text ? fence(t.text) : '_(not shown)_'));
  else if (t.text) parts.push(t.text);
  if (t.thinking) parts.push(details('thinking', fence(t.thinking)));
  for (const u of t.tools) {
    const body = [u.arguments ? `arguments:\n\n${fence(u.arguments)}` : '', u.output ? `${u.is_error ? 'error' : 'output'}:\n\n${fence(u.output)}` : ''].filter(Boolean).join('\n\n');
    parts.push(details(`tool: ${u.name}${u.arguments ? ` — ${oneLine(u.arguments)}` : ''}${u.is_error ? ' (failed)' : ''}`, body || '_(nothing recorded)_'));
  }
  if (t.tokens) parts.push(`<sub>tokens: in ${t.tokens.input} · out ${t.tokens.output} · cache write ${t.tokens.cache_creation} · cache read ${t.tokens.cache_read}</sub>`);
  parts.push(cite(t.citation));
  return parts.join('\n\n');
}

/** A session as readable Markdown: tool calls folded, every turn with its citation. */
export function toMarkdown(r: ReadOutput): string {
  const s = r.session;
  const lines = [
    `# ${s.title || s.session}`,
    '',
    `- session: \`${s.session}\`${s.native_session ? ` (agent id \`${s.native_session}\`)` : ''}${s.parent_session ? ` · sub-agent of \`${s.parent_session}\`` : ''}`,
    `- agent: ${s.agent} · machine: ${s.machine} · project: ${s.project ?? '—'}${s.repo ? ` · repo: ${s.repo}` : ''}`,
    `- started: ${s.started ?? '—'} · last: ${s.ended ?? '—'} · ${s.turns} turns (prompts and replies), ${r.total} entries in all${r.unparsed_lines ? ` · ${r.unparsed_lines} unparsed line(s) on the floor` : ''}`,
  ];
  const k = s.tokens;
  if (k && k.input + k.output + k.cache_creation + k.cache_read > 0) lines.push(`- tokens: in ${k.input} · out ${k.output} · cache write ${k.cache_creation} · cache read ${k.cache_read}`);
  const file = r.turns.find((t) => !t.rewritten_away) ?? r.turns[0];
  if (file) lines.push(`- file: \`${file.citation.lake_path}\` (check a citation: \`sed -n 'A,Bp' FILE | sha256sum\`)`);
  if (r.gen !== null) lines.push(`- generation ${r.gen} of ${r.generations.join(', ')}, as it was`);
  else if (r.generations.length > 1) {
    const old = r.turns.filter((t) => t.rewritten_away).length;
    lines.push(`- generations ${r.generations.join(', ')}: the newest, with ${old} entr${old === 1 ? 'y' : 'ies'} only older ones hold marked "rewritten away" (\`--gen N\` shows one as it was)`);
  }
  return [lines.join('\n'), ...r.turns.map(turn)].join('\n\n') + '\n';
}

export const show: Verb = {
  name: 'show',
  summary: 'A recorded session as Markdown, tool calls folded, each turn with its citation.',
  usage: 'show SESSION [--turns A..B] [--gen N] [--machine M] [--agent A] [--store DIR] [--full] [--scan] [--json] [--reveal]',
  details: `SESSION is the id search lists, the agent's own id, or an unambiguous prefix. --turns takes A..B,
A.., ..B or A (the newest generation's turns; an entry only an older generation holds comes with
the turn it follows). A session whose file the agent rewrote (a compaction, a whole-file rewrite,
an edit) shows one timeline: the newest generation, and in place what only older ones hold, marked
"only in generation N (rewritten away)"; --gen N shows generation N alone, as it was. Thinking and each tool's arguments and output are cut at 2000 characters unless --full.
To a terminal, a session taller than the screen goes through $PAGER (default less; PAGER= or
PAGER=cat writes it as is).
Secrets the guard knows or finds are masked as \`brain secrets\` shows them (--json: "masked": N);
--reveal prints them in clear, only to a terminal.
With a store configured, another machine's session (--machine M, or an id not on this machine) is
read from the store, where it is (over ssh, on the store host).
${COMMON_EXIT_CODES}`,
  options: [
    { name: 'turns', type: 'string', help: 'only turns A..B (1-based)' },
    { name: 'gen', type: 'number', help: 'generation N of the session file alone, as it was' },
    { name: 'machine', type: 'string', help: 'the machine, when the id exists on several' },
    { name: 'agent', type: 'string', help: 'the agent, when the id names sessions of several' },
    { name: 'store', type: 'string', help: 'read from a store folder instead of BRAIN_HOME' },
    { name: 'full', type: 'bool', help: 'do not cut long thinking, arguments or output' },
    { name: 'scan', type: 'bool', help: 'find the session in the files, not the turn index' },
    { name: 'json', type: 'bool', help: 'machine-readable turns (the MCP and LM tools\' shape)' },
    REVEAL_OPTION,
  ],
  async run(args, ctx) {
    const session = args.positionals[0];
    if (!session || args.positionals.length > 1) throw new BrainError('usage', 'show takes one SESSION', 'brain show <session id> [--turns A..B]');
    const o = args.opts;
    const input: ReadInput = { session };
    for (const k of ['turns', 'machine', 'agent', 'store'] as const) if (o[k] !== undefined) input[k] = o[k] as string;
    if (o.gen !== undefined) input.gen = o.gen as number;
    if (o.full) input.max_chars = 0;
    // Through the front door, as brain mcp and the editor read a session (validated, the store
    // picked, masked); no budget: the whole range asked.
    const r = (await callRecall('read_session', input, recallContext('show', args, ctx))) as McpReadOutput & { masked: number };
    if (o.json) write(ctx.stdout, JSON.stringify(r));
    // A long session to a terminal goes through the pager (pager.ts).
    else paged(ctx.stdout, toMarkdown(r) + (r.masked ? `\n${revealNote('show', r.masked)}\n` : ''), ctx.env);
    return 0;
  },
};
