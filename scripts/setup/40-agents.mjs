// The agent CLIs the live-agent tests drive (test/agents) and ccusage, which the cache's token
// totals are checked against (test/core/cache/ccusage.test.ts). They are test tools, not part of
// what a user installs, so they live outside package.json: pinned here and installed once into a
// cache folder beside the e2e runtime, one folder per set of pins (a changed pin installs anew and
// leaves the old set alone). Run as a script it installs; imported, it gives the paths.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

export const AGENT_CLIS = {
  '@anthropic-ai/claude-code': '2.1.197',
  '@openai/codex': '0.171.0',
  '@mariozechner/pi-coding-agent': '0.73.1',
  cline: '3.0.65',
  '@continuedev/cli': '1.5.47',
  '@google/gemini-cli': '0.61.0',
  '@github/copilot': '1.0.102',
  '@qwen-code/qwen-code': '0.24.4',
  // Factory Droid: `droid` is the package whose platform binaries are published for each of its
  // versions (@factory/cli 0.225.1 names a linux-x64 build that does not exist).
  droid: '0.215.0',
  ccusage: '17.2.1',
  // Its platform binary comes as an optional npm dependency. Crush (@charmland/crush) is not
  // pinned: its package downloads the binary from GitHub while installing, which the test
  // machines cannot reach.
  'opencode-ai': '1.18.33',
};

/** Where the pinned CLIs are installed (BRAIN_AGENTS_CACHE moves it). */
export function agentsDir(env = process.env) {
  if (env.BRAIN_AGENTS_CACHE) return path.resolve(env.BRAIN_AGENTS_CACHE);
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const pins = createHash('sha256').update(JSON.stringify(AGENT_CLIS)).digest('hex').slice(0, 12);
  return path.join(base, 'agent-brain-agents', pins);
}

/** A pinned CLI's executable (`claude`, `codex`, `pi`, `gemini`, `copilot`, `qwen`, `droid`, `ccusage`,
 * `opencode`, `cline`, `cn`), whether installed or not. */
export function agentBin(name, env = process.env) {
  return path.join(agentsDir(env), 'node_modules', '.bin', name);
}

export function install({ log = console.log } = {}) {
  const dir = agentsDir();
  const stamp = path.join(dir, '.ok');
  if (fs.existsSync(stamp)) return { dir, ms: 0 };
  const t0 = Date.now();
  log(`installing the pinned agent CLIs into ${dir}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  // A package.json of its own, so npm never walks up into another project.
  fs.writeFileSync(path.join(dir, 'package.json'), '{"private":true}\n');
  // The outer npm's npm_config_* (under `npm test`) would become this install's config.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const specs = Object.entries(AGENT_CLIS).map(([p, v]) => `${p}@${v}`);
  const r = spawnSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', ...specs], { cwd: dir, stdio: 'inherit', env });
  if (r.status !== 0) throw new Error(`npm install ${specs.join(' ')} into ${dir} failed (exit ${r.status})`);
  for (const b of ['claude', 'codex', 'pi', 'gemini', 'copilot', 'qwen', 'droid', 'ccusage', 'opencode', 'cline', 'cn']) {
    if (!fs.existsSync(agentBin(b))) throw new Error(`${agentBin(b)} is missing after the install`);
  }
  fs.writeFileSync(stamp, `${JSON.stringify(AGENT_CLIS)}\n`);
  return { dir, ms: Date.now() - t0 };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    const { dir, ms } = install();
    console.log(`agent CLIs ready in ${dir}${ms ? ` (${(ms / 1000).toFixed(1)} s)` : ''}`);
  } catch (e) {
    console.error(`✗ agents setup: ${e.message}`);
    process.exit(1);
  }
}
