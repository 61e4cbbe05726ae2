// The machine name: what the store folder and every citation are named after.
import * as fs from 'node:fs';
import * as os from 'node:os';
import { parse } from 'smol-toml';
import type { Env } from './home';
import { layout } from './home';
import { setting } from './settings';

/** The machine's folder name at the store: it must be one plain path segment. */
export const MACHINE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Names the store's root keeps for itself (its turn index and that index's side files): a machine
 * named so would sync its floor over them, or a store reader would take them for a machine. */
export function storeReserved(name: string): boolean {
  return /^turns\.sqlite(?:$|[-.])/i.test(name);
}

/** Whether `name` may name a machine, at the store as in the config: printable ASCII letters,
 * digits, ".", "_" and "-", starting with a letter or digit, and not a name the store root uses. */
export function validMachineName(name: string): boolean {
  return MACHINE_RE.test(name) && !storeReserved(name);
}

/** Whether a folder the store holds may be read as a machine: printable ASCII (what can be shown
 * as it is: a zero-width space or a look-alike letter cannot pass for another machine's name), not
 * hidden, and not a name the store root uses. Looser than validMachineName, which a machine's own
 * config must meet: a store folder another version (or a person) named is read if it is safe to show. */
export function storeMachineName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && /^[\x20-\x7e]+$/.test(name) && !name.startsWith('.') && !storeReserved(name);
}

/** A name as it may be shown: a printable one as it is, any other JSON-quoted with every character
 * outside printable ASCII escaped (a zero-width space must not make "m2\u200b" look like "m2"). */
export function shownName(name: string): string {
  if (storeMachineName(name)) return name;
  return JSON.stringify(name).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
export function machineName(home: string, env: Env = process.env): string {
  const named = setting(env, 'BRAIN_MACHINE');
  if (named) return named;
  try {
    const cfg = parse(fs.readFileSync(layout(home).config, 'utf8')) as { machine?: unknown };
    if (typeof cfg.machine === 'string' && cfg.machine.length > 0) return cfg.machine;
  } catch {
    /* no config or unparsable: doctor reports it; the hostname is a safe default */
  }
  return os.hostname();
}
