// The store-side step that runs just before rsync, on the store's own machine, in the same ssh
// connection: `--rsync-path="sh -c '<this>' brain-sync rsync"`, whose last line execs rsync with
// the server arguments rsync appends. For a local store the same script runs under `sh -c` and execs
// the local rsync, so both transports run one code path.
//
// Why it exists: rsync --append-verify skips a store file that is as long as ours or longer, and
// when an appended file fails its whole-file check it quietly re-sends the whole file, replacing the
// store's copy. So before rsync touches anything, the script checks the files about to grow (and a
// rotating slice of the rest) against what we last backed up: the store's first N bytes must hash
// to the sha256 the ledger recorded for them.
//   ok       prefix matches (and the store is not longer than our file)
//   longer   prefix matches but the store holds more than our file: reported, rsync skips it
//   short    the store holds fewer bytes than we backed up: rsync appends again and verifies
//   missing  gone from the store: rsync sends it again
//   moved    prefix differs and our copy verifies against the manifest: the store's copy is moved
//            to .brain/replaced/<stamp>/ (kept, never deleted) and rsync sends ours whole
//   differs  prefix differs and our copy does not verify (or the move failed): left untouched
//
// Paths are passed inside double quotes within a single-quoted script: names holding a quote,
// backslash, "$", backtick or newline are not checked this way (the sync reports them).
import type { StoreConfig } from '../config';

export interface StoreCheck {
  rel: string;
  /** Bytes the store should hold (ledger). */
  size: number;
  /** sha256 of those bytes. */
  sha256: string;
  /** Our file's current size: a store copy longer than this is reported. */
  localSize: number;
  /** Our copy verifies: a differing store copy may be moved aside and replaced. */
  repair: boolean;
}

export type CheckStatus = 'ok' | 'longer' | 'short' | 'missing' | 'moved' | 'differs';

const SAFE = /^[^'"\\`$\n\r]+$/;

/** Bytes of script, under the kernel's 128 KiB limit for one argument with room to spare. */
export const MAX_SCRIPT = 100_000;

export function scriptSafe(s: string): boolean {
  return SAFE.test(s) && !s.startsWith('-');
}

/** The shell script. `stamp` names the folder that moved-aside copies go to. */
export function storeScript(store: StoreConfig, machine: string, checks: StoreCheck[], stamp: string): string {
  if (!scriptSafe(store.path) || !scriptSafe(machine)) throw new Error('store path or machine not shell-safe (config validation should have refused it)');
  const L: string[] = [];
  // Transcripts hold secrets: what this creates at the store (<machine>/, .brain/, the folders of
  // moved-aside copies) is private whatever umask the store host's login gives.
  L.push('umask 077');
  L.push(`P="${store.path}"; M="${machine}"; R=".brain/replaced/${stamp}"`);
  // The sync creates only <path>/<machine>/: a store folder that is missing (an unmounted disk, a
  // wrong path) fails instead of being created and filled.
  L.push('[ -d "$P" ] || { echo "brain-store-missing $P" >&2; exit 3; }');
  L.push('mkdir -p "$P/$M/.brain" && cd "$P/$M" || { echo "brain-store-unwritable $P/$M" >&2; exit 3; }');
  // Free space at the store (KiB), so a failure whose message was lost on the way back (rsync
  // exits 11 and the receiver's "No space left" never arrives) can still be named.
  L.push('d() { echo "brain-df $4" >&2; }; d $(df -Pk . 2>/dev/null | tail -n 1)');
  if (checks.length > 0) {
    L.push('if command -v sha256sum >/dev/null 2>&1; then S=sha256sum; else S="shasum -a 256"; fi');
    L.push(
      [
        'c() {',
        'if [ ! -f "$1" ]; then echo "brain-check missing 0 $1" >&2; return 0; fi;',
        's=$(wc -c < "$1" | tr -d " ");',
        'if [ "$s" -lt "$2" ]; then echo "brain-check short $s $1" >&2; return 0; fi;',
        'if [ "$2" -gt 0 ]; then h=$(head -c "$2" "$1" | $S | cut -c1-64); else h="$3"; fi;',
        'if [ "$h" != "$3" ]; then',
        'if [ "$5" = r ] && mkdir -p "$R/$(dirname "$1")" && mv "$1" "$R/$1"; then echo "brain-check moved $s $1" >&2; return 0; fi;',
        'echo "brain-check differs $s $1" >&2; return 0;',
        'fi;',
        'if [ "$s" -gt "$4" ]; then echo "brain-check longer $s $1" >&2; return 0; fi;',
        'echo "brain-check ok $s $1" >&2;',
        '}',
      ].join(' '),
    );
    let len = L.join('\n').length;
    for (const c of checks) {
      if (!scriptSafe(c.rel) || !/^[0-9a-f]{64}$/.test(c.sha256)) continue;
      const line = `c "${c.rel}" ${c.size} ${c.sha256} ${c.localSize} ${c.repair ? 'r' : 'k'}`;
      // The script is one argument of `sh -c`, and Linux caps one argument at 128 KiB. Checks are
      // in priority order (files about to grow first); the rest wait for a later sync.
      if (len + line.length + 1 > MAX_SCRIPT) break;
      L.push(line);
      len += line.length + 1;
    }
  }
  L.push('exec "$@"');
  return L.join('\n');
}

export interface ParsedCheck {
  status: CheckStatus;
  size: number;
}

/** Reads the script's report lines from rsync's stderr. */
export function parseChecks(stderr: string): { checks: Map<string, ParsedCheck>; storeMissing?: string; unwritable?: string; freeKiB?: number } {
  const checks = new Map<string, ParsedCheck>();
  let storeMissing: string | undefined;
  let unwritable: string | undefined;
  let freeKiB: number | undefined;
  for (const line of stderr.split('\n')) {
    const df = /^brain-df (\d+)$/.exec(line);
    if (df) {
      freeKiB = Number(df[1]);
      continue;
    }
    let m = /^brain-check (ok|longer|short|missing|moved|differs) (\d+) (.+)$/.exec(line);
    if (m) {
      checks.set(m[3], { status: m[1] as CheckStatus, size: Number(m[2]) });
      continue;
    }
    m = /^brain-store-missing (.*)$/.exec(line);
    if (m) storeMissing = m[1];
    m = /^brain-store-unwritable (.*)$/.exec(line);
    if (m) unwritable = m[1];
  }
  return { checks, storeMissing, unwritable, freeKiB };
}
