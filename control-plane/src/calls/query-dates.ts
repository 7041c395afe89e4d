/**
 * Dates in query strings (call history's startDate/endDate, results' from/to): ISO 8601 with an offset or Z, or a
 * bare date. A `+` offset that arrived unescaped (a query string reads `+` as a space) is taken back as `+`, so
 * `2025-01-15T10:00:00 05:30` means +05:30. A value that is not a date is a 400 naming its field.
 */
import { badField } from '../errors.ts';

const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i;
const DAY_MS = 86_400_000;

export interface QueryDate {
  at: Date;
  /** The value was a date without a time (midnight UTC). */
  bare: boolean;
}

export function parseQueryDate(value: string, field: string): QueryDate {
  const text = value.trim().replace(/(T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}(?::?\d{2})?)$/i, '$1+$2');
  if (BARE_DATE.test(text)) {
    const at = new Date(`${text}T00:00:00Z`);
    if (!Number.isNaN(at.getTime()) && at.toISOString().startsWith(text)) return { at, bare: true };
  } else if (DATE_TIME.test(text)) {
    const iso = `${text.slice(0, 10)}T${text.slice(11)}`
      .replace(/([+-]\d{2})(\d{2})$/, '$1:$2')
      .replace(/([+-]\d{2})$/, '$1:00');
    const at = new Date(/[zZ]|[+-]\d{2}:\d{2}$/.test(iso.slice(10)) ? iso : `${iso}Z`);
    if (!Number.isNaN(at.getTime())) return { at, bare: false };
  }
  throw badField(
    field,
    'must be a date (YYYY-MM-DD) or an ISO 8601 date-time with an offset, e.g. 2025-01-15T09:30:00+05:30',
  );
}

/** An exclusive upper bound: a bare date includes that whole day (UTC). */
export function exclusiveEnd(date: QueryDate): Date {
  return date.bare ? new Date(date.at.getTime() + DAY_MS) : date.at;
}
