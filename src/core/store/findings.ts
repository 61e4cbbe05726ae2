// What a sync found, declared once: state.json, status, doctor, --json and the status bar all
// show these. `label` is the short text for a status bar; `message` names the file and what to do.
export type FindingCode =
  | 'local-corrupt' // a local floor file no longer matches the manifest (or what was backed up)
  | 'store-repaired' // the store's copy differed; moved aside and re-sent from a verified local copy
  | 'store-replaced' // rsync re-sent a file after "failed verification" (its tail differed)
  | 'store-differs' // the store's copy differs and could not be repaired now
  | 'store-longer' // the store's copy is longer than ours
  | 'store-short' // the store's copy is shorter than what we backed up (re-sent)
  | 'store-missing' // a file we backed up is gone from the store (re-sent)
  | 'unsafe-name'; // a name the store-side check cannot quote (pushed without the pre-check)

export interface Finding {
  code: FindingCode;
  path: string;
  message: string;
  /** Which side still matches the manifest, when known. */
  matches?: 'local' | 'store' | 'neither' | 'unknown';
  /** store-longer: the store copy's size when last seen. */
  store_size?: number;
  at: string;
}

/** Findings that make the backup not OK (they keep a warning until resolved). */
export function isProblem(f: Finding): boolean {
  return f.code === 'local-corrupt' || f.code === 'store-differs' || f.code === 'store-longer';
}
