// Where recall reads: this machine's BRAIN_HOME, or a store folder holding one BRAIN_HOME-shaped
// folder per machine (<store>/<machine>/{lake,manifest,meta}). Both carry their turn index at
// their root, so a search over a store covers every machine that synced into it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentByLane } from '../agents';
import { BrainError } from '../errors';
import { brainHome, type Env } from '../home';
import { machineName, shownName, storeMachineName } from '../machine';
import { metaName } from '../floor/metaname';
import { fileSegment, readInside } from '../safepath';

export interface MachineFloor {
  machine: string;
  /** Folder laid out like BRAIN_HOME (lake/, manifest/, meta/). */
  dir: string;
}

export interface Root {
  kind: 'home' | 'store';
  path: string;
  machines: MachineFloor[];
  /** Where this root's turn index lives. */
  index: string;
  /** Store folders that look like machines but whose names a machine may not have (shown escaped):
   * left out, and said so. */
  refused?: string[];
}

export function homeRoot(env: Env = process.env, home = brainHome(env)): Root {
  return { kind: 'home', path: home, machines: [{ machine: machineName(home, env), dir: home }], index: path.join(home, 'turns.sqlite') };
}

/** A store folder: every sub-folder with a lake/ or manifest/ is a machine. */
export function storeRoot(store: string): Root {
  const abs = path.resolve(store);
  let ents: fs.Dirent[];
  try {
    ents = fs.readdirSync(abs, { withFileTypes: true });
  } catch (e) {
    throw new BrainError('store-unreadable', `cannot read the store folder ${abs}: ${(e as Error).message}`, 'pass the folder that holds one folder per machine', {
      cause: e,
    });
  }
  const machines: MachineFloor[] = [];
  const refused: string[] = [];
  for (const e of ents) {
    if (!e.isDirectory() || e.name.startsWith('.')) continue;
    const dir = path.join(abs, e.name);
    if (!fs.existsSync(path.join(dir, 'lake')) && !fs.existsSync(path.join(dir, 'manifest'))) continue;
    // A machine's name is printable ASCII: a folder named otherwise ("m2" and a zero-width space)
    // would be shown as another machine's name, and cited under it.
    if (storeMachineName(e.name)) machines.push({ machine: e.name, dir });
    else refused.push(shownName(e.name));
  }
  machines.sort((a, b) => a.machine.localeCompare(b.machine));
  refused.sort();
  return { kind: 'store', path: abs, machines, index: path.join(abs, 'turns.sqlite'), ...(refused.length ? { refused } : {}) };
}

export function resolveRoot(opts: { store?: string | null }, env: Env = process.env): Root {
  return opts.store ? storeRoot(opts.store) : homeRoot(env);
}

export function machineDir(root: Root, machine: string): string | null {
  return root.machines.find((m) => m.machine === machine)?.dir ?? null;
}

/** The lake path without its generation suffix ("x.g2.jsonl" -> "x.jsonl"). */
export function baseOfGen(lakePath: string, gen: number): string {
  if (gen <= 1) return lakePath;
  return lakePath.replace(new RegExp(`\\.g${gen}(?=\\.[^./]*$|$)`), '');
}

/** The form a lake file belongs to: its base (baseOfGen), or, for a part of a conversation an
 * agent writes a file per event (AgentFiles.partOf), the key its parts share (`lake/<lane>/<key>`):
 * the files whose turns together are what a session holds. */
export function formOf(lakePath: string, gen: number): string {
  const base = baseOfGen(lakePath, gen);
  const parts = base.split('/');
  const i = parts[0] === 'lake' ? 1 : 0;
  const part = agentByLane(parts[i] ?? '')?.partOf?.(parts.slice(i + 1).join('/'));
  return part ? [...parts.slice(0, i + 1), part].join('/') : base;
}

export interface MetaRecord {
  cwd?: string;
  git?: { common_dir?: string; remote?: string | null; branch?: string | null; commit?: string | null } | null;
}

/** The meta record a hook took at session start (meta/<lane>/<session>.json), if any. Lane and
 * session come from a manifest (another machine's, in a store): the file is found through the
 * guard, never through a symlink, and a record that is not there or not safe is simply absent. */
export function readMeta(dir: string, lane: string, session: string, seen?: Set<string>): MetaRecord | null {
  try {
    return JSON.parse(readInside(dir, `meta/${fileSegment(lane)}/${metaName(session)}`, { what: 'meta record', seen }).toString('utf8')) as MetaRecord;
  } catch {
    return null;
  }
}

/** A project label from a lake path when the transcript names no cwd: the agent's own naming
 * (several fold the cwd into a folder name lossily, so this is a label, not a path to open). */
export function projectFromPath(lane: string, rel: string): string | null {
  return agentByLane(lane)?.projectFromPath?.(rel) ?? null;
}
