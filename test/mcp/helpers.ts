// A floor captured from the fixtures by the real CLI (`brain record`, then `brain rebuild` for the
// SQL cache), and `brain mcp` driven by the SDK's own client over stdio.
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { brain, CLI, sandbox, type Sandbox } from '../helpers/env';

/** A sandbox whose BRAIN_HOME holds every fixture, captured, with brain.duckdb built. */
export function capturedFloor(name: string): Sandbox {
  const sb = sandbox({ fixtures: true, name });
  const rec = brain(sb, ['record']);
  assert.equal(rec.status, 0, `brain record: ${rec.stdout}\n${rec.stderr}`);
  const reb = brain(sb, ['rebuild']);
  assert.equal(reb.status, 0, `brain rebuild: ${reb.stdout}\n${reb.stderr}`);
  return sb;
}

export interface Mcp {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  stderr: () => string;
  /** Calls a tool; the parsed JSON of its text, and whether it was an error result. */
  call(name: string, args: unknown, meta?: Record<string, unknown>): Promise<{ isError: boolean; json: any; text: string }>;
  close(): Promise<void>;
}

/** Starts `brain mcp [args]` (or `command` when given) and connects the SDK client to it. */
export async function startMcp(env: NodeJS.ProcessEnv, args: string[] = [], command?: { command: string; args: string[] }): Promise<Mcp> {
  const transport = new StdioClientTransport({
    command: command?.command ?? process.execPath,
    args: command?.args ?? [CLI, 'mcp', ...args],
    env: env as Record<string, string>,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'brain-test', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  assert.ok(pid, 'the server has a pid');
  return {
    client,
    transport,
    pid,
    stderr: () => err,
    async call(name, a, meta) {
      const r = await client.callTool({ name, arguments: a as Record<string, unknown>, ...(meta ? { _meta: meta } : {}) });
      const content = r.content as { type: string; text: string }[];
      assert.equal(content.length, 1, `${name}: one content block`);
      assert.equal(content[0].type, 'text');
      return { isError: !!r.isError, json: JSON.parse(content[0].text), text: content[0].text };
    },
    async close() {
      await client.close();
    },
  };
}

/** `sed -n 'A,Bp' FILE | sha256sum`, run by the shell: the check the floor document promises. */
export function sedSha(file: string, from: number, to: number): string {
  const r = spawnSync('sh', ['-c', `sed -n "$1,$2p" "$3" | sha256sum`, 'sh', String(from), String(to), file], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split(' ')[0];
}

export interface Entry {
  type: 'dir' | 'file' | 'link';
  mode: number;
  size: number;
  mtimeMs: number;
  sha256?: string;
  link?: string;
}

/** Every entry under a folder: type, mode, size, mtime, and a hash of each file's bytes. */
export function snapshot(root: string): Record<string, Entry> {
  const out: Record<string, Entry> = {};
  const walk = (dir: string, rel: string) => {
    const st = fs.lstatSync(dir);
    out[rel || '.'] = { type: 'dir', mode: st.mode & 0o7777, size: 0, mtimeMs: st.mtimeMs };
    for (const name of fs.readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      const s = fs.lstatSync(p);
      if (s.isDirectory()) walk(p, r);
      else if (s.isSymbolicLink()) out[r] = { type: 'link', mode: s.mode & 0o7777, size: s.size, mtimeMs: s.mtimeMs, link: fs.readlinkSync(p) };
      else out[r] = { type: 'file', mode: s.mode & 0o7777, size: s.size, mtimeMs: s.mtimeMs, sha256: crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex') };
    }
  };
  walk(root, '');
  return out;
}

/** Socket inodes the process holds, and which of them are inet sockets or listening unix sockets. */
export function networkOf(pid: number): { sockets: number; inet: string[]; listening: string[] } {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let l = '';
    try {
      l = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    const m = /^socket:\[(\d+)\]$/.exec(l);
    if (m) inodes.add(m[1]);
  }
  const inet: string[] = [];
  for (const t of ['tcp', 'tcp6', 'udp', 'udp6', 'raw', 'raw6']) {
    const f = `/proc/${pid}/net/${t}`;
    if (!fs.existsSync(f)) continue;
    for (const line of fs.readFileSync(f, 'utf8').split('\n').slice(1)) {
      const c = line.trim().split(/\s+/);
      if (c.length > 9 && inodes.has(c[9])) inet.push(`${t} ${c[1]} state ${c[3]}`);
    }
  }
  const listening: string[] = [];
  for (const line of fs.readFileSync(`/proc/${pid}/net/unix`, 'utf8').split('\n').slice(1)) {
    const c = line.trim().split(/\s+/);
    // Flags 00010000 is __SO_ACCEPTCON: a socket that listen() was called on.
    if (c.length >= 7 && inodes.has(c[6]) && c[3] === '00010000') listening.push(line.trim());
  }
  return { sockets: inodes.size, inet, listening };
}
