// `brain hook <agent>`: a harness hook's JSON payload on stdin -> a meta record (git common dir,
// remote, branch, commit, cwd) through the spool. It must be fast and must never fail the agent's
// hook, so git is read from its files (no `git` process) and every error is swallowed by the caller.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentByLane } from '../agents';
import { ensureHome } from '../home';
import { machineName } from '../machine';
import { applyMeta } from './apply';
import { commitEntry, spoolId, type MetaEntry } from './spool';
import type { Lane } from './manifest';

export interface GitInfo {
  toplevel: string;
  common_dir: string;
  git_dir: string;
  branch: string | null;
  commit: string | null;
  remote: string | null;
}

function readText(p: string): string | null {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}

/** Git facts for `cwd` read straight from .git (worktrees included). */
export function gitInfo(cwd: string): GitInfo | null {
  let dir = path.resolve(cwd);
  for (;;) {
    const dotgit = path.join(dir, '.git');
    let st: fs.Stats | null = null;
    try {
      st = fs.statSync(dotgit);
    } catch {
      st = null;
    }
    if (st) {
      let gitDir = dotgit;
      if (st.isFile()) {
        const m = /^gitdir:\s*(.+)$/m.exec(readText(dotgit) ?? '');
        if (!m) return null;
        gitDir = path.resolve(dir, m[1].trim());
      }
      const cd = readText(path.join(gitDir, 'commondir'));
      const commonDir = cd ? path.resolve(gitDir, cd.trim()) : gitDir;
      const head = (readText(path.join(gitDir, 'HEAD')) ?? '').trim();
      let branch: string | null = null;
      let commit: string | null = null;
      const ref = /^ref:\s*(.+)$/.exec(head);
      if (ref) {
        branch = ref[1].replace(/^refs\/heads\//, '');
        commit = resolveRef(gitDir, commonDir, ref[1]);
      } else if (/^[0-9a-f]{40,64}$/.test(head)) commit = head;
      return { toplevel: dir, common_dir: commonDir, git_dir: gitDir, branch, commit, remote: remoteUrl(commonDir) };
    }
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

function resolveRef(gitDir: string, commonDir: string, ref: string): string | null {
  for (const d of [gitDir, commonDir]) {
    const v = readText(path.join(d, ref));
    if (v && /^[0-9a-f]{40,64}/.test(v.trim())) return v.trim();
  }
  const packed = readText(path.join(commonDir, 'packed-refs')) ?? '';
  for (const line of packed.split('\n')) {
    const [sha, name] = line.split(' ');
    if (name === ref && /^[0-9a-f]{40,64}$/.test(sha)) return sha;
  }
  return null;
}

function remoteUrl(commonDir: string): string | null {
  const cfg = readText(path.join(commonDir, 'config')) ?? '';
  let inOrigin = false;
  let first: string | null = null;
  let current = false;
  for (const raw of cfg.split('\n')) {
    const line = raw.trim();
    const sec = /^\[remote\s+"([^"]+)"\]$/.exec(line);
    if (sec) {
      inOrigin = sec[1] === 'origin';
      current = true;
      continue;
    }
    if (line.startsWith('[')) {
      current = false;
      continue;
    }
    const url = /^url\s*=\s*(.+)$/.exec(line);
    if (current && url) {
      if (inOrigin) return url[1].trim();
      first ??= url[1].trim();
    }
  }
  return first;
}

export interface HookPayload {
  session_id?: string;
  sessionId?: string;
  transcript_path?: string;
  cwd?: string;
  hook_event_name?: string;
  source?: string;
  [k: string]: unknown;
}

export interface HookResult {
  lane: Lane;
  session: string;
  meta: string | null;
  spooled: boolean;
}

/** Writes the meta record for a hook payload. Throws on a bad lane or payload (the CLI swallows it). */
export function recordHook(home: string, lane: string, payload: HookPayload, env: NodeJS.ProcessEnv = process.env): HookResult {
  const agent = agentByLane(lane);
  if (!agent) throw new Error(`unknown agent "${lane}"`);
  const session =
    payload.session_id ??
    payload.sessionId ??
    (payload.transcript_path ? agent.sessionOf(String(payload.transcript_path)) : undefined) ??
    env.PI_SESSION_ID;
  if (!session) throw new Error('hook payload has no session_id');
  const cwd = typeof payload.cwd === 'string' && payload.cwd ? payload.cwd : process.cwd();
  const git = gitInfo(cwd);
  const l = ensureHome(home);
  const entry: MetaEntry = {
    v: 1,
    kind: 'meta',
    id: spoolId(),
    lane: agent.lane,
    session: String(session),
    record: {
      v: 1,
      lane: agent.lane,
      agent: agent.agent,
      session: String(session),
      captured_at: new Date().toISOString(),
      machine_id: machineName(l.root, env),
      cwd,
      transcript_path: payload.transcript_path ?? null,
      hook_event: payload.hook_event_name ?? null,
      source: payload.source ?? null,
      git,
    },
  };
  commitEntry(l.spool, entry);
  // Meta records need no floor lock (link(2) never replaces), so apply this one now.
  const dest = applyMeta(l, entry);
  fs.rmSync(path.join(l.spool, agent.lane, `${entry.id}.json`), { force: true });
  return { lane: agent.lane, session: String(session), meta: dest, spooled: true };
}
