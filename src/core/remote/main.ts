// dist/remote.js: what runs on an ssh store host, sent on stdin as `ssh HOST node - REQUEST` so
// nothing is installed there but node. No native module: the turn index needs better-sqlite3,
// which a store host need not have, so the store side reads the files (the scan) and says why.
import { answer } from './host';
import { decodeRequest } from './protocol';

// Whatever better-sqlite3 might lie about on the host is not ours to load.
process.env.BRAIN_NO_SQLITE = '1';
const arg = process.argv[2];
let out: string;
if (!arg) {
  out = JSON.stringify({ ok: false, error: { code: 'store-request', message: 'the store side got no request', hint: 'run it as brain does: ssh HOST node - REQUEST' } });
} else {
  const { store, req } = decodeRequest(arg);
  const scanBecause = `node ${process.version} on the store host keeps no turn index there, so it read the files`;
  out = JSON.stringify(answer(store, req, process.env, { index: 'off', scanBecause }));
}
// One write, then exit when it has drained: a large answer over a pipe must not be cut.
process.stdout.write(`${out}\n`, () => process.exit(0));
