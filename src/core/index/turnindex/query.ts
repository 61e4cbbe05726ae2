// Reading the turn index: the FTS match behind search, and the sessions, files and turns it keeps.
// Also whether the index holds everything the floor's manifests claim (a reader that must not
// update it, brain mcp, uses it only then).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fold } from '../parse-job';
import type { MachineFloor } from '../roots';
import { rawFilesOf } from './rawpost';
import { decodePack } from './turnpack';
import { BLOCK, IndexBase, type FileRow, type LiveFile, type SessionKeys, type SessionRow, type TurnRow } from './schema';


/** Can the index answer this term? The trigram tokenizer needs three characters (code points). */
export function indexable(term: string): boolean {
  let n = 0;
  for (const _ of fold(term)) if (++n >= 3) return true;
  return false;
}

function phrase(term: string): string {
  return `"${fold(term).replace(/"/g, '""')}"`;
}

const LIVE_COLS = 'id, machine, lake_path, base, gen, lane, sess_id, claimed, unterminated, first_seen, last_seen, raw_done';

export class IndexQueries extends IndexBase {
  /** How far into a machine's manifest this index has read, and how long it is now (null: none). */
  protected manifestProgress(mf: MachineFloor): { key: string; from: number; size: number; mfile: string } | null {
    const key = `manifest:${mf.machine}`;
    const mfile = path.join(mf.dir, 'manifest', 'manifest.jsonl');
    try {
      // At the store a manifest is not followed when it is a symlink: its own size says it changed,
      // and reading it (which refuses it) names it.
      const st = this.root.kind === 'store' ? fs.lstatSync(mfile) : fs.statSync(mfile);
      return { key, from: Number(this.st.getMeta.get(key) ?? 0), size: st.size, mfile };
    } catch {
      return null;
    }
  }

  /** Why this index does not hold everything the floor's manifests claim (null: it does). */
  behind(): string | null {
    if (this.root.kind === 'home' && this.st.getMeta.get('home_machine') !== this.root.machines[0].machine) return 'the turn index was built for another machine name';
    for (const mf of this.root.machines) {
      const p = this.manifestProgress(mf);
      if (p && p.from !== p.size) return `the turn index is behind the floor of ${mf.machine} (${p.size - p.from} manifest bytes not read yet)`;
    }
    return null;
  }



  /** Sessions whose user or assistant turns contain `term` (case-insensitive, literal), with the
   * number of such turns and the ids of the first three. */
  match(term: string): { sess_id: number; count: number; ids: number[]; all: string }[] {
    const rows = this.st.match.all(phrase(term)) as { s: number; c: number; ids: string }[];
    const out: { sess_id: number; count: number; ids: number[]; all: string }[] = [];
    // One row a block, a session's blocks in a row and in rowid order: joined per session.
    for (let i = 0; i < rows.length; ) {
      const s = rows[i].s;
      let c = rows[i].c;
      let all = rows[i].ids;
      for (i++; i < rows.length && rows[i].s === s; i++) {
        c += rows[i].c;
        all += `,${rows[i].ids}`;
      }
      out.push({ sess_id: s, count: c, ids: all.split(',', 3).map(Number), all });
    }
    return out;
  }

  /** Sessions with a file of generation 2 or later: their matches may repeat a turn. */
  rewrittenSessions(): Set<number> {
    // A section of such a file too (its turns are the file's).
    return new Set(
      this.db
        .prepare(`WITH r AS (SELECT DISTINCT sess_id FROM files WHERE gen > 1 AND live = 1) SELECT sess_id FROM r UNION SELECT id FROM sessions WHERE whole IN (SELECT sess_id FROM r)`)
        .pluck()
        .all() as number[],
    );
  }

  /** The turns `ids` name (those there are), in id order: each block's pack read once. */
  turnsByIds(ids: Iterable<number>): TurnRow[] {
    const byBlock = new Map<number, Set<number>>();
    for (const id of ids) {
      const b = Math.floor(id / BLOCK);
      let s = byBlock.get(b);
      if (!s) byBlock.set(b, (s = new Set()));
      s.add(id);
    }
    const out: TurnRow[] = [];
    for (const b of [...byBlock.keys()].sort((x, y) => x - y)) {
      const data = this.st.pack.get(b) as Buffer | undefined;
      if (!data) continue;
      const want = byBlock.get(b) as Set<number>;
      let last = 0;
      for (const id of want) if (id > last) last = id;
      // A pack is read up to the last turn wanted: a search's snippets want a block's first few.
      for (const t of decodePack(b, data, last)) if (want.has(t.id)) out.push(t);
    }
    return out;
  }

  /** The turns `ids` name, each with its file's generation and the newest generation of that
   * file's base (its lake path without the generation). */
  turnsWithGen(ids: number[]): (TurnRow & { gen: number; newest: number; base: string })[] {
    const turns = this.turnsByIds(ids);
    const q = this.db.prepare(`SELECT f.gen, f.base, (SELECT max(g.gen) FROM files g WHERE g.machine = f.machine AND g.base = f.base AND g.live = 1) AS newest FROM files f WHERE f.id = ?`);
    const files = new Map<number, { gen: number; base: string; newest: number } | undefined>();
    const out: (TurnRow & { gen: number; newest: number; base: string })[] = [];
    for (const t of turns) {
      if (!files.has(t.file_id)) files.set(t.file_id, q.get(t.file_id) as { gen: number; base: string; newest: number } | undefined);
      const f = files.get(t.file_id);
      if (f) out.push({ ...t, ...f });
    }
    return out;
  }

  /** Newest generation of each base of a machine, keyed machine + NUL + base. */
  newestGens(): Map<string, number> {
    const rows = this.db.prepare(`SELECT machine, base, max(gen) AS g FROM files WHERE live = 1 GROUP BY machine, base`).all() as { machine: string; base: string; g: number }[];
    return new Map(rows.map((r) => [`${r.machine}\0${r.base}`, r.g]));
  }

  /** The files (ids) with a raw chunk holding every trigram of one of `forms` (lowercased raw
   * forms of a term), each with those chunks' byte ranges (from, to pairs): a superset of the
   * files and lines that hold it. Null: no trigram to ask. */
  rawFiles(forms: string[]): Map<number, number[]> | null {
    return rawFilesOf(this.rawSt, forms);
  }

  turn(id: number): TurnRow | undefined {
    return this.turnsByIds([id])[0];
  }

  session(id: number): SessionRow | undefined {
    return this.st.sessById.get(id) as SessionRow | undefined;
  }

  /** Every session's keys, place and dates: what filtering and ranking need, without the titles. */
  sessionKeys(): SessionKeys[] {
    return this.db.prepare(`SELECT id, machine, lane, session, native, parent, subagent, project, repo, started, ended, turns, whole, section FROM sessions`).all() as SessionKeys[];
  }

  /** Sessions with a turn, and those of live files; a file that gathers several sessions
   * (Turn.section) is listed as its sections, its own session only when it holds a turn. */
  sessions(): SessionRow[] {
    return this.db
      .prepare(`SELECT * FROM sessions WHERE turns > 0 OR (id IN (SELECT sess_id FROM files WHERE live = 1) AND id NOT IN (SELECT whole FROM sessions WHERE whole IS NOT NULL))`)
      .all() as SessionRow[];
  }

  file(id: number): FileRow | undefined {
    return this.db.prepare(`SELECT * FROM files WHERE id = ?`).get(id) as FileRow | undefined;
  }

  /** Every live file, with where it is and what the manifest claims (not its parse state). */
  liveFiles(): LiveFile[] {
    return this.db.prepare(`SELECT ${LIVE_COLS} FROM files WHERE live = 1`).all() as LiveFile[];
  }

  /** The live files among `ids`, and those with lines the raw index does not hold yet (a line still
   * being written, a file not read): what the tool tier reads for a term the raw index answered. */
  liveFilesAmong(ids: Iterable<number>): LiveFile[] {
    const out = this.db.prepare(`SELECT ${LIVE_COLS} FROM files WHERE live = 1 AND raw_done < claimed`).all() as LiveFile[];
    const one = this.db.prepare(`SELECT ${LIVE_COLS} FROM files WHERE id = ? AND live = 1 AND raw_done >= claimed`);
    for (const id of ids) {
      const f = one.get(id) as LiveFile | undefined;
      if (f) out.push(f);
    }
    return out;
  }

  /** The live files holding a session's turns (a section's: its file's). */
  filesOf(sessId: number): FileRow[] {
    return this.st.filesOfSess.all(sessId) as FileRow[];
  }

  /** Sessions whose id, the agent's own id, or a prefix of either is `ref`. */
  findSessions(ref: string): SessionRow[] {
    const exact = this.db.prepare(`SELECT * FROM sessions WHERE session = ? OR native = ?`).all(ref, ref) as SessionRow[];
    if (exact.length) return exact;
    const esc = ref.replace(/[\\%_]/g, (c) => `\\${c}`);
    return this.db
      .prepare(`SELECT * FROM sessions WHERE session LIKE ? ESCAPE '\\' OR native LIKE ? ESCAPE '\\' LIMIT 50`)
      .all(`${esc}%`, `${esc}%`) as SessionRow[];
  }

  stats(): { sessions: number; files: number; turns: number; bytes_indexed: number } {
    const g = (sql: string) => Number(this.db.prepare(sql).pluck().get() ?? 0);
    return {
      sessions: g(`SELECT count(*) FROM sessions`),
      files: g(`SELECT count(*) FROM files WHERE live = 1`),
      turns: g(`SELECT coalesce(sum(turns), 0) FROM sessions`),
      bytes_indexed: g(`SELECT coalesce(sum(done), 0) FROM files WHERE live = 1`),
    };
  }
}
