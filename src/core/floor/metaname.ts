// Where a session's meta record lives: meta/<lane>/<session>.json. Both parts come from input (a
// hook payload on this machine, a store's manifest when recall reads another machine's floor), so
// they are escaped into single names and joined through the one guard (safepath.ts).
import { fileSegment, within } from '../safepath';
import { lakeSegment } from './names';

/** The folder of a lane's meta records in a floor (checked on disk: meta/ and meta/<lane>/ are
 * real folders, not symlinks). */
export function metaDir(floor: string, lane: string): string {
  return within(floor, `meta/${fileSegment(lane)}`, { what: 'the meta folder', disk: true });
}

/** The name of record `n` (1: the first) of a session, inside its lane's folder. */
export function metaName(session: string, n = 1): string {
  const base = lakeSegment(Buffer.from(fileSegment(session))).name;
  return n === 1 ? `${base}.json` : `${base}.${n}.json`;
}
