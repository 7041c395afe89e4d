/**
 * The rules of a campaign's fields (spec document 2, POST and PUT /campaigns): the call window, the time zone, the
 * dates read in that zone, followUpRules with their defaults and boolean strings, the country code. Each refusal
 * is a 400 naming the field.
 */
import { badField, type FieldProblem, validationError } from '../errors.ts';
import { isId } from '../db/ids.ts';
import { isTimeZone, localDate, minutesOf, zonedInstant } from './call-window.ts';

/** The dial code numbers without one are read in when targetCountryCode is omitted (spec document 3). */
export const DEFAULT_COUNTRY_CODE = '+1';
/** The call window the MCP tool defaults to (spec document 3); REST requires both times. */
export const DEFAULT_CALL_WINDOW = { start: '09:00', end: '17:00' } as const;
export const DEFAULT_TIMEZONE = 'UTC';
/** Retries of a contact not reached, unless set: two more tries is what a person dialling by hand would do. */
export const DEFAULT_RETRY_COUNT = 2;
/** Wait between tries of one contact, s: an hour, so a busy person is not called again in the same meeting. */
export const DEFAULT_COOLDOWN_SECONDS = 3600;
/** A campaign call's longest duration, s, unless set. */
export const DEFAULT_MAX_CALL_DURATION = 600;
/** Silence before a campaign call ends, s, unless set. */
export const DEFAULT_INACTIVITY_DURATION = 30;

/** Call-result buckets of a contact (the follow-up selection and preview). */
export const RESULT_BUCKETS = ['answered', 'no_answer', 'voicemail', 'not_reached'] as const;
export type ResultBucket = (typeof RESULT_BUCKETS)[number];

export interface FollowUpRules {
  enabled: boolean;
  results: ResultBucket[];
  maxRounds: number;
  delayDays: number;
  windowDays: number;
  voiceAgentId: string | null;
  sipConfigurationId: string | null;
  autoStart: boolean;
}

/** Spec document 1: the defaults of every key left out. */
export const DEFAULT_FOLLOW_UP_RULES: FollowUpRules = {
  enabled: true,
  results: ['no_answer', 'not_reached', 'voicemail'],
  maxRounds: 1,
  delayDays: 1,
  windowDays: 7,
  voiceAgentId: null,
  sipConfigurationId: null,
  autoStart: true,
};
/** Follow-up rounds of one campaign at most: each round is a campaign of its own. */
const MAX_FOLLOW_UP_ROUNDS = 5;
const MAX_DELAY_DAYS = 90;
const MAX_WINDOW_DAYS = 90;

/** A boolean, or the strings true, false, 1, 0 (spec: followUpRules and includeContacts); undefined otherwise. */
export function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === '1' || value === 1) return true;
  if (value === 'false' || value === '0' || value === 0) return false;
  return undefined;
}

/** "+91", "91" and "0091" are one dial code: answered as "+91"; 400 naming `field` when it is none. */
export function normaliseCountryCode(value: string, field = 'targetCountryCode'): string {
  const digits = value.trim().replace(/^\+/, '').replace(/^00/, '');
  if (!/^[1-9][0-9]{0,3}$/.test(digits)) throw badField(field, 'must be a country dial code such as +1 or +91');
  return `+${digits}`;
}

export function assertTimeZone(zone: string, field = 'timezone'): void {
  if (!isTimeZone(zone)) throw badField(field, 'must be an IANA time zone such as Europe/London or America/New_York');
}

export function assertWindow(start: string, end: string): void {
  if (minutesOf(start) >= minutesOf(end))
    throw validationError([{ field: 'callStartTime', message: `must be before callEndTime (${end})` }]);
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A campaign date from ISO 8601 or YYYY-MM-DD. A bare date is read in the campaign's zone: a startDate as the
 * start of that day, an endDate as its end (the whole day is included).
 */
export function parseCampaignDate(value: string, zone: string, edge: 'start' | 'end', field: string): Date {
  if (DATE_ONLY.test(value)) {
    const day = new Date(`${value}T00:00:00Z`);
    if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value)
      throw badField(field, 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time');
    if (edge === 'start') return zonedInstant(value, '00:00', zone);
    const next = new Date(day.getTime() + 86_400_000).toISOString().slice(0, 10);
    return new Date(zonedInstant(next, '00:00', zone).getTime() - 1);
  }
  const at = new Date(value);
  if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(value))
    throw badField(field, 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time');
  return at;
}

/** Dates are refused when their day is before today in the campaign's zone, and endDate before startDate. */
export function assertDates(startDate: Date | null, endDate: Date | null, zone: string, now: Date): void {
  const today = localDate(now, zone);
  const problems: FieldProblem[] = [];
  if (startDate && localDate(startDate, zone) < today)
    problems.push({ field: 'startDate', message: `is in the past (today is ${today} in ${zone})` });
  if (endDate && localDate(endDate, zone) < today)
    problems.push({ field: 'endDate', message: `is in the past (today is ${today} in ${zone})` });
  if (startDate && endDate && endDate < startDate)
    problems.push({ field: 'endDate', message: 'must not be before startDate' });
  if (problems.length) throw validationError(problems);
}

/**
 * followUpRules as sent, over `base` (the defaults on create, the current rules on update): keys left out keep
 * the base's value; booleans also as the strings true, false, 1, 0; any other key or value is a 400.
 */
export function followUpRulesOf(input: unknown, base: FollowUpRules = DEFAULT_FOLLOW_UP_RULES): FollowUpRules {
  const field = 'followUpRules';
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw badField(field, 'must be an object');
  const rules: FollowUpRules = { ...base, results: [...base.results] };
  const problems: FieldProblem[] = [];
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    const at = `${field}.${key}`;
    switch (key) {
      case 'enabled':
      case 'autoStart': {
        const flag = booleanOf(value);
        if (flag === undefined)
          problems.push({ field: at, message: 'must be true or false (or "true", "false", 1, 0)' });
        else rules[key] = flag;
        break;
      }
      case 'results': {
        const ok =
          Array.isArray(value) &&
          value.length > 0 &&
          value.every((v) => typeof v === 'string' && (RESULT_BUCKETS as readonly string[]).includes(v));
        if (!ok) problems.push({ field: at, message: `must be a non-empty list of: ${RESULT_BUCKETS.join(', ')}` });
        else rules.results = [...new Set(value as ResultBucket[])];
        break;
      }
      case 'maxRounds':
      case 'delayDays':
      case 'windowDays': {
        const [min, max] =
          key === 'maxRounds'
            ? [1, MAX_FOLLOW_UP_ROUNDS]
            : key === 'delayDays'
              ? [0, MAX_DELAY_DAYS]
              : [1, MAX_WINDOW_DAYS];
        if (!Number.isInteger(value) || (value as number) < min || (value as number) > max)
          problems.push({ field: at, message: `must be an integer from ${min} to ${max}` });
        else rules[key] = value as number;
        break;
      }
      case 'voiceAgentId':
      case 'sipConfigurationId':
        if (value !== null && !isId(value)) problems.push({ field: at, message: 'must be a 24-character id or null' });
        else rules[key] = value as string | null;
        break;
      default:
        problems.push({ field: at, message: 'is not a follow-up rule' });
    }
  }
  if (problems.length) throw validationError(problems);
  return rules;
}

/** Stored rules (jsonb) read back, with defaults for keys an older row lacks. */
export function storedFollowUpRules(stored: unknown): FollowUpRules | null {
  if (stored === null || stored === undefined) return null;
  return { ...DEFAULT_FOLLOW_UP_RULES, ...(stored as Partial<FollowUpRules>) };
}
