// The verb table: one line per CLI verb, each verb in its own file. Verbs load on demand, so
// `brain hook` and `brain tick` (run by harness hooks and timers) pay only for what they use.
/* eslint-disable @typescript-eslint/no-require-imports */
import * as path from 'node:path';
import type { Verb } from './args';

// Set by the build of dist/cli.js: `brain mcp` is then its own bundle, dist/cli-mcp.js, so the other
// verbs (hooks, ticks, status lines) do not parse the MCP SDK and its schema libraries (~600 KB,
// about half the CLI's start-up cost beyond Node's own). From source (tsx) it is an ordinary module.
declare const __BRAIN_SPLIT__: boolean;

export const VERBS: Record<string, () => Verb> = {
  record: () => require('./record').record,
  watch: () => require('./watch').watch,
  verify: () => require('./verify').verify,
  hook: () => require('./hook').hook,
  init: () => require('./init').init,
  sync: () => require('./sync').sync,
  tick: () => require('./tick').tick,
  status: () => require('./status').status,
  machines: () => require('./machines').machines,
  doctor: () => require('./doctor').doctor,
  backup: () => require('./backup').backup,
  timer: () => require('./timer').timer,
  sql: () => require('./sql').sql,
  rebuild: () => require('./rebuild').rebuild,
  stats: () => require('./stats').stats,
  calls: () => require('./calls').calls,
  search: () => require('./search').search,
  show: () => require('./show').show,
  cite: () => require('./cite').cite,
  secrets: () => require('./secrets').secrets,
  export: () => require('./export').exportVerb,
  mcp: () => (typeof __BRAIN_SPLIT__ !== 'undefined' ? require(path.join(__dirname, 'cli-mcp.js')) : require('./mcp')).mcp,
};
