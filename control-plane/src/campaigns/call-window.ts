/**
 * A campaign's daily call window in its own time zone (docs/architecture.md §13). Everything is read off the wall
 * clock of the zone at an instant (Intl), never by adding a fixed offset, so a window is right on both sides of a
 * daylight-saving change: 09:00–17:00 in America/New_York is 14:00–22:00 UTC in winter and 13:00–21:00 UTC in summer,
 * and on the day of the change itself. A window opening inside a skipped hour opens when the clock jumps past it.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** Whether Intl knows `zone` as an IANA time zone. */
export function isTimeZone(zone: string): boolean {
  if (!zone || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall clock of `zone` at `at`. */
export function wallClock(at: Date, zone: string): WallClock {
  const parts = Object.fromEntries(
    formatter(zone)
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** "YYYY-MM-DD" of the zone's calendar at `at`. */
export function localDate(at: Date, zone: string): string {
  const c = wallClock(at, zone);
  return `${c.year}-${String(c.month).padStart(2, '0')}-${String(c.day).padStart(2, '0')}`;
}

/** Minutes after midnight of "HH:MM". */
export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h! * 60 + m!;
}

/**
 * The instant the zone's wall clock shows `date` ("YYYY-MM-DD") at `hhmm`. A wall time shown twice (clocks set
 * back) gives its first instant; one skipped (clocks set forward) is moved on by the gap, as Temporal's
 * "compatible" disambiguation does: 02:30 on a spring-forward night in New York is 03:30 EDT.
 */
export function zonedInstant(date: string, hhmm: string, zone: string): Date {
  const [y, mo, d] = date.split('-').map(Number);
  const [h, mi] = hhmm.split(':').map(Number);
  const target = Date.UTC(y!, mo! - 1, d!, h!, mi!);
  // No zone changes its offset twice within a day: the offsets half a day either side are the only candidates.
  const before = target - offsetMs(new Date(target - HALF_DAY_MS), zone);
  const after = target - offsetMs(new Date(target + HALF_DAY_MS), zone);
  const shown = [before, after].filter((at) => wallMs(new Date(at), zone) === target).sort((a, b) => a - b);
  return new Date(shown[0] ?? before);
}

const HALF_DAY_MS = 12 * 3_600_000;

function wallMs(at: Date, zone: string): number {
  const c = wallClock(at, zone);
  return Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second);
}

/** How far the zone's wall clock is ahead of UTC at `at`, ms. */
function offsetMs(at: Date, zone: string): number {
  return wallMs(at, zone) - Math.floor(at.getTime() / 1000) * 1000;
}

export interface CallWindow {
  callStartTime: string;
  callEndTime: string;
  timezone: string;
  startDate: Date | null;
  endDate: Date | null;
}

/** Whether a campaign may dial at `at`: between its dates, and inside its daily window on the zone's wall clock. */
export function insideWindow(window: CallWindow, at: Date): boolean {
  if (window.startDate && at < window.startDate) return false;
  if (window.endDate && at > window.endDate) return false;
  const clock = wallClock(at, window.timezone);
  const minute = clock.hour * 60 + clock.minute;
  return minute >= minutesOf(window.callStartTime) && minute < minutesOf(window.callEndTime);
}

/** The window's next opening at or after `at` (null once past endDate): when a paused dialler would start again. */
export function nextOpening(window: CallWindow, at: Date): Date | null {
  if (insideWindow(window, at)) return at;
  const from = window.startDate && window.startDate > at ? window.startDate : at;
  // Look at most a week ahead: a window opens every day.
  for (let day = 0; day <= 7; day++) {
    const date = localDate(new Date(from.getTime() + day * 86_400_000), window.timezone);
    const opening = zonedInstant(date, window.callStartTime, window.timezone);
    const candidate = opening < from ? from : opening;
    if (window.endDate && candidate > window.endDate) return null;
    if (insideWindow(window, candidate)) return candidate;
  }
  return null;
}
