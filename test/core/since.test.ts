import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSince, sinceForSql } from '../../src/core/since';

// The zone is switched inside the process (Node rereads TZ when it changes), so one date read
// in two zones must give two instants, each that zone's midnight.
test('a date alone is local midnight, the same instant for the file filters and for SQL', () => {
  const saved = process.env.TZ;
  try {
    process.env.TZ = 'Asia/Tokyo';
    assert.equal(parseSince('2026-08-01'), Date.UTC(2026, 6, 31, 15));
    assert.equal(sinceForSql('2026-08-01'), '2026-07-31T15:00:00.000Z');
    process.env.TZ = 'America/New_York';
    assert.equal(parseSince('2026-08-01'), Date.UTC(2026, 7, 1, 4));
    assert.equal(sinceForSql('2026-08-01'), '2026-08-01T04:00:00.000Z');
    // An instant with a zone stays that instant; a relative form counts back from now.
    assert.equal(sinceForSql('2026-08-01T00:00:00Z'), '2026-08-01T00:00:00.000Z');
    assert.equal(parseSince('2d', Date.UTC(2026, 7, 3)), Date.UTC(2026, 7, 1));
  } finally {
    process.env.TZ = saved;
  }
});
