import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { brainHome, layout, pathFor, type Env } from '../../home';
import { parse as parseToml } from 'smol-toml';
import { setting } from '../../settings';
import { loadSqlite } from '../../sqlite';
import type { AgentFiles, OriginRoot } from '../types';

/** Aider's two files, as it names them in the folder it runs in (its git root when there is one). */
export const CHAT_HISTORY = '.aider.chat.history.md';
export const INPUT_HISTORY = '.aider.input.history';

/** How long the folders found through other agents' sessions are reused: a capture pass asks for
 * the roots every time, and the turn index they are read from changes slowly. */
const FOUND_TTL_MS = 60_000;

let found: { home: string; at: number; dirs: string[] } | null = null;

/** The folders other agents' recorded sessions ran in (the turn index's projects, which are the
 * cwds the transcripts name), read-only; none when the index or SQLite is not there. */
function sessionDirs(env: Env): string[] {
  const home = brainHome(env);
  const now = Date.now();
  if (found && found.home === home && now - found.at < FOUND_TTL_MS) return found.dirs;
  let dirs: string[] = [];
  const file = layout(home).turns;
  const Sqlite = fs.existsSync(file) ? loadSqlite() : null;
  if (Sqlite) {
    try {
      const db = new Sqlite(file, { readonly: true, fileMustExist: true });
      try {
        db.pragma('busy_timeout = 200');
        dirs = (db.prepare(`SELECT DISTINCT project FROM sessions WHERE lane <> 'aider' AND project IS NOT NULL`).pluck().all() as string[]).filter(
          (p) => typeof p === 'string' && p.length > 0,
        );
      } finally {
        db.close();
      }
    } catch {
      /* an index being built, or of another schema: the other sources still count */
    }
  }
  found = { home, at: now, dirs };
  return dirs;
}

/** config.toml's project_dirs (config.ts validates it for doctor and status; a file that does not
 * parse gives none here, and is reported there). */
function configDirs(env: Env): string[] {
  let text: string;
  try {
    text = fs.readFileSync(layout(brainHome(env)).config, 'utf8');
  } catch {
    return [];
  }
  try {
    const v = (parseToml(text) as Record<string, unknown>).project_dirs;
    return Array.isArray(v) ? v.filter((d): d is string => typeof d === 'string') : [];
  } catch {
    return [];
  }
}

let expanded: { from: string[]; dirs: string[] } | null = null;

/** The folders other agents' sessions ran in, each with its git root: worked out again only when
 * that list changes (a pass asks every time; the walk up to .git is a stat per level). */
function sessionRoots(env: Env): string[] {
  const from = sessionDirs(env);
  if (expanded?.from === from) return expanded.dirs;
  expanded = { from, dirs: from.flatMap((d) => withGitRoot(env, d)) };
  return expanded.dirs;
}

/** The folder itself and the git root above it (where Aider writes by default), nearest first. */
function withGitRoot(env: Env, dir: string): string[] {
  const p = pathFor(env);
  const out = [dir];
  let cur = dir;
  for (let i = 0; i < 40; i++) {
    if (fs.existsSync(p.join(cur, '.git'))) {
      if (cur !== dir) out.push(cur);
      break;
    }
    const up = p.dirname(cur);
    if (up === cur) break;
    cur = up;
  }
  return out;
}

/** Where a folder's files go in the lake: its path folded to one readable name (separators and
 * the drive colon to '-', like Claude Code's project folders) plus 8 hex of its exact path, so two
 * folders that fold alike never share a lake file. Never starts with '-' (it is also the session
 * id, which `brain show` takes as an argument). */
export function aiderFolderName(env: Env, dir: string): string {
  const abs = pathFor(env).resolve(dir);
  const fold = abs.replace(/[\\/:]+/g, '-').replace(/^-+|-+$/g, '') || 'root';
  const h = crypto.createHash('sha256').update(abs).digest('hex').slice(0, 8);
  return `${fold}_${h}`;
}

/** The folders whose Aider files are recorded: BRAIN_PROJECT_DIRS, config.toml's project_dirs, the
 * folders other agents' sessions ran in (and their git roots), and the folders of the files
 * AIDER_CHAT_HISTORY_FILE names. Each with the file names it holds. */
export function aiderDirs(env: Env): { dir: string; names: string[] }[] {
  const p = pathFor(env);
  const named = new Map<string, Set<string>>();
  const add = (dir: string, names: string[]) => {
    if (!dir || !p.isAbsolute(dir)) return;
    const d = p.resolve(dir);
    const s = named.get(d) ?? new Set<string>();
    for (const n of names) s.add(n);
    named.set(d, s);
  };
  const both = [CHAT_HISTORY, INPUT_HISTORY];
  for (const d of setting(env, 'BRAIN_PROJECT_DIRS')) add(d, both);
  for (const d of configDirs(env)) add(d, both);
  for (const g of sessionRoots(env)) add(g, both);
  // Aider reads its options from AIDER_* variables too (configargparse): a chat history moved
  // elsewhere is recorded where it is (an input history under another name is not: its lines
  // would read as a chat's).
  const moved = env.AIDER_CHAT_HISTORY_FILE;
  if (moved && p.isAbsolute(moved)) add(p.dirname(moved), [p.basename(moved)]);
  return [...named].map(([dir, names]) => ({ dir, names: [...names] }));
}

/** Aider: `.aider.chat.history.md` (appended Markdown) and `.aider.input.history` (the prompts,
 * appended) in each folder Aider ran in. Only a folder holding one of them is a root, and only
 * those files are looked at: a root is a project folder, never walked. */
export const aiderFiles: AgentFiles = {
  roots(env: Env): OriginRoot[] {
    const p = pathFor(env);
    const out: OriginRoot[] = [];
    for (const { dir, names } of aiderDirs(env)) {
      if (!names.some((n) => fs.existsSync(p.join(dir, n)))) continue;
      const take = new Set(names);
      out.push({ dir, lakePrefix: aiderFolderName(env, dir), include: (rel) => take.has(rel), flat: true });
    }
    return out;
  },
  // Both files of a folder are one session: the chat history is what is shown (the input history
  // is a companion the dialect leaves alone).
  sessionOf: (rel) => rel.split('/')[0],
  // Each `# aider chat started at` header starts a session of its own: its id is the folder's
  // and the header's time (`home-ana-code-app_1a2b3c4d.20240805193332`), which no later write
  // changes, nor a new generation of the file that keeps the header (two sessions started in the
  // same second in one folder would be one). What comes before the first header is the folder's
  // own session.
  sectionId: (session, section) => `${session}.${section}`,
  sectionOfId: (id) => {
    const m = /^(.+_[0-9a-f]{8})\.(\d{14})$/.exec(id);
    return m ? { session: m[1], section: Number(m[2]) } : null;
  },
};

/** Test hook: forget the folders found through the turn index. */
export function forgetFoundDirs(): void {
  found = null;
  expanded = null;
}
