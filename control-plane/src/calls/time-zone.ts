/**
 * Times shown in an agent's time zone (its `timezone`, IANA). An agent's zone is free text, so one that Intl does
 * not know is read as UTC rather than failing a report.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone itself when Intl knows it, else UTC. */
export function knownTimeZone(zone: string | null | undefined): string {
  if (!zone) return 'UTC';
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    return zone;
  } catch {
    return 'UTC';
  }
}

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
      hourCycle: 'h23',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** "2025-01-15 09:05" in the zone. */
export function zonedDateTime(date: Date, zone: string | null | undefined): string {
  const parts = Object.fromEntries(
    formatter(knownTimeZone(zone))
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}
