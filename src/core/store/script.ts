// The store-side step that runs just before rsync, on the store's own machine, in the same ssh
// connection: `--rsync-path="sh -c '<this>' brain-sync rsync"`, whose last line execs rsync with
// the server arguments rsync appends. For a local store the same script runs under `sh -c` and execs
// the local rsync, so both transports run one code path.
//
// Why it exists: rsync --append-verify skips a store file that is as long as ours or longer, and
// appends to a shorter one and then checks the whole file: when that check fails it quietly sends
// ours whole over it, and the store's bytes are gone. So nothing may reach rsync unless the store's
// copy is shown, here, to be a prefix of ours: its first N bytes hash to the sha256 we give (what
// the ledger says we backed up, or ours at the store's exact length, learnt in an earlier round).
//   ok       the store holds exactly those N bytes: rsync appends the rest
//   missing  not at the store: rsync sends it
//   moved    the first N bytes differ and ours verifies: the store's copy is moved to
//            .brain/replaced/<stamp>/ (kept, never deleted) and rsync sends ours whole
//   differs  they differ and ours is not pushed (or the move failed): left untouched
//   longer   the store holds more than our whole file: reported, never pushed over
//   short    the store holds fewer than N bytes (cut back)
//   unknown  the store holds bytes past N that nobody has compared with ours (an interrupted sync
//            of ours, or someone else's bytes)
// For a file about to be pushed, longer, short, unknown and differs stop the whole step before rsync
// runs ("brain-again"): the sync learns the store's lengths, hashes ours at those lengths (or keeps
// the file out of the push) and asks again, in a new connection. A guard line does the same for a
// folder of new files that exists at the store (it is usually absent: then none of them can be).
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
  /** Ours verifies and is pushed: a differing store copy may be moved aside, and a store copy not
   * shown to be a prefix of ours stops the step before rsync runs. */
  repair: boolean;
}

/** A folder of new files (none of them in the ledger): the step asks again if it exists. */
export interface StoreGuard {
  dir: string;
}

export type ScriptItem = StoreCheck | StoreGuard;

export function isGuard(i: ScriptItem): i is StoreGuard {
  return (i as StoreGuard).dir !== undefined;
}

/** Who owns <store>/<machine>/ (floorid.ts): this floor's id, the first line of its manifest (to
 * recognise a folder written before ids), and whether to take the folder over (`--adopt`). */
export interface Owner {
  id: string;
  head: { size: number; sha256: string } | null;
  adopt: boolean;
}

export type CheckStatus = 'ok' | 'longer' | 'short' | 'missing' | 'moved' | 'differs' | 'unknown';

const SAFE = /^[^'"\\`$\n\r]+$/;

/** Bytes of script, under the kernel's 128 KiB limit for one argument with room to spare. */
export const MAX_SCRIPT = 100_000;

export function scriptSafe(s: string): boolean {
  return SAFE.test(s) && !s.startsWith('-');
}

function itemLine(i: ScriptItem): string | null {
  if (isGuard(i)) return scriptSafe(i.dir) ? `g "${i.dir}"` : null;
  if (!scriptSafe(i.rel) || !/^[0-9a-f]{64}$/.test(i.sha256)) return null;
  return `c "${i.rel}" ${i.size} ${i.sha256} ${i.localSize} ${i.repair ? 'r' : 'k'}`;
}

function ownerLines(o: Owner): string[] {
  if (!/^[0-9a-f]{32}$/.test(o.id) || (o.head && !/^[0-9a-f]{64}$/.test(o.head.sha256))) throw new Error('floor id or manifest hash not hex');
  const head = o.head && o.head.size > 0 ? `[ -f manifest/manifest.jsonl ] && [ "$(head -c ${o.head.size} manifest/manifest.jsonl | $S | cut -c1-64)" = ${o.head.sha256} ]` : 'false';
  return [
    `I=${o.id}; F=.brain/floor-id; X=${o.adopt ? 1 : 0}`,
    // The id is written whole to a temporary file, read back, flushed, and only then linked into
    // place: link(2) refuses to replace, so of two floors claiming at once one wins and the other
    // reads the winner's id back and stops; and a disk that fills up mid-write leaves no empty or
    // torn id in place (which read as another floor's and locked this one out), only the shell's
    // "No space left on device", which the sync reports as a full store disk. `$1` = r replaces
    // an unfinished id (below) instead.
    'put() { t="$F.tmp.$$"; rm -f "$t"; if ! printf "%s\\n" "$I" > "$t" || [ "$(cat "$t" 2>/dev/null)" != "$I" ]; then rm -f "$t"; echo "brain-id-unwritten" >&2; exit 3; fi; sync "$t" 2>/dev/null || sync; if [ "$1" = r ]; then mv -f "$t" "$F"; else ln "$t" "$F" 2>/dev/null; rm -f "$t"; fi; sync .brain 2>/dev/null || true; }',
    'own() { put "$2"; o=$(cat "$F" 2>/dev/null); if [ "$o" != "$I" ]; then echo "brain-owner ${o:-none}" >&2; exit 3; fi; echo "brain-owned $1" >&2; }',
    // An id that is not one (empty, or cut short: a claim a full disk interrupted, ours or an
    // older version's) claims nothing: the folder is decided as if it had none, and the claim
    // that wins replaces it.
    'o=""; U=""; if [ -f "$F" ]; then o=$(cat "$F" 2>/dev/null); case "$o" in *[!0-9a-f]*) U=r;; *) [ ${#o} -eq 32 ] || U=r;; esac; fi;',
    'if [ -f "$F" ] && [ -z "$U" ]; then',
    // Another floor's folder: stop before anything here is touched, unless told to take it over
    // (its id is kept with the moved-aside copies).
    'if [ "$o" != "$I" ]; then if [ "$X" = 1 ]; then mkdir -p "$R/.brain" && mv "$F" "$R/.brain/floor-id" && own adopted; else echo "brain-owner ${o:-none}" >&2; exit 3; fi; fi;',
    'elif [ ! -e lake ] && [ ! -e manifest ] && [ ! -e meta ]; then own new "$U";',
    `elif ${head}; then own matched "$U";`,
    'elif [ "$X" = 1 ]; then own adopted "$U";',
    'else echo "brain-owner none" >&2; exit 3; fi',
  ];
}

function scriptHead(store: StoreConfig, machine: string, stamp: string, owner?: Owner): string[] {
  if (!scriptSafe(store.path) || !scriptSafe(machine)) throw new Error('store path or machine not shell-safe (config validation should have refused it)');
  const L: string[] = [];
  // Transcripts hold secrets: what this creates at the store (<machine>/, .brain/, the folders of
  // moved-aside copies) is private whatever umask the store host's login gives.
  L.push('umask 077');
  L.push(`P="${store.path}"; M="${machine}"; R=".brain/replaced/${stamp}"; A=0`);
  // The sync creates only <path>/<machine>/: a store folder that is missing (an unmounted disk, a
  // wrong path) fails instead of being created and filled.
  L.push('[ -d "$P" ] || { echo "brain-store-missing $P" >&2; exit 3; }');
  L.push('mkdir -p "$P/$M/.brain" && cd "$P/$M" || { echo "brain-store-unwritable $P/$M" >&2; exit 3; }');
  // Free space at the store (KiB), so a failure whose message was lost on the way back (rsync
  // exits 11 and the receiver's "No space left" never arrives) can still be named.
  L.push('if command -v sha256sum >/dev/null 2>&1; then S=sha256sum; else S="shasum -a 256"; fi');
  // Before the claim: a claim the disk had no room for is told from other failures by it.
  L.push('d() { echo "brain-df $4" >&2; }; d $(df -Pk . 2>/dev/null | tail -n 1)');
  if (owner) L.push(...ownerLines(owner));
  L.push(
    [
      'c() {',
      'if [ ! -f "$1" ]; then echo "brain-check missing 0 $1" >&2; return 0; fi;',
      's=$(wc -c < "$1" | tr -d " ");',
      'if [ "$s" -lt "$2" ]; then echo "brain-check short $s $1" >&2; [ "$5" = r ] && A=1; return 0; fi;',
      'if [ "$2" -gt 0 ]; then h=$(head -c "$2" "$1" | $S | cut -c1-64); else h="$3"; fi;',
      'if [ "$h" != "$3" ]; then',
      // Never over an earlier copy moved aside under the same stamp.
      'if [ "$5" = r ] && [ ! -e "$R/$1" ] && mkdir -p "$R/$(dirname "$1")" && mv "$1" "$R/$1"; then echo "brain-check moved $s $1" >&2; return 0; fi;',
      'echo "brain-check differs $s $1" >&2; [ "$5" = r ] && A=1; return 0;',
      'fi;',
      'if [ "$s" -gt "$4" ]; then echo "brain-check longer $s $1" >&2; [ "$5" = r ] && A=1; return 0; fi;',
      'if [ "$s" -gt "$2" ]; then echo "brain-check unknown $s $1" >&2; [ "$5" = r ] && A=1; return 0; fi;',
      'echo "brain-check ok $s $1" >&2;',
      '}',
    ].join(' '),
  );
  L.push('g() { if [ -e "$1" ]; then echo "brain-dir $1" >&2; A=1; fi; }');
  return L;
}

const TAIL = ['if [ "$A" = 1 ]; then echo "brain-again" >&2; exit 3; fi', 'exec "$@"'];

/** Which items fit in one script, in the order given (most important first); the rest wait. */
export function fitItems(store: StoreConfig, machine: string, items: ScriptItem[], stamp: string, owner?: Owner): { fit: ScriptItem[]; rest: ScriptItem[] } {
  // The script is one argument of `sh -c`, and Linux caps one argument at 128 KiB.
  let len = [...scriptHead(store, machine, stamp, owner), ...TAIL].join('\n').length;
  const fit: ScriptItem[] = [];
  const rest: ScriptItem[] = [];
  for (const i of items) {
    const line = itemLine(i);
    if (line === null) continue;
    if (rest.length === 0 && len + line.length + 1 <= MAX_SCRIPT) {
      fit.push(i);
      len += line.length + 1;
    } else rest.push(i);
  }
  return { fit, rest };
}

/** The shell script. `stamp` names the folder that moved-aside copies go to. Items past the size
 * limit are left out (callers use fitItems first, to keep their files out of the push). */
export function storeScript(store: StoreConfig, machine: string, items: ScriptItem[], stamp: string, owner?: Owner): string {
  const L = scriptHead(store, machine, stamp, owner);
  for (const i of fitItems(store, machine, items, stamp, owner).fit) L.push(itemLine(i)!);
  L.push(...TAIL);
  return L.join('\n');
}

export interface ParsedCheck {
  status: CheckStatus;
  size: number;
}

export interface ParsedReport {
  checks: Map<string, ParsedCheck>;
  /** Guarded folders that exist at the store. */
  dirs: string[];
  /** The step stopped before rsync ran, to be asked again with what it reported. */
  again: boolean;
  /** The folder belongs to another floor: its id ('none': a folder of files with no id). */
  otherOwner?: string;
  /** This floor took the folder over now: 'new', 'matched' (written before ids) or 'adopted'. */
  owned?: string;
  storeMissing?: string;
  unwritable?: string;
  freeKiB?: number;
}

/** Reads the script's report lines from rsync's stderr. */
export function parseChecks(stderr: string): ParsedReport {
  const checks = new Map<string, ParsedCheck>();
  const dirs: string[] = [];
  let again = false;
  let otherOwner: string | undefined;
  let owned: string | undefined;
  let storeMissing: string | undefined;
  let unwritable: string | undefined;
  let freeKiB: number | undefined;
  for (const line of stderr.split('\n')) {
    const df = /^brain-df (\d+)$/.exec(line);
    if (df) {
      freeKiB = Number(df[1]);
      continue;
    }
    let m = /^brain-check (ok|longer|short|missing|moved|differs|unknown) (\d+) (.+)$/.exec(line);
    if (m) {
      checks.set(m[3], { status: m[1] as CheckStatus, size: Number(m[2]) });
      continue;
    }
    m = /^brain-dir (.+)$/.exec(line);
    if (m) {
      dirs.push(m[1]);
      continue;
    }
    if (line === 'brain-again') {
      again = true;
      continue;
    }
    m = /^brain-owner (\S+)$/.exec(line);
    if (m) {
      otherOwner = m[1];
      continue;
    }
    m = /^brain-owned (new|matched|adopted)$/.exec(line);
    if (m) {
      owned = m[1];
      continue;
    }
    m = /^brain-store-missing (.*)$/.exec(line);
    if (m) storeMissing = m[1];
    m = /^brain-store-unwritable (.*)$/.exec(line);
    if (m) unwritable = m[1];
  }
  return { checks, dirs, again, otherOwner, owned, storeMissing, unwritable, freeKiB };
}
