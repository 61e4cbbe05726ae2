// What the turn index's FTS5 table holds, read from its postings (fts5vocab): the index keeps no
// text and no per-turn sizes, so these are the only way to see which turns it still finds.
import type { TurnIndex } from '../../../src/core/index/turnindex';

function vocab(idx: TurnIndex, type: 'row' | 'instance'): string {
  const name = `fts_${type}`;
  idx.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${name} USING fts5vocab('main', 'turns_fts', '${type}')`);
  return name;
}

/** How many turns (rowids) have postings. */
export function ftsRows(idx: TurnIndex): number {
  return idx.db.prepare(`SELECT count(DISTINCT doc) FROM ${vocab(idx, 'instance')}`).pluck().get() as number;
}

/** Every trigram with the number of turns holding it and its occurrences: equal for two indexes
 * of the same turns whatever their rowids, and different when one keeps a turn's stale postings. */
export function ftsTerms(idx: TurnIndex): [string, number, number][] {
  return idx.db.prepare(`SELECT term, doc, cnt FROM ${vocab(idx, 'row')} ORDER BY term`).raw().all() as [string, number, number][];
}
