// The turn index (turns.sqlite): one row per user or assistant turn with where it sits in the
// floor, and an FTS5 trigram index over its lowercased text. A trigram phrase query matches any
// substring of three or more characters, so on lowercased text it is the same literal match a scan
// does. Only conversation text is indexed so: tool output, thinking and tool arguments would make it
// larger than the floor. Those are in the raw index instead, every file's raw lines as trigram keys
// without positions (trigrams.ts, rawpost.ts), which names the files the scan tier then reads to
// verify.
//
// schema.ts holds its tables and the connection's base, query.ts what it answers, update.ts how
// it is kept current from the floor (with claims.ts, fileread.ts, sessions.ts, ahead.ts), open.ts
// opening and rebuilding it, snapshot.ts the in-memory copy a reader that writes nothing uses.
export { fold } from '../parse-job';
export type { Turn } from '../../turns';
export type { FileRow, LiveFile, SessionKeys, SessionRow, TurnRow, UpdateReport } from './schema';
export { indexable } from './query';
export { TurnIndex } from './update';
export { openIndex, rebuildIndex, type IndexOpen } from './open';
export { snapshotIndex } from './snapshot';
