// Several words, searched as a person means them: sessions that hold every word (each anywhere in
// the session), not the words as one phrase. A phrase is one term (quoted on a command line).
// Each word is searched as a term of its own over the whole list (no --limit), and the sessions
// all of them name are kept, ranked as the rarest word's search ranked them, with its snippets.
import type { SearchHit, SearchInput, SearchOutput } from './types';
import { plural, sourceText } from './words';

export type SearchFn = (input: SearchInput) => Promise<SearchOutput>;

/** How many sessions a word's search may list: the most a search takes (the intersection is of those). */
const ALL = 500;

export async function searchAllWords(words: string[], input: Omit<SearchInput, 'term'>, run: SearchFn): Promise<SearchOutput> {
  const limit = input.limit ?? 10;
  const outs: SearchOutput[] = [];
  for (const w of words) outs.push(await run({ ...input, term: w, limit: ALL }));
  const key = (h: SearchHit) => `${h.machine}\0${h.lane}\0${h.session}`;
  const sets = outs.map((o) => new Map(o.hits.map((h) => [key(h), h])));
  // The rarest word's list orders the answer and gives the snippets.
  const rare = outs.map((o, i) => ({ o, i })).sort((a, b) => a.o.hits.length - b.o.hits.length)[0];
  const both = rare.o.hits
    .filter((h) => sets.every((s) => s.has(key(h))))
    .map((h): SearchHit => {
      const all = sets.map((s) => s.get(key(h))!);
      // Said in the conversation only when every word is; counted by the word said least.
      // A snippet per word (one place that holds two words is shown once).
      const snippets = all.flatMap((x) => x.snippets.slice(0, 1)).filter((sn, i, l) => l.findIndex((y) => y.citation.lake_path === sn.citation.lake_path && y.citation.line_from === sn.citation.line_from && y.turn === sn.turn) === i);
      return { ...h, tier: all.every((x) => x.tier === 'turns') ? 'turns' : 'tools', matching_turns: Math.min(...all.map((x) => x.matching_turns)), snippets };
    });
  both.sort((a, b) => (a.tier === b.tier ? 0 : a.tier === 'turns' ? -1 : 1));
  const hits = both.slice(0, limit);
  const term = words.join(' ');
  const sources = [...new Set(outs.map(sourceText))];
  const parts = [`${plural(both.length, 'session')} with all of ${words.map((w) => JSON.stringify(w)).join(', ')}`];
  if (both.length > hits.length) parts.push(`showing ${hits.length}`);
  parts.push(sources.join(', '));
  parts.push('tool output searched');
  const refused = outs.flatMap((o) => o.refused).filter((r, i, l) => l.findIndex((x) => x.machine === r.machine && x.lake_path === r.lake_path) === i);
  if (refused.length) parts.push(`${plural(refused.length, 'floor file')} refused (unsafe path, not read)`);
  const first = outs[0];
  return { ...first, term, tool_output_searched: true, total: both.length, header: parts.join(' · '), hits, refused };
}
