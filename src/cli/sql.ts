import { brainHome } from '../core/home';
import { runReadOnlySql } from '../core/cache';
import { formatTable, terminalWidth } from '../core/cache/format';
import { DEFAULT_CLI_MAX_BYTES, MAX_BYTES_HELP, TIMEOUT_HELP, parseMaxBytes, parseTimeout, sqlLimits } from '../core/sqllimits';
import { BrainError } from '../core/errors';
import { COMMON_EXIT_CODES, write, type Verb } from './args';
import { registry } from '../core/agents';
import { REVEAL_OPTION, maskedAnswer, revealNote } from './reveal';
import { rssCap, watched } from '../core/cache/watchdog';
import { describe } from '../core/errors';
import { maskSecrets } from '../core/secrets/redact';
import { spawn } from 'node:child_process';


/** This same command in a child (with an IPC channel, which makes it the one that runs the query)
 * that answers on this process's own stdout and stderr; ended here when it says it gave up, or
 * when it outlives its timeout by far. */
function runChild(self: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(self[0], [...self.slice(1), ...process.argv.slice(2)], {
      env,
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    });
    let said: string | undefined;
    const backstop = timeoutMs > 0 ? setTimeout(() => child.kill('SIGKILL'), timeoutMs + 30_000) : undefined;
    // Stopped (the editor's time limit, kill): the query's process goes too.
    const onSignal = (sig: NodeJS.Signals) => {
      child.kill('SIGKILL');
      process.exit(sig === 'SIGINT' ? 130 : 143);
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    child.on('message', (m: { gaveUp?: string }) => {
      if (typeof m?.gaveUp !== 'string') return;
      said = m.gaveUp;
      child.kill('SIGKILL');
    });
    child.on('error', (e) => {
      if (backstop) clearTimeout(backstop);
      process.stderr.write(`brain sql: could not start the query process: ${e.message}\n`);
      resolve(3);
    });
    child.on('exit', (code, signal) => {
      if (backstop) clearTimeout(backstop);
      process.removeListener('SIGTERM', onSignal);
      process.removeListener('SIGINT', onSignal);
      if (said !== undefined) process.stderr.write(`${said}\n`);
      else if (signal) process.stderr.write(`brain sql: the query process ended by ${signal}${signal === 'SIGKILL' ? ' (its time ran out long ago, or the system ran out of memory)' : ''}\n`);
      resolve(said !== undefined || signal ? 3 : (code ?? 3));
    });
  });
}

export const sql: Verb = {
  name: 'sql',
  summary: 'Run one read-only SQL query over the DuckDB cache of the floor.',
  usage: 'sql "SELECT …" [--json] [--limit N] [--timeout S] [--max-bytes N] [--reveal]',
  details: `Tables: floor.raw_lines (every floor line, byte-exact citation columns), floor.files, floor.chunks
(the manifest), derived.messages, derived.sessions (one row per session: machine_id, agent,
session_id, project, times, n_files), derived.files (one row per recorded file of a session: file_id,
abs_path, lake_path), derived.tool_calls, derived.calls, derived.usage;
views: ${registry().dialectViews()}, v_live (every generation), v_newest. The cache (BRAIN_HOME/brain.duckdb) is brought up
to the manifest first, or built if missing. The connection is read-only: INSERT, CREATE, COPY, ATTACH,
INSTALL, SET and every other statement that writes is refused, and SQL cannot read or write files.
A statement is stopped after --timeout (else BRAIN_SQL_TIMEOUT, else [sql] timeout in config.toml,
else 30 s). Reading stops at --max-bytes of answer (default 8 MiB); a value longer than a quarter of
that is cut and ends with "…[cut <size>]". Secrets are masked in the cache itself, as \`brain secrets\`
shows them, so no function of the text gives one back; the answer is masked again for any the cache
missed (--json: "masked": N), which --reveal leaves in clear, only to a terminal. A masked line keeps
the floor's own line_sha256 and n_bytes: \`brain show --reveal\` or sed on its citation reads it.
Example: brain sql "SELECT agent, count(DISTINCT turn_id) AS turns FROM derived.messages GROUP BY agent"
${COMMON_EXIT_CODES}`,
  options: [
    { name: 'json', type: 'bool', help: 'print {columns, rows, truncated, …} as JSON' },
    { name: 'limit', type: 'number', help: 'most rows to print (default 1000)' },
    { name: 'timeout', type: 'string', help: `stop the statement after this long: ${TIMEOUT_HELP}` },
    { name: 'max-bytes', type: 'string', help: `most bytes of answer: ${MAX_BYTES_HELP} (default 8 MiB)` },
    { name: 'as-is', type: 'bool', help: 'query the cache as it stands, without bringing it up to the floor first (what the MCP sql tool does: a recall tool writes nothing)' },
    REVEAL_OPTION,
  ],
  async run(args, ctx) {
    const query = args.positionals.join(' ');
    if (!query.trim()) throw new BrainError('usage', 'no query given', 'brain sql "SELECT …"');
    const home = brainHome(ctx.env);
    let timeoutMs: number;
    if (args.opts.timeout !== undefined) {
      const t = parseTimeout(args.opts.timeout);
      if (t === null) throw new BrainError('usage', `--timeout ${args.opts.timeout} is not a duration up to a day`, `write ${TIMEOUT_HELP}`);
      timeoutMs = t;
    } else timeoutMs = sqlLimits(home, ctx.env).timeoutMs;
    let maxBytes = DEFAULT_CLI_MAX_BYTES;
    if (args.opts['max-bytes'] !== undefined) {
      const b = parseMaxBytes(args.opts['max-bytes']);
      if (b === null) throw new BrainError('usage', `--max-bytes ${args.opts['max-bytes']} is not a size between 4 KiB and 1 GiB`, `write ${MAX_BYTES_HELP}`);
      maxBytes = b;
    }
    const limit = (args.opts.limit as number | undefined) ?? 1000;
    // A statement that neither stops when interrupted nor stays within DuckDB's memory limit (a
    // scalar function building one huge value) keeps the process that runs it until it is done:
    // not even exit ends it. So the query runs in a child of this process, which this one ends.
    // A process started with an IPC channel (by `brain sql` itself, or the MCP server) is the one
    // that runs the query, and says on that channel when it gives up.
    if (ctx.self && ctx.stdout === process.stdout && !process.send) return runChild(ctx.self, ctx.env, timeoutMs);
    // A child whose parent went away (its parent's id changes) ends itself: nothing would read the
    // answer. The timer is unref'd, so it does not keep the process open.
    const parent = process.ppid;
    const orphan = process.send ? setInterval(() => process.ppid !== parent && process.kill(process.pid, 'SIGKILL'), 500).unref() : undefined;
    // The time runs from the statement's start: bringing the cache up to the floor first (a first
    // build takes minutes) is not the statement's.
    let arm = () => undefined as void;
    const w = watched(runReadOnlySql(home, query, { limit, timeoutMs, maxBytes, onOpen: () => arm(), ...(args.opts['as-is'] ? { ensure: false } : {}) }), { timeoutMs, rssMax: rssCap(maxBytes), armed: false });
    arm = w.arm;
    let answer: Awaited<typeof w.result>;
    try {
      answer = await w.result;
      clearInterval(orphan);
    } catch (e) {
      // Said to the parent, which ends this process (it cannot end itself while DuckDB runs).
      if (w.gaveUp() && process.send) {
        process.send({ gaveUp: `brain sql: ${describe(e)}` });
        return new Promise<number>(() => undefined);
      }
      clearInterval(orphan);
      // The parent (the MCP server) answers with the error's own code, not only its words.
      if (process.send && e instanceof BrainError) process.send({ error: { code: e.code, message: e.message, hint: e.hint } });
      throw e;
    }
    // --as-is writes nothing, not even the secret guard's pass over new bytes (its findings are
    // still read); the cache holds its text masked either way.
    const { value: r, masked } = args.opts['as-is'] && !args.opts.reveal ? await maskSecrets(home, answer) : await maskedAnswer('sql', args, ctx, answer);
    if (args.opts.json) {
      write(ctx.stdout, JSON.stringify({ ...r, masked }));
      return 0;
    }
    write(ctx.stdout, formatTable(r.columns.map((c) => c.name), r.rows, terminalWidth(ctx.stdout)));
    if (r.note) write(ctx.stdout, `(${r.note})`);
    // Rows short of the limit yet more exist: the byte cap stopped them (the note says so).
    const more = r.rows.length < r.limit ? '--max-bytes N' : '--limit N';
    if (masked) write(ctx.stdout, revealNote('sql', masked));
    write(ctx.stdout, r.truncated ? `(first ${r.rows.length} rows; more exist: ${more}, or add LIMIT/aggregate)` : `(${r.rows.length} row${r.rows.length === 1 ? '' : 's'})`);
    return 0;
  },
};
