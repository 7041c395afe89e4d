/**
 * Query-string values of the wallet and billing reads, checked where the spec leaves them unchecked (it answers 500
 * for a bad date or type): each bad value is a 400 naming its field.
 */
import { badField } from '../errors.ts';

/** Spec document 3: `limit` of wallet transactions and usage details is clamped to 1..100. */
export const MAX_PAGE_LIMIT = 100;
export const DEFAULT_PAGE_LIMIT = 20;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/**
 * Any date `Date.parse` reads (ISO 8601 dates and timestamps among them); 400 naming `field` otherwise. A date
 * without a time as the end of a range means the whole of that day (UTC), as a person reading "to 31 March" means.
 */
export function parseDateValue(field: string, text: string, end = false): Date {
  const parsed = Date.parse(text.trim());
  if (text.trim() === '' || Number.isNaN(parsed))
    throw badField(field, `must be a date, e.g. 2026-03-31 or 2026-03-31T12:00:00Z`);
  return new Date(end && DATE_ONLY.test(text.trim()) ? parsed + DAY_MS - 1 : parsed);
}

export interface DateRange {
  from?: Date;
  to?: Date;
}

export function parseDateRange(startDate: string | undefined, endDate: string | undefined): DateRange {
  return {
    from: startDate === undefined ? undefined : parseDateValue('startDate', startDate),
    to: endDate === undefined ? undefined : parseDateValue('endDate', endDate, true),
  };
}

export interface Page {
  page: number;
  limit: number;
  offset: number;
}

/** The page asked for, `limit` clamped to 1..100 (page is at least 1 by the route schema). */
export function pageOf(page: number | undefined, limit: number | undefined): Page {
  const clamped = Math.min(Math.max(limit ?? DEFAULT_PAGE_LIMIT, 1), MAX_PAGE_LIMIT);
  const current = page ?? 1;
  return { page: current, limit: clamped, offset: (current - 1) * clamped };
}

export const pagination = (page: Page, total: number) => ({
  page: page.page,
  limit: page.limit,
  total,
  totalPages: Math.ceil(total / page.limit),
});
