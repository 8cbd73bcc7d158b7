// Link alarms: quiet past an expected-activity rule, transport down too long; raised once, cleared once. Explicit clocks only.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LinkAlarms, localTime, parseActivityRule, windowStart, type ActivityRule } from '../../lib/health/alarms';

const MIN = 60_000;
/** Monday 2024-05-06 07:00 UTC. */
const MON_0700 = Date.UTC(2024, 4, 6, 7, 0);
const WEEKDAYS_7_19: ActivityRule = { minutes: 30, days: [1, 2, 3, 4, 5, 6], from: 7 * 60, to: 19 * 60 };

const link = (lastReceived: number | undefined, transport: 'connected' | 'disconnected' | 'listening' | 'unknown' = 'connected', transportSince?: number) => ({ lastReceived, transport, transportSince });

describe('windowStart and localTime', () => {
  it('reads weekday and time of day in the given zone', () => {
    assert.deepEqual({ ...localTime(MON_0700, 'UTC'), subMinute: 0 }, { weekday: 1, minutes: 420, subMinute: 0 });
    // 07:00 UTC is 09:00 in Berlin (summer time).
    assert.equal(localTime(MON_0700, 'Europe/Berlin').minutes, 540);
    // 07:00 UTC Monday is 17:00 Monday in Sydney, 00:00 Monday in Los Angeles.
    assert.equal(localTime(MON_0700, 'America/Los_Angeles').minutes, 0);
  });

  it('gives the start of the window now is in, none outside it', () => {
    assert.equal(windowStart(WEEKDAYS_7_19, MON_0700 + 90 * MIN + 1234, 'UTC'), MON_0700);
    assert.equal(windowStart(WEEKDAYS_7_19, MON_0700 - 1, 'UTC'), undefined);
    assert.equal(windowStart(WEEKDAYS_7_19, MON_0700 + 12 * 60 * MIN, 'UTC'), undefined, '19:00 is outside');
    assert.equal(windowStart(WEEKDAYS_7_19, MON_0700 - 24 * 60 * MIN + 60 * MIN, 'UTC'), undefined, 'Sunday is not in the rule');
    // In Berlin the window opens at 07:00 local = 05:00 UTC.
    assert.equal(windowStart(WEEKDAYS_7_19, MON_0700, 'Europe/Berlin'), MON_0700 - 2 * 60 * MIN);
  });

  it('runs a whole-day rule on consecutive days as one window', () => {
    const allWeek: ActivityRule = { minutes: 30, days: [0, 1, 2, 3, 4, 5, 6], from: 0, to: 1440 };
    assert.equal(windowStart(allWeek, MON_0700, 'UTC'), MON_0700 - 7 * 60 * MIN - 7 * 24 * 60 * MIN);
    const monToSat: ActivityRule = { ...allWeek, days: [1, 2, 3, 4, 5, 6] };
    assert.equal(windowStart(monToSat, MON_0700 + 24 * 60 * MIN, 'UTC'), MON_0700 - 7 * 60 * MIN, 'Tuesday: from Monday 00:00');
  });
});

describe('LinkAlarms', () => {
  it('raises LINK_QUIET once after the rule\'s minutes inside the window, and clears it when a message comes', () => {
    const alarms = new LinkAlarms({ quiet: WEEKDAYS_7_19, timeZone: 'UTC' }, MON_0700 - 60 * MIN);
    // The count starts at the window's opening, not at the last message the evening before.
    const lastNight = MON_0700 - 12 * 60 * MIN;
    assert.deepEqual(alarms.check(link(lastNight), MON_0700 + 29 * MIN), { raised: [], cleared: [] });
    const first = alarms.check(link(lastNight), MON_0700 + 30 * MIN);
    assert.deepEqual(first.raised, [{ code: 'LINK_QUIET', since: MON_0700, raisedAt: MON_0700 + 30 * MIN }]);
    assert.deepEqual(alarms.check(link(lastNight), MON_0700 + 45 * MIN), { raised: [], cleared: [] }, 'raised once');
    assert.equal(alarms.list().length, 1);
    const back = alarms.check(link(MON_0700 + 50 * MIN), MON_0700 + 51 * MIN);
    assert.deepEqual(back.cleared, [{ code: 'LINK_QUIET', since: MON_0700, raisedAt: MON_0700 + 30 * MIN, reason: 'recovered' }]);
    assert.deepEqual(alarms.list(), []);
    // Quiet again for 30 minutes after that message.
    assert.equal(alarms.check(link(MON_0700 + 50 * MIN), MON_0700 + 80 * MIN).raised[0]?.since, MON_0700 + 50 * MIN);
  });

  it('clears LINK_QUIET when the window ends, and counts from the deploy when the link started late', () => {
    const deployed = MON_0700 + 60 * MIN;
    const alarms = new LinkAlarms({ quiet: WEEKDAYS_7_19, timeZone: 'UTC' }, deployed);
    assert.deepEqual(alarms.check(link(undefined), deployed + 29 * MIN).raised, []);
    assert.equal(alarms.check(link(undefined), deployed + 30 * MIN).raised[0]?.since, deployed);
    const evening = alarms.check(link(undefined), MON_0700 + 12 * 60 * MIN);
    assert.equal(evening.cleared[0]?.reason, 'window-ended');
    // Sunday: nothing expected.
    const sunday = MON_0700 + 6 * 24 * 60 * MIN;
    assert.deepEqual(alarms.check(link(undefined), sunday), { raised: [], cleared: [] });
  });

  it('raises LINK_DOWN after the transport stays down past the limit (a listening server counts), clears it on connect, and keeps LINK_QUIET back meanwhile', () => {
    const alarms = new LinkAlarms({ quiet: { ...WEEKDAYS_7_19, minutes: 5 }, downMinutes: 10, timeZone: 'UTC' }, MON_0700);
    const dropped = MON_0700 + 60 * MIN;
    assert.deepEqual(alarms.check(link(dropped - MIN, 'disconnected', dropped), dropped + 9 * MIN).raised.map((a) => a.code), ['LINK_QUIET']);
    const down = alarms.check(link(dropped - MIN, 'disconnected', dropped), dropped + 10 * MIN);
    assert.deepEqual(down.raised, [{ code: 'LINK_DOWN', since: dropped, raisedAt: dropped + 10 * MIN, transport: 'disconnected' }]);
    assert.deepEqual(down.cleared.map((a) => [a.code, a.reason]), [['LINK_QUIET', 'link-down']], 'one cause, one alarm');
    assert.deepEqual(alarms.check(link(dropped - MIN, 'listening', dropped + 11 * MIN), dropped + 30 * MIN), { raised: [], cleared: [] }, 'still down: raised once');
    const up = alarms.check(link(dropped - MIN, 'connected', dropped + 31 * MIN), dropped + 31 * MIN);
    assert.deepEqual(up.cleared.map((a) => [a.code, a.reason]), [['LINK_DOWN', 'recovered']]);
    assert.deepEqual(up.raised.map((a) => a.code), ['LINK_QUIET'], 'connected but still silent');
    // An unknown state (nothing reported) is not down.
    const unknown = new LinkAlarms({ downMinutes: 1 }, MON_0700);
    assert.deepEqual(unknown.check(link(undefined, 'unknown'), MON_0700 + 60 * MIN), { raised: [], cleared: [] });
  });

  it('does nothing without rules', () => {
    const alarms = new LinkAlarms({}, MON_0700);
    assert.deepEqual(alarms.check(link(undefined, 'disconnected', MON_0700), MON_0700 + 24 * 60 * MIN), { raised: [], cleared: [] });
  });
});

describe('parseActivityRule', () => {
  it('reads the dialog\'s fields, with empty meaning every day and all day', () => {
    assert.deepEqual(parseActivityRule({ minutes: 0 }), { rule: undefined, errors: [] });
    assert.deepEqual(parseActivityRule({ minutes: 30, days: '1,2,3,4,5,6', from: '07:00', to: '19:00' }), { rule: WEEKDAYS_7_19, errors: [] });
    assert.deepEqual(parseActivityRule({ minutes: 0.5, days: '', from: '', to: '' }).rule, { minutes: 0.5, days: [0, 1, 2, 3, 4, 5, 6], from: 0, to: 1440 });
  });

  it('names the setting that is wrong', () => {
    assert.match(parseActivityRule({ minutes: 30, days: 'Mon' }).errors[0]!, /^quietDays must list weekdays/);
    assert.match(parseActivityRule({ minutes: 30, days: 'none' }).errors[0]!, /^quietDays: no weekday is ticked/);
    assert.match(parseActivityRule({ minutes: 30, from: '7h' }).errors[0]!, /^quietFrom must be a time of day as HH:MM/);
    assert.match(parseActivityRule({ minutes: 30, to: '24:30' }).errors[0]!, /^quietTo must be/);
    assert.match(parseActivityRule({ minutes: 30, from: '19:00', to: '07:00' }).errors[0]!, /quietFrom \(19:00\) must be before quietTo/);
  });
});
