// `brain backup DEST`: a pure-add copy of the floor (lake/, manifest/, meta/) into any local folder,
// then a read-back of sampled manifest ranges at DEST. Same protections as the sync: every local
// lake file is checked against the manifest first and one that fails is not copied (rsync
// --append-verify would otherwise re-send it whole over a good copy already at DEST), never
// --delete, and the result is only "ok" once the destination re-hashes to our manifest.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrainError } from '../errors';
import { layout, type Env, type Layout } from '../home';
import { settledFloor, SETTLE_WAIT_MS } from '../floor/settle';
import { writeFileAtomic } from '../floor/durable';
import { kindOf, listFloor } from './floorfiles';
import { checkLocal, manifestRanges } from './localcheck';
import { SYNCED_DIRS } from './paths';
import { readbackFolder, type ReadbackReport, type SampleOptions } from './readback';
import { excludeLine, type TransferStats } from './rsync';

const NO_RSYNC = '\0no-rsync';
/** How to get rsync, per platform (Windows has none of its own). */
export const RSYNC_HINT =
  process.platform === 'win32'
    ? 'install rsync 3 (MSYS2: pacman -S rsync, or Cygwin; or run brain inside WSL) and put it on PATH, then run it again; nothing was copied'
    : 'install rsync 3 (apt-get install rsync, dnf install rsync, brew install rsync) and run it again; nothing was copied';

export interface BackupReport {
  dest: string;
  copied: number;
  stats?: TransferStats;
  /** Local files that failed their check and were not copied. */
  skipped: { path: string; why: string }[];
  readback: ReadbackReport;
}

export async function backup(home: string, dest: string, opts: SampleOptions & { rsyncPath?: string; env?: Env } = {}): Promise<BackupReport> {
  const env = opts.env ?? process.env;
  const abs = path.resolve(dest);
  const l = layout(home);
  if (abs === l.root || abs.startsWith(l.root + path.sep)) {
    throw new BrainError('backup-dest', `${abs} is inside BRAIN_HOME (${l.root})`, 'choose a folder outside it, e.g. on another disk');
  }
  if (!fs.existsSync(l.manifest)) throw new BrainError('backup-empty', `nothing to back up: ${l.manifest} does not exist`, 'run `brain record` first');
  fs.mkdirSync(abs, { recursive: true });
  // Only claimed bytes are copied: the copy reads the floor under its lock (settle.ts).
  const floor = await settledFloor(home);
  if (!floor) throw new BrainError('floor-busy', `a capture pass kept ${l.root} busy for ${SETTLE_WAIT_MS / 1000} s; nothing was copied`, 'run `brain backup` again once it ends');
  try {
    return await copyOut(home, abs, l, opts, env);
  } finally {
    floor.release();
  }
}

async function copyOut(home: string, abs: string, l: Layout, opts: SampleOptions & { rsyncPath?: string }, env: Env): Promise<BackupReport> {
  const { ranges } = manifestRanges(l.manifest);
  const skipped: BackupReport['skipped'] = [];
  for (const f of listFloor(home).values()) {
    if (kindOf(f.rel) !== 'lake') continue;
    const c = checkLocal(path.join(home, f.rel), 'lake', ranges.get(f.rel), undefined);
    if (!c.ok) skipped.push({ path: f.rel, why: c.why ?? 'fails the manifest' });
  }
  const tmp = path.join(home, 'sync', `backup-excludes-${process.pid}`);
  writeFileAtomic(tmp, ['.tmp-*', '.checkpoint.json', ...skipped.map((s) => excludeLine(s.path))].join('\n') + '\n', { sync: false });
  try {
    const sources = SYNCED_DIRS.map((d) => path.join(home, d)).filter((d) => fs.existsSync(d));
    const rsync = opts.rsyncPath ?? 'rsync';
    const args = ['-a', '--append-verify', '--itemize-changes', '--stats', '--no-human-readable', `--exclude-from=${tmp}`, ...sources, `${abs}/`];
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      let stdout = '';
      let stderr = '';
      const c = spawn(rsync, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...env, LC_ALL: 'C' } as NodeJS.ProcessEnv });
      c.stdout.on('data', (d) => (stdout += d.toString()));
      c.stderr.on('data', (d) => (stderr += d.toString()));
      c.on('error', (e) => resolve({ code: null, stdout, stderr: (e as NodeJS.ErrnoException).code === 'ENOENT' ? NO_RSYNC : e.message }));
      c.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    if (r.stderr === NO_RSYNC) {
      throw new BrainError('backup-no-rsync', `backup copies with rsync, and ${rsync} cannot be found${path.isAbsolute(rsync) ? '' : ' on PATH'}`, RSYNC_HINT);
    }
    if (r.code !== 0) {
      const full = /No space left on device/.test(r.stderr);
      throw new BrainError(
        full ? 'backup-full' : 'backup-rsync',
        `copying to ${abs} failed (rsync exit ${r.code}): ${r.stderr.trim().split('\n').filter((x) => x.startsWith('rsync')).slice(0, 2).join('; ') || r.stderr.trim().slice(0, 200)}`,
        full ? 'free space at the destination; what was copied stays and the next run resumes' : 'check the destination folder, then run it again (it resumes)',
      );
    }
    const copied = r.stdout.split('\n').filter((x) => /^[<>]f/.test(x)).length;
    const stats = /Total bytes sent: (\d+)/.exec(r.stdout);
    const readback = readbackFolder(home, abs, opts);
    return {
      dest: abs,
      copied,
      stats: stats ? { sent: Number(stats[1]), received: 0, literal: 0, matched: 0, files: copied } : undefined,
      skipped,
      readback,
    };
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
