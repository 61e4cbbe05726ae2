// The machine name: what the store folder and every citation are named after.
import * as fs from 'node:fs';
import * as os from 'node:os';
import { parse } from 'smol-toml';
import type { Env } from './home';
import { layout } from './home';
import { setting } from './settings';

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
