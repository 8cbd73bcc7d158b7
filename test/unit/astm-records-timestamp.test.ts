/**
 * ASTM wall-clock date/times placed in a site's IANA zone, including the two
 * DST changes of a year, and the values that are no date at all.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AstmTimestampError, formatAstmTimestamp, parseAstmDate, parseAstmTimestamp } from '../../lib/protocols/astm/records';

describe('parseAstmTimestamp', () => {
  it('reads the analyzer clock in the site zone', () => {
    assert.equal(parseAstmTimestamp('20261121093015', 'Europe/Berlin'), '2026-11-21T08:30:15.000Z');
    assert.equal(parseAstmTimestamp('20261121093015', 'America/New_York'), '2026-11-21T14:30:15.000Z');
    assert.equal(parseAstmTimestamp('20260701120000', 'Europe/Berlin'), '2026-07-01T10:00:00.000Z', 'summer time');
    assert.equal(parseAstmTimestamp('20260701120000', 'America/New_York'), '2026-07-01T16:00:00.000Z');
    assert.equal(parseAstmTimestamp('20261121093015', 'UTC'), '2026-11-21T09:30:15.000Z');
  });

  it('takes minutes without seconds, and a date alone as its midnight', () => {
    assert.equal(parseAstmTimestamp('202611210930', 'Europe/Berlin'), '2026-11-21T08:30:00.000Z');
    assert.equal(parseAstmTimestamp('20261121', 'Europe/Berlin'), '2026-11-20T23:00:00.000Z');
    assert.equal(parseAstmTimestamp('20240229', 'UTC'), '2024-02-29T00:00:00.000Z');
  });

  it('handles the spring change: before, after and inside the gap', () => {
    // Europe/Berlin, 29 March 2026: 02:00 CET becomes 03:00 CEST.
    assert.equal(parseAstmTimestamp('20260329015959', 'Europe/Berlin'), '2026-03-29T00:59:59.000Z');
    assert.equal(parseAstmTimestamp('20260329030000', 'Europe/Berlin'), '2026-03-29T01:00:00.000Z');
    assert.equal(parseAstmTimestamp('20260329023000', 'Europe/Berlin'), '2026-03-29T01:30:00.000Z', 'compatible: read with the offset before the change');
    assert.equal(parseAstmTimestamp('20260329023000', 'Europe/Berlin', { disambiguation: 'earlier' }), '2026-03-29T00:30:00.000Z');
    assert.throws(() => parseAstmTimestamp('20260329023000', 'Europe/Berlin', { disambiguation: 'reject' }), (e: unknown) => e instanceof AstmTimestampError && e.value === '20260329023000' && /does not exist/.test(e.message));
    // America/New_York, 8 March 2026: 02:00 EST becomes 03:00 EDT.
    assert.equal(parseAstmTimestamp('20260308013000', 'America/New_York'), '2026-03-08T06:30:00.000Z');
    assert.equal(parseAstmTimestamp('20260308033000', 'America/New_York'), '2026-03-08T07:30:00.000Z');
  });

  it('handles the autumn change, where a wall time happens twice', () => {
    // Europe/Berlin, 25 October 2026: 03:00 CEST becomes 02:00 CET.
    assert.equal(parseAstmTimestamp('20261025023000', 'Europe/Berlin'), '2026-10-25T00:30:00.000Z', 'compatible: the earlier');
    assert.equal(parseAstmTimestamp('20261025023000', 'Europe/Berlin', { disambiguation: 'later' }), '2026-10-25T01:30:00.000Z');
    assert.throws(() => parseAstmTimestamp('20261025023000', 'Europe/Berlin', { disambiguation: 'reject' }), /occurs twice/);
    assert.equal(parseAstmTimestamp('20261025033000', 'Europe/Berlin'), '2026-10-25T02:30:00.000Z');
    // America/New_York, 1 November 2026: 02:00 EDT becomes 01:00 EST.
    assert.equal(parseAstmTimestamp('20261101013000', 'America/New_York'), '2026-11-01T05:30:00.000Z');
    assert.equal(parseAstmTimestamp('20261101013000', 'America/New_York', { disambiguation: 'later' }), '2026-11-01T06:30:00.000Z');
  });

  it('rejects impossible dates and times, naming the value', () => {
    for (const [value, what] of [
      ['20260230', 'day'],
      ['20250229120000', 'day'],
      ['20261131', 'day'],
      ['20261121240000', 'hour'],
      ['20261121236000', 'minute'],
      ['20261121235960', 'second'],
      ['20261321', 'month'],
      ['00001121', 'year'],
    ] as const) {
      assert.throws(() => parseAstmTimestamp(value, 'Europe/Berlin'), (e: unknown) => e instanceof AstmTimestampError && e.value === value && e.message.includes(value) && e.message.includes(what), value);
    }
  });

  it('rejects what is not YYYYMMDD[HHMM[SS]] and unknown zones', () => {
    for (const value of ['', '2026112109', '2026-11-21', '20261121 093015', '202611210930151', ' 20261121']) {
      assert.throws(() => parseAstmTimestamp(value, 'UTC'), (e: unknown) => e instanceof AstmTimestampError && /is not YYYYMMDD/.test(e.message), JSON.stringify(value));
    }
    assert.throws(() => parseAstmTimestamp('20261121', 'Mars/Olympus_Mons'), /unknown time zone "Mars\/Olympus_Mons"/);
  });
});

describe('parseAstmDate', () => {
  it('gives a birth date without shifting it through a zone', () => {
    assert.equal(parseAstmDate('19600315'), '1960-03-15');
    assert.throws(() => parseAstmDate('19600230'), /invalid day/);
    assert.throws(() => parseAstmDate('1960031512'), /not YYYYMMDD/);
  });
});

describe('formatAstmTimestamp', () => {
  it('writes an instant as the analyzer clock of a zone', () => {
    const instant = new Date('2026-11-21T08:30:15.000Z');
    assert.equal(formatAstmTimestamp(instant, 'Europe/Berlin'), '20261121093015');
    assert.equal(formatAstmTimestamp(instant, 'America/New_York'), '20261121033015');
    assert.equal(formatAstmTimestamp(new Date('2026-07-01T10:00:00Z'), 'Europe/Berlin'), '20260701120000');
    assert.equal(formatAstmTimestamp(new Date('2026-01-01T00:00:00Z'), 'Europe/Berlin'), '20260101010000', 'midnight hour is 00, not 24');
    assert.equal(formatAstmTimestamp(new Date('2025-12-31T23:30:00Z'), 'Europe/Berlin'), '20260101003000');
  });

  it('gives each zone and each second its own text, however the calls alternate', () => {
    const a = new Date('2026-11-21T08:30:15.100Z');
    const b = new Date('2026-11-21T08:30:15.900Z');
    const c = new Date('2026-11-21T08:30:16.000Z');
    for (let round = 0; round < 2; round++) {
      assert.equal(formatAstmTimestamp(a, 'Europe/Berlin'), '20261121093015');
      assert.equal(formatAstmTimestamp(a, 'UTC'), '20261121083015');
      assert.equal(formatAstmTimestamp(b, 'Europe/Berlin'), '20261121093015');
      assert.equal(formatAstmTimestamp(c, 'Europe/Berlin'), '20261121093016');
      assert.equal(formatAstmTimestamp(new Date(-1), 'UTC'), '19691231235959');
      assert.equal(formatAstmTimestamp(new Date(0), 'UTC'), '19700101000000');
    }
  });

  it('round-trips with parseAstmTimestamp across a year, hour by hour', () => {
    for (const zone of ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe']) {
      for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 3_600_000 + 61_000) {
        const wall = formatAstmTimestamp(new Date(t), zone);
        const back = Date.parse(parseAstmTimestamp(wall, zone));
        // In an autumn overlap 'compatible' picks the earlier instant.
        assert.ok(back === Math.floor(t / 1000) * 1000 || formatAstmTimestamp(new Date(back), zone) === wall, `${zone} ${new Date(t).toISOString()}`);
      }
    }
  });

  it('refuses an invalid Date and an unknown zone', () => {
    assert.throws(() => formatAstmTimestamp(new Date('nope'), 'UTC'), AstmTimestampError);
    assert.throws(() => formatAstmTimestamp(new Date(), 'Nowhere/City'), /unknown time zone/);
  });
});
