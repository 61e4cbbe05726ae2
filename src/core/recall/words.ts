// The words a count or a source is said in, the same in the CLI, the MCP/LM tools' headers and the
// extension's search box.
import type { SearchHit, SearchOutput } from './types';

/** "1 turn", "2 turns". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** What a hit matched: "1 turn", "3 tool mentions". */
export function matchedText(h: Pick<SearchHit, 'matching_turns' | 'tier'>): string {
  return plural(h.matching_turns, h.tier === 'turns' ? 'turn' : 'tool mention');
}

/** Where a search answer came from: "turn index", "scan (why)", or "scan" when no reason applies
 * (a store with no other machine to search). */
export function sourceText(r: Pick<SearchOutput, 'source' | 'fallback'>): string {
  return r.source === 'index' ? 'turn index' : r.fallback ? `scan (${r.fallback})` : 'scan';
}

/** The parts of a hit's one-line description that are known, joined by " · " (no empty parts). */
export function hitDescription(h: Pick<SearchHit, 'agent' | 'project' | 'matching_turns' | 'tier'>): string {
  const name = h.project ? h.project.split(/[\\/]/).filter(Boolean).pop() || h.project : null;
  return [h.agent, name, matchedText(h)].filter(Boolean).join(' · ');
}
