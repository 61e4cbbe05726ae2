// dist/remote.js: what runs on an ssh store host, sent on stdin as `ssh HOST node - REQUEST` so
// nothing is installed there but node. No native module: where node has node:sqlite (Node ≥ 22.13)
// the store's turn index lives on the store host (<store>/turns.sqlite, its updates serialised by
// SQLite's own write lock, as on this machine); elsewhere the store side reads the files and says why.
import { answer } from './host';
import { onPulse, stdoutPulse } from '../safeopen';
import { decodeRequest } from './protocol';

function nodeSqlite(): boolean {
  // node:sqlite warns that it is experimental on some versions: the answer is on stdout alone.
  process.removeAllListeners('warning');
  try {
    require('node:sqlite');
    return true;
  } catch {
    return false;
  }
}

const arg = process.argv[2];
let out: string;
if (!arg) {
  out = JSON.stringify({ ok: false, error: { code: 'store-request', message: 'the store side got no request', hint: 'run it as brain does: ssh HOST node - REQUEST' } });
} else {
  // The machine that asked may give up (a timeout, Ctrl-C, a dropped connection): the work's read
  // loops then find stdout closed and this process ends, instead of reading on for nobody.
  onPulse(stdoutPulse());
  const { store, req, scan, timeout } = decodeRequest(arg);
  if (typeof timeout === 'number' && timeout >= 0) process.env.BRAIN_STORE_TIMEOUT = String(timeout);
  const indexed = !scan && nodeSqlite();
  // Without node:sqlite nothing stands in for better-sqlite3: the scan, said as such.
  if (!indexed) process.env.BRAIN_NO_SQLITE = '1';
  const scanBecause = indexed || scan ? null : `node ${process.version} on the store host has no node:sqlite (Node 22.13 or newer keeps a turn index there), so it read the files`;
  out = JSON.stringify(answer(store, req, process.env, { index: indexed ? 'live' : 'off', scanBecause }));
}
// One write, then exit when it has drained: a large answer over a pipe must not be cut.
process.stdout.write(`${out}\n`, () => process.exit(0));
