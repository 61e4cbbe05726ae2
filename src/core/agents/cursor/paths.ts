import * as fs from 'node:fs';
import type * as path from 'node:path';
import { homeDir, pathFor, type Env } from '../../home';
import { sessionFromName, type AgentFiles } from '../types';
import { isRowsFile, sessionFromRows, type DbOrigin } from '../kit/sqlite';

/** A chat id or a project folder name as cursor-agent writes them: nothing that could climb out of
 * a lake folder or need quoting. */
const NAME = /^[A-Za-z0-9_@-][A-Za-z0-9._@-]*$/;

function list(d: string): string[] {
  try {
    return fs.readdirSync(d);
  } catch {
    return [];
  }
}

/** Of the `wanted` chats, those whose transcript lies in ~/.cursor/projects/<slug>/agent-transcripts/:
 * chat id -> slug (the transcript is <id>.jsonl, <id>.txt or <id>/<id>.jsonl). */
function transcriptSlugs(p: path.PlatformPath, projects: string, wanted: Map<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const slug of list(projects)) {
    if (!NAME.test(slug)) continue;
    for (const name of list(p.join(projects, slug, 'agent-transcripts'))) {
      const id = name.replace(/\.(jsonl|txt)$/, '');
      if (wanted.has(id) && !out.has(id)) out.set(id, slug);
    }
  }
  return out;
}

/** cursor-agent: ~/.cursor/projects/<slug>/agent-transcripts/** (.jsonl and .txt), which hold no
 * clock; and of each such chat's own database, ~/.cursor/chats/<md5 of cwd>/<chat id>/store.db,
 * only its `meta` table (one row: hex-encoded JSON with the chat's createdAt and name), recorded
 * beside the transcript's project as <slug>/chats/<chat id>/<chat id>.rows.jsonl: what dates the
 * session, which is shown from its transcript however short (a form with no turns is never the one
 * shown: turncount.ts shownForm). The `blobs` table (the conversation again, as a
 * content-addressed tree) is never read. */
export const cursorFiles: AgentFiles = {
  roots(env: Env) {
    return [
      {
        dir: pathFor(env).join(homeDir(env), '.cursor', 'projects'),
        lakePrefix: '',
        include: (rel) => /^[^/]+\/agent-transcripts\/.+\.(jsonl|txt)$/.test(rel),
      },
    ];
  },
  databases(env: Env): DbOrigin[] {
    const p = pathFor(env);
    const cursor = p.join(homeDir(env), '.cursor');
    // Each chat's database: chat id -> its store.db.
    const stores = new Map<string, string>();
    for (const h of list(p.join(cursor, 'chats'))) {
      for (const id of list(p.join(cursor, 'chats', h))) {
        const file = p.join(cursor, 'chats', h, id, 'store.db');
        if (NAME.test(id) && !stores.has(id) && fs.existsSync(file)) stores.set(id, file);
      }
    }
    if (stores.size === 0) return [];
    const out: DbOrigin[] = [];
    for (const [id, slug] of transcriptSlugs(p, p.join(cursor, 'projects'), stores)) {
      out.push({
        file: stores.get(id) as string,
        lakePrefix: `${slug}/chats/${id}/`,
        tables: [{ name: 'meta', key: ['key'], session: `'${sessionFromName(`${id}.jsonl`)}'` }],
      });
    }
    return out.sort((a, b) => (a.file < b.file ? -1 : 1));
  },
  sessionOf: (rel) => (isRowsFile(rel) ? sessionFromRows(rel) : sessionFromName(rel)),
};
