// What the floor's manifests claim of each file (update.ts): the lines added since the last update,
// folded into one claim per file, which the update writes before it reads any bytes.
import type { readManifest } from '../../floor/manifest';
import { laneRel } from '../read';
import type { MachineFloor } from '../roots';

export interface Claim {
  mf: MachineFloor;
  lake_path: string;
  lane: string;
  session: string;
  gen: number;
  byte_to: number;
  unterminated: boolean;
  first_seen: string;
  last_seen: string;
}

/** Folds a machine's manifest lines into `claims` (keyed by machine and lake path): the furthest
 * byte claimed, with whether it ends unterminated, and the first and last time the file was seen. */
export function addClaims(claims: Map<string, Claim>, mf: MachineFloor, lines: ReturnType<typeof readManifest>['lines']): void {
  for (const m of lines) {
    const k = `${mf.machine}\0${m.lake_path}`;
    const c = claims.get(k);
    if (!c) {
      const { lane } = laneRel(m.lake_path);
      claims.set(k, {
        mf,
        lake_path: m.lake_path,
        lane: m.lane ?? lane,
        session: m.session,
        gen: m.gen ?? 1,
        byte_to: m.byte_to,
        unterminated: !!m.unterminated,
        first_seen: m.captured_at,
        last_seen: m.captured_at,
      });
      continue;
    }
    if (m.byte_to >= c.byte_to) {
      c.byte_to = m.byte_to;
      c.unterminated = !!m.unterminated;
    }
    if (m.captured_at < c.first_seen) c.first_seen = m.captured_at;
    if (m.captured_at > c.last_seen) c.last_seen = m.captured_at;
  }
}
