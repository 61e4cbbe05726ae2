import { brainHome } from '../core/home';
import { listSecrets, rescanAll, scanPending, secretsSummary, type SecretGroup } from '../core/secrets';
import { humanBytes, write, type Verb } from './args';
import { maskSecrets } from '../core/secrets/redact';

function human(groups: SecretGroup[]): string[] {
  const out: string[] = [];
  groups.forEach((g, i) => {
    const where = g.places.length === 1 ? '1 place' : `${g.places.length} places`;
    out.push('');
    out.push(`${i + 1}. ${g.label}  ${g.preview}  (${g.kind}; ${where} in ${g.sessions} session${g.sessions === 1 ? '' : 's'}; first seen ${g.first_seen})`);
    for (const p of g.places) {
      const c = p.citation;
      const lines = c.line_to === c.line_from ? `line ${c.line_from}` : `lines ${c.line_from}-${c.line_to}`;
      out.push(`   ${p.agent} session ${p.session}, ${lines} (bytes ${c.byte_from}-${c.byte_to})${p.line_ts ? ` at ${p.line_ts}` : ''}`);
      out.push(`     floor:  ${p.lake_file}  [machine ${c.machine}, generation ${c.gen}]`);
      out.push(`     origin: ${p.origin_path}`);
      const sc = p.store_copies;
      const copies =
        sc.store === 'local'
          ? sc.machines.length > 0
            ? `store copies: ${sc.machines.join(', ')}`
            : 'store copies: none yet (not synced)'
          : sc.store === 'ssh'
            ? `store copies: ${sc.machines.length > 0 ? sc.machines.join(', ') : 'none yet'} (${sc.note})`
            : `store: ${sc.note}`;
      out.push(`     ${copies}`);
      out.push(`     check:  ${p.check}  → ${c.sha256}`);
    }
    out.push(`   Rotate: ${g.rotate}`);
  });
  return out;
}

export const secrets: Verb = {
  name: 'secrets',
  summary: 'List credentials found in recorded sessions, with where they live and how to rotate them.',
  usage: 'secrets [--rescan] [--json]',
  details: `Scans what was captured since the last scan (never the whole floor again), then lists each credential
found: cloud keys (AWS, GCP, Azure), model-provider keys (OpenAI, Anthropic, Google, Hugging Face), GitHub
and Slack tokens, private keys and .env-style secret assignments. Only a masked preview is ever shown. Each
place comes with its citation (check it with the sed | sha256sum line), the session's origin and which
machines' store copies hold it. The floor is never modified: rotate the credential at its issuer.
Findings are a cache in BRAIN_HOME/secrets.json; --rescan drops it and scans the whole floor again.
Exit codes: 0 no findings, 1 findings listed, 2 usage error, 3 could not run.`,
  options: [
    { name: 'rescan', type: 'bool', help: 'drop the findings cache and scan the whole floor again' },
    { name: 'json', type: 'bool', help: 'machine-readable list' },
  ],
  async run(args, ctx) {
    const home = brainHome(ctx.env);
    const scan = args.opts.rescan ? await rescanAll(home) : await scanPending(home);
    // The places are paths: a credential in a folder name is masked there like anywhere else.
    const groups = (await maskSecrets(home, listSecrets(home, ctx.env))).value;
    const summary = secretsSummary(home);
    if (args.opts.json) {
      const { added: _a, ...scanned } = scan;
      write(ctx.stdout, JSON.stringify({ summary, scan: { ...scanned, added: scan.added.length }, secrets: groups }));
    } else {
      const scanned = scan.ran
        ? scan.chunks > 0
          ? `scanned ${scan.chunks} new chunk${scan.chunks === 1 ? '' : 's'} (${humanBytes(scan.bytes)}) in ${Math.round(scan.ms)} ms`
          : 'nothing new to scan'
        : 'another process is scanning; showing what it has found so far';
      write(ctx.stdout, `${home}: ${scanned}`);
      if (summary.errors > 0) write(ctx.stdout, `${summary.errors} chunk(s) could not be read: run \`brain verify\``);
      if (groups.length === 0) write(ctx.stdout, 'no secrets found');
      else {
        write(ctx.stdout, `${summary.secrets} secret${summary.secrets === 1 ? '' : 's'} in ${summary.count} place${summary.count === 1 ? '' : 's'} across ${summary.sessions} session${summary.sessions === 1 ? '' : 's'}:`);
        for (const l of human(groups)) write(ctx.stdout, l);
      }
    }
    return groups.length === 0 ? 0 : 1;
  },
};
