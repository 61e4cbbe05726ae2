// Node modules that most commands never use, loaded on first use: a bundle's top-level imports all
// load at start-up, and these two cost `brain search` ~15 ms of CPU (Node compiles them, and
// child_process pulls in net and dgram) for an rg, ssh, flock or parse thread it mostly never starts.
/* eslint-disable @typescript-eslint/no-require-imports */

let cp: typeof import('node:child_process') | undefined;
let wt: typeof import('node:worker_threads') | undefined;

export function childProcess(): typeof import('node:child_process') {
  cp ??= require('node:child_process') as typeof import('node:child_process');
  return cp;
}

/** Kept once loaded: the parse pool asks for it on every result it takes. */
export function workerThreads(): typeof import('node:worker_threads') {
  wt ??= require('node:worker_threads') as typeof import('node:worker_threads');
  return wt;
}
