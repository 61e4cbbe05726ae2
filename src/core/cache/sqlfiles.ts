// The .sql files: sql/'s floor schema and shared macros, each agent's views.sql
// (src/core/agents/<lane>/), sql/'s derived layer (assembled in that order and run on every writable
// open), the ingest operations (sql/ops) and the reports (sql/reports). They are read at run
// time, never inlined: a view can be fixed by editing its file.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentRegistry, registry, type Agent } from '../agents';
import { BrainError } from '../errors';
import { setting } from '../settings';
import { expandTruth } from '../truth';

let cachedDir: string | undefined;

/** sql/ beside the bundle (dist/cli.js, dist/extension.js → ../sql), or at the repository root
 * when running from source (src/core/cache → ../../../sql). BRAIN_SQL_DIR overrides both. */
export function sqlDir(): string {
  if (cachedDir) return cachedDir;
  const candidates = [
    setting(process.env, 'BRAIN_SQL_DIR'),
    path.join(__dirname, '..', 'sql'),
    path.join(__dirname, '..', '..', '..', 'sql'),
  ].filter((d): d is string => !!d);
  for (const d of candidates) {
    if (fs.existsSync(path.join(d, '00_floor.sql'))) {
      cachedDir = d;
      return d;
    }
  }
  throw new BrainError(
    'sql-missing',
    `The SQL files of the DuckDB cache were not found (looked in ${candidates.join(', ')}).`,
    'Reinstall Agent Brain, or set BRAIN_SQL_DIR to the folder holding 00_floor.sql.',
  );
}

export interface Schema {
  /** What went in, in order: sql/ files by name, each agent's views.sql after those below 20_. */
  files: string[];
  text: string;
  /** Changes whenever any schema file changes: a cache built from another schema is rebuilt. */
  hash: string;
}

const cachedSchema = new WeakMap<AgentRegistry, Schema>();

/** An agent's views.sql: an absolute path as is; a relative one under the agents' folder, which is
 * dist/agents beside the bundle (scripts/build.mjs copies it) or src/core/agents from source. */
export function agentViewsFile(a: Agent): string {
  if (path.isAbsolute(a.views)) return a.views;
  const candidates = [path.join(__dirname, 'agents', a.views), path.join(__dirname, '..', 'agents', a.views)];
  const found = candidates.find((f) => fs.existsSync(f));
  if (!found) {
    throw new BrainError('sql-missing', `The SQL views of agent ${a.lane} were not found (looked for ${candidates.join(', ')}).`, 'Reinstall Agent Brain (or run node scripts/build.mjs in a checkout).');
  }
  return found;
}

/** The agents' shared SQL (src/core/agents/kit/*.sql, dist/agents/kit in a bundle), by name. */
function agentKitSql(): string[] {
  const dir = [path.join(__dirname, 'agents', 'kit'), path.join(__dirname, '..', 'agents', 'kit')].find((d) => fs.existsSync(d));
  if (!dir) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => path.join(dir, f));
}

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Does this SQL define the view `name`? */
function defines(sql: string, name: string): boolean {
  return new RegExp(`CREATE\\s+(OR\\s+REPLACE\\s+)?VIEW\\s+${name.replace('.', '\\.')}\\s+AS\\b`, 'i').test(sql);
}

/** Each agent's views, checked for the two every agent must have, after the registry's own list. */
function agentParts(reg: AgentRegistry): { name: string; text: string }[] {
  // sections: the agent's files gather several sessions each (AgentFiles.sectionId).
  const rows = reg.list.map((a) => `(${[a.lane, a.agent, a.label].map(sqlString).join(', ')}, ${a.sectionId ? 'true' : 'false'})`);
  const out = [{ name: '(registry)', text: `CREATE OR REPLACE VIEW dialects.agents AS\nSELECT * FROM (VALUES ${rows.join(', ')}) t(lane, agent, label, sections);\n` }];
  for (const a of reg.list) {
    const file = agentViewsFile(a);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      throw new BrainError('sql-missing', `Cannot read ${file}.`, 'Reinstall Agent Brain.', { cause: e });
    }
    for (const v of [`dialects.v_${a.lane}`, `derived.v_messages_${a.lane}`]) {
      if (!defines(text, v)) throw new BrainError('sql-invalid', `${file} does not define the view ${v}, which every agent's views.sql must.`, 'See sql/20_derived.sql for the columns it needs.');
    }
    out.push({ name: `agents/${a.lane}/views.sql`, text: expandTruth(text, file) });
  }
  return out;
}

/** {{union derived.v_x}} -> the union of derived.v_x_<lane> over the agents that define it. */
function expandUnions(text: string, file: string, reg: AgentRegistry, agentSql: Map<string, string>): string {
  return text.replace(/\{\{union ([a-z_]+\.[a-z_]+)\}\}/g, (_m, base: string) => {
    const parts = reg.list.map((a) => `${base}_${a.lane}`).filter((v) => defines(agentSql.get(v.slice(base.length + 1)) ?? '', v));
    if (parts.length === 0) throw new BrainError('sql-invalid', `No agent defines a ${base}_<lane> view, which ${file} unions.`, 'Add one to an agent\'s views.sql.');
    return parts.map((v) => `SELECT * FROM ${v}`).join(' UNION ALL BY NAME ');
  });
}

/** The views a refresh materialises (sql/20_derived.sql), each over the union of every agent's part. */
const REFRESHED = ['derived.v_files', 'derived.v_messages_all', 'derived.v_tool_calls', 'derived.v_usage_lines'];

/** The name of one agent's copy of a refreshed view. */
export function laneView(view: string, lane: string): string {
  return `${view}__${lane}`;
}

/** Each refreshed view again per agent (derived.v_messages_all__cc ...), its unions over that one
 * agent's part: a refresh touches one agent's files at a time and reads its views alone. A plan
 * over the union of every agent's views holds buffers for every branch of it, even for agents whose
 * files are not in the refresh, so its memory grew with the number of agents (past the cache's
 * limit at two dozen of them). An agent without its own part of a union reads none (v_files,
 * whose rows come from floor.files, gets an empty one); without the view's only part, no copy. */
function perLaneViews(text: string, reg: AgentRegistry, agentSql: Map<string, string>): string | null {
  const out: string[] = [];
  for (const view of REFRESHED) {
    const m = new RegExp(`CREATE OR REPLACE VIEW ${view.replace('.', '\\.')} AS\\n([\\s\\S]*?);\\n`).exec(text);
    if (!m) continue;
    for (const a of reg.list) {
      let ok = true;
      const body = m[1].replace(/\{\{union ([a-z_]+\.[a-z_]+)\}\}/g, (_x, base: string) => {
        const own = `${base}_${a.lane}`;
        // An agent's part may leave out is_sidechain (sql/20_derived.sql): the union over every
        // agent had it from the others; alone, it is added empty.
        if (defines(agentSql.get(a.lane) ?? '', own)) return base === 'derived.v_messages' ? `SELECT * FROM ${own} UNION ALL BY NAME SELECT CAST(NULL AS BOOLEAN) AS is_sidechain WHERE false` : `SELECT * FROM ${own}`;
        const other = reg.list.map((b) => `${base}_${b.lane}`).find((v) => defines(agentSql.get(v.slice(base.length + 1)) ?? '', v));
        if (view === 'derived.v_files' && other) return `SELECT * FROM ${other} WHERE false`;
        ok = false;
        return '';
      });
      if (ok) out.push(`CREATE OR REPLACE VIEW ${laneView(view, a.lane)} AS\n${body}`);
    }
  }
  return out.length ? out.join(';\n') : null;
}

/** sql/ops/refresh_derived.sql for the files of one agent: its own parsed-lines part (when its
 * views.sql has one) and its own copies of the refreshed views; a view it has no copy of is only
 * cleared for those files. */
export function laneRefreshSql(lane: string, reg: AgentRegistry = registry()): string {
  const key = `ops/refresh_derived#${lane}`;
  let byName = ops.get(reg);
  if (!byName) ops.set(reg, (byName = new Map()));
  let t = byName.get(key);
  if (t !== undefined) return t;
  const file = path.join(sqlDir(), 'ops', 'refresh_derived.sql');
  t = expandTruth(fs.readFileSync(file, 'utf8'), file);
  if (!agentSqls.has(reg)) loadSchema(reg);
  const one = new AgentRegistry(reg.list.filter((a) => a.lane === lane));
  t = expandEach(t, one, agentSqls.get(reg) ?? new Map());
  const schema = loadSchema(reg).text;
  for (const view of REFRESHED) {
    const mine = laneView(view, lane);
    if (defines(schema, mine)) t = t.replace(new RegExp(`\\b${view.replace('.', '\\.')}\\b(?!_)`, 'g'), mine);
    // No copy for this agent: nothing of it to insert (the DELETE before it still runs).
    else t = t.replace(new RegExp(`INSERT INTO [a-z_.]+ BY NAME\\s+SELECT \\* FROM ${view.replace('.', '\\.')} WHERE[^;]*;`, 'g'), '');
  }
  byName.set(key, t);
  return t;
}

/** {{each lane with derived.v_{lane}_x}}...{{end}} -> the text between, once per agent whose
 * views.sql defines that view, with {lane} replaced by the agent's lane. */
function expandEach(text: string, reg: AgentRegistry, agentSql: Map<string, string>): string {
  return text.replace(/\{\{each lane with ([a-z_.{}]+)\}\}\n?([\s\S]*?)\{\{end\}\}\n?/g, (_m, view: string, body: string) =>
    reg.list
      .filter((a) => defines(agentSql.get(a.lane) ?? '', view.replace('{lane}', a.lane)))
      .map((a) => body.replaceAll('{lane}', a.lane))
      .join(''),
  );
}

const agentSqls = new WeakMap<AgentRegistry, Map<string, string>>();

/** The cache's schema: sql/ files below 20_ (the floor, what the agents' views share), every
 * agent's views.sql in registry order, then the rest of sql/ with its unions over the agents. */
export function loadSchema(reg: AgentRegistry = registry()): Schema {
  const cached = cachedSchema.get(reg);
  if (cached) return cached;
  const dir = sqlDir();
  const sqlFiles = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const read = (f: string) => ({ name: f, text: expandTruth(fs.readFileSync(path.join(dir, f), 'utf8'), f) });
  const agents = agentParts(reg);
  const agentSql = new Map(agents.slice(1).map((p, i) => [reg.list[i].lane, p.text]));
  agentSqls.set(reg, agentSql);
  const parts = [
    ...sqlFiles.filter((f) => f < '20').map(read),
    // What several agents' views share (macros over a format that forks of one agent kept).
    ...agentKitSql().map((f) => ({ name: `agents/kit/${path.basename(f)}`, text: fs.readFileSync(f, 'utf8') })),
    ...agents,
    ...sqlFiles
      .filter((f) => f >= '20')
      .map(read)
      .flatMap((p) => {
        const lanes = perLaneViews(p.text, reg, agentSql);
        const out = [{ ...p, text: expandUnions(p.text, p.name, reg, agentSql) }];
        return lanes ? [...out, { name: `${p.name} (per agent)`, text: lanes }] : out;
      }),
  ];
  const h = createHash('sha256');
  for (const p of parts) h.update(p.name).update('\0').update(p.text).update('\0');
  // The ingest statements decide what lands in the tables too.
  const opsDir = path.join(dir, 'ops');
  for (const f of fs.existsSync(opsDir) ? fs.readdirSync(opsDir).filter((x) => x.endsWith('.sql')).sort() : []) {
    h.update(`ops/${f}`).update('\0').update(fs.readFileSync(path.join(opsDir, f))).update('\0');
  }
  const schema = { files: parts.map((p) => p.name), text: parts.map((p) => p.text).join('\n;\n'), hash: h.digest('hex').slice(0, 16) };
  cachedSchema.set(reg, schema);
  return schema;
}

const ops = new WeakMap<AgentRegistry, Map<string, string>>();

/** sql/<group>/<name>.sql, e.g. loadSql('ops', 'ingest_lines'), its {{each lane with ...}} parts
 * expanded over the registry's agents. */
export function loadSql(group: 'ops' | 'reports', name: string, reg: AgentRegistry = registry()): string {
  const key = `${group}/${name}`;
  let byName = ops.get(reg);
  if (!byName) ops.set(reg, (byName = new Map()));
  let t = byName.get(key);
  if (t === undefined) {
    const file = path.join(sqlDir(), group, `${name}.sql`);
    try {
      t = fs.readFileSync(file, 'utf8');
    } catch (e) {
      throw new BrainError('sql-missing', `Cannot read ${file}.`, 'Reinstall Agent Brain.', { cause: e });
    }
    t = expandTruth(t, file);
    if (t.includes('{{each ')) {
      if (!agentSqls.has(reg)) loadSchema(reg);
      t = expandEach(t, reg, agentSqls.get(reg) ?? new Map());
    }
    byName.set(key, t);
  }
  return t;
}
