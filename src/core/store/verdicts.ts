// What the store-side checks of one sync (all its rounds) mean: the findings every front end shows,
// and which ledger entries carry a problem into the next sync.
import type { Finding } from './findings';
import { kindOf } from './floorfiles';
import type { Ledger } from './ledger';
import type { Plan } from './plan';
import { isGuard, type ParsedCheck, type ScriptItem, type StoreCheck } from './script';

/** What the store reported for one file over the rounds of a sync. */
export interface Seen {
  first: ParsedCheck;
  last: ParsedCheck;
  /** Set when a round moved the store's copy aside (its size then). */
  moved?: ParsedCheck;
}

export function noteRound(seen: Map<string, Seen>, checks: Map<string, ParsedCheck>): void {
  for (const [rel, c] of checks) {
    const s = seen.get(rel);
    if (!s) seen.set(rel, { first: c, last: c, moved: c.status === 'moved' ? c : undefined });
    else {
      s.last = c;
      if (c.status === 'moved') s.moved = c;
    }
  }
}

export interface VerdictInput {
  plan: Plan;
  ledger: Ledger;
  seen: Map<string, Seen>;
  /** The last round's items. */
  items: ScriptItem[];
  /** Files a round kept out of the push, with what the store held. */
  kept: { rel: string; status: ParsedCheck['status']; size: number }[];
  stamp: string;
  at: string;
}

/** Adds findings to the plan and marks problems on its entries. Returns true when the next sync
 * must look at some file afresh (a problem cleared). */
export function applyVerdicts(v: VerdictInput): boolean {
  const { plan, ledger, seen, stamp, at } = v;
  const { findings, planned } = plan;
  let recheck = false;
  const checkFor = new Map<string, StoreCheck>();
  for (const i of v.items) if (!isGuard(i)) checkFor.set(i.rel, i);
  const keptRels = new Set(v.kept.map((k) => k.rel));

  const drop = (f: Finding) => {
    const i = findings.indexOf(f);
    if (i >= 0) findings.splice(i, 1);
  };
  const clearProblem = (rel: string, prob: Finding) => {
    recheck = true;
    const e = ledger.files[rel];
    // seen_size -1: the next sync looks at the file afresh (checks and pushes it).
    if (e) planned.set(rel, { excluded: true, entry: { ...e, problem: undefined, seen_size: -1 } });
    drop(prob);
  };

  for (const [rel, h] of seen) {
    const want = checkFor.get(rel);
    if (!want || keptRels.has(rel)) continue;
    const pl = planned.get(rel);
    const prob = pl?.entry.problem;
    const e = ledger.files[rel];
    const c = h.last;
    if (h.moved) {
      // Bytes the store held past what we had backed up (or a copy we never backed up at all),
      // rather than a change inside what we had.
      const foreign = !e || e.problem?.code === 'store-longer' || ['unknown', 'short', 'longer'].includes(h.first.status);
      const where = `.brain/replaced/${stamp}/${rel}`;
      findings.push({
        code: 'store-repaired',
        path: rel,
        message: foreign
          ? `${rel}: the store's copy (${h.moved.size} bytes) held bytes that are not ours${e ? ` past the ${e.size} backed up` : ''} (another machine with the same name, or a local file that lost its end?); it was moved aside whole to ${where} and ours sent`
          : `${rel}: the store's copy (${h.moved.size} bytes) differed from what was backed up; our copy verifies${kindOf(rel) === 'lake' ? ' against the manifest' : ''}, so the store's copy was moved aside to ${where} and ours sent again`,
        matches: 'local',
        at,
      });
      continue;
    }
    if (want.repair) {
      // Pushed: by the last round the store's copy was shown to be a prefix of ours, or absent.
      if (c.status === 'ok' && h.first.status === 'short' && e) {
        findings.push({ code: 'store-short', path: rel, message: `${rel}: the store held ${h.first.size} of the ${e.size} bytes backed up, all of them ours; rsync appended the rest and verified the whole file`, at });
      } else if (c.status === 'missing' && e && e.size > 0) {
        findings.push({ code: 'store-missing', path: rel, message: `${rel}: it was gone from the store; sent again`, at });
      }
      continue;
    }
    // Not pushed (ours fails its check, or the store's copy is longer than ours): say what the
    // store holds.
    if (prob?.code === 'local-corrupt') {
      if (c.status === 'differs') {
        prob.matches = 'neither';
        prob.message += `; the store's copy differs from what was backed up too, so neither side matches`;
      } else if (c.status === 'longer') prob.message += `; the store's copy is longer (${c.size} bytes)`;
      else if (c.status === 'ok' || c.status === 'unknown') {
        prob.message = prob.message.replace(/; the store's copy.*$/, '') + `; the store's copy still matches what was backed up`;
        prob.matches = 'store';
      }
      continue;
    }
    if (prob?.code !== 'store-longer') continue;
    switch (c.status) {
      case 'missing':
        clearProblem(rel, prob);
        break;
      case 'differs':
        prob.message = `${rel}: the store's copy (${c.size} bytes) holds bytes that differ from ours within its first ${want.size}; it is left as it is until ours is as long, then moved aside and ours sent`;
        break;
      default:
        // Someone cut it back (or it grew): ours is measured against its new length from now on.
        if (c.size !== prob.store_size) {
          prob.store_size = c.size;
          prob.message = `${rel}: the store's copy is now ${c.size} bytes, ours ${want.localSize}; it is left as it is until ours is as long, then checked against ours`;
        }
    }
  }

  for (const k of v.kept) {
    const pl = planned.get(k.rel);
    const e = ledger.files[k.rel];
    if (k.status === 'longer') {
      const fnd: Finding = {
        code: 'store-longer',
        path: k.rel,
        message: `${k.rel}: the store's copy is ${k.size} bytes, longer than ours (${pl ? pl.entry.seen_size : '?'}); it is left as it is, and once ours is as long it is checked against ours (moved aside if it differs) before ours is pushed (another machine with the same name, or a local file that lost its end?)`,
        matches: 'unknown',
        store_size: k.size,
        at: e?.problem?.code === 'store-longer' ? e.problem.at : at,
      };
      findings.push(fnd);
      const base = pl?.entry ?? e;
      if (base) planned.set(k.rel, { excluded: true, entry: { ...base, problem: fnd } });
      continue;
    }
    findings.push({
      code: 'store-differs',
      path: k.rel,
      message: `${k.rel}: the store's copy (${k.size} bytes) is not ours and could not be moved aside; it was left as it is and ours not pushed`,
      matches: 'local',
      at,
    });
    // Looked at afresh next time: the ledger keeps vouching only for what it vouched for before.
    if (e) planned.set(k.rel, { excluded: true, entry: { ...e, seen_size: -1 } });
    else planned.delete(k.rel);
  }
  return recheck;
}
