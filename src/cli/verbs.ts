// The verb table: one line per CLI verb, each verb in its own file. Verbs load on demand, so
// `brain hook` and `brain tick` (run by harness hooks and timers) pay only for what they use.
/* eslint-disable @typescript-eslint/no-require-imports */
import type { Verb } from './args';

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
  mcp: () => require('./mcp').mcp,
};
