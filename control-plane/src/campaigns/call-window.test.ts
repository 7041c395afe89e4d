import { describe, expect, it } from 'vitest';
import { insideWindow, isTimeZone, localDate, nextOpening, zonedInstant, type CallWindow } from './call-window.ts';

const newYork: CallWindow = {
  callStartTime: '09:00',
  callEndTime: '17:00',
  timezone: 'America/New_York',
  startDate: null,
  endDate: null,
};
const at = (iso: string) => new Date(iso);

describe('the daily window in its own time zone', () => {
  it('follows New York across the spring-forward change (2027-03-14)', () => {
    // Saturday, EST (UTC-5): 09:00–17:00 is 14:00–22:00 UTC.
    expect(insideWindow(newYork, at('2027-03-13T13:59:00Z'))).toBe(false);
    expect(insideWindow(newYork, at('2027-03-13T14:00:00Z'))).toBe(true);
    expect(insideWindow(newYork, at('2027-03-13T21:59:00Z'))).toBe(true);
    expect(insideWindow(newYork, at('2027-03-13T22:00:00Z'))).toBe(false);
    // Sunday, the day of the change, EDT (UTC-4) from 02:00 local: 13:00–21:00 UTC.
    expect(insideWindow(newYork, at('2027-03-14T12:59:00Z'))).toBe(false);
    expect(insideWindow(newYork, at('2027-03-14T13:00:00Z'))).toBe(true);
    expect(insideWindow(newYork, at('2027-03-14T20:59:00Z'))).toBe(true);
    expect(insideWindow(newYork, at('2027-03-14T21:00:00Z'))).toBe(false);
  });

  it('follows London back across the autumn change (2026-10-25)', () => {
    const london = { ...newYork, timezone: 'Europe/London', callStartTime: '08:30', callEndTime: '12:00' };
    expect(insideWindow(london, at('2026-10-24T07:30:00Z'))).toBe(true); // BST 08:30
    expect(insideWindow(london, at('2026-10-25T07:30:00Z'))).toBe(false); // GMT 07:30
    expect(insideWindow(london, at('2026-10-25T08:30:00Z'))).toBe(true);
  });

  it('keeps to startDate and endDate', () => {
    const bounded = { ...newYork, startDate: at('2027-03-15T04:00:00Z'), endDate: at('2027-03-16T03:59:59Z') };
    expect(insideWindow(bounded, at('2027-03-14T15:00:00Z'))).toBe(false);
    expect(insideWindow(bounded, at('2027-03-15T15:00:00Z'))).toBe(true);
    expect(insideWindow(bounded, at('2027-03-16T15:00:00Z'))).toBe(false);
  });

  it('finds the next opening, on the far side of a change', () => {
    expect(nextOpening(newYork, at('2027-03-13T23:00:00Z'))?.toISOString()).toBe('2027-03-14T13:00:00.000Z');
    expect(nextOpening(newYork, at('2027-03-14T15:00:00Z'))?.toISOString()).toBe('2027-03-14T15:00:00.000Z');
    expect(nextOpening({ ...newYork, endDate: at('2027-03-13T23:30:00Z') }, at('2027-03-13T23:00:00Z'))).toBeNull();
  });
});

describe('wall times to instants', () => {
  it('reads a wall time in its zone, skipped and repeated times included', () => {
    expect(zonedInstant('2027-03-13', '09:00', 'America/New_York').toISOString()).toBe('2027-03-13T14:00:00.000Z');
    expect(zonedInstant('2027-03-14', '09:00', 'America/New_York').toISOString()).toBe('2027-03-14T13:00:00.000Z');
    // 02:30 does not exist that night: moved on by the hour skipped, to 03:30 EDT.
    expect(zonedInstant('2027-03-14', '02:30', 'America/New_York').toISOString()).toBe('2027-03-14T07:30:00.000Z');
    // 01:30 happens twice on 2026-11-01: the first (EDT).
    expect(zonedInstant('2026-11-01', '01:30', 'America/New_York').toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(zonedInstant('2026-06-01', '00:00', 'Asia/Kolkata').toISOString()).toBe('2026-05-31T18:30:00.000Z');
    expect(localDate(at('2026-05-31T18:30:00Z'), 'Asia/Kolkata')).toBe('2026-06-01');
  });

  it('knows IANA zones from other text', () => {
    expect(isTimeZone('America/New_York')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });
});
