/**
 * Dates as callers say them, read without a language model into ISO dates (YYYY-MM-DD): "tomorrow", "day after
 * tomorrow", "next Friday", "the 15th of March", "March fifteenth twenty twenty six", "15/03/2026", "2026-03-15".
 *
 * Relative dates count from `today`, the call's local date, which the caller of these functions supplies so the
 * result is deterministic (and right in the agent's time zone, not the server's).
 * A numeric d/m date is read day first, as in most of the world, unless only month-first makes sense ("3/15").
 * A date without a year is the next such date on or after today.
 */
import { readNumberRun, runValue } from './spoken-number.ts';
import { lookup, words } from './text-match.ts';

const MONTHS = lookup({
  january: 1,
  jan: 1,
  february: 2,
  feb: 2,
  march: 3,
  mar: 3,
  april: 4,
  apr: 4,
  may: 5,
  june: 6,
  jun: 6,
  july: 7,
  jul: 7,
  august: 8,
  aug: 8,
  september: 9,
  sept: 9,
  sep: 9,
  october: 10,
  oct: 10,
  november: 11,
  nov: 11,
  december: 12,
  dec: 12,
});
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const ORDINALS = lookup({
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  eleventh: 11,
  twelfth: 12,
  thirteenth: 13,
  fourteenth: 14,
  fifteenth: 15,
  sixteenth: 16,
  seventeenth: 17,
  eighteenth: 18,
  nineteenth: 19,
  twentieth: 20,
  thirtieth: 30,
});
const CARDINALS = lookup({
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
});
const DAY_TENS = lookup({ twenty: 20, thirty: 30 });
const RELATIVE: [string, number][] = [
  ['day after tomorrow', 2],
  ['tomorrow', 1],
  ['today', 0],
  ['tonight', 0],
  ['yesterday', -1],
];
/** Years a caller plausibly means; a number outside is not a year ("the 5th, 42 people"). */
const YEAR_RANGE = [1900, 2100] as const;

const DAY_MS = 86_400_000;

function toDate(iso: string): Date {
  return new Date(`${iso}T00:00:00Z`);
}

export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function addDays(iso: string, days: number): string {
  return isoDate(new Date(toDate(iso).getTime() + days * DAY_MS));
}

/** The ISO date, or undefined when the day does not exist in that month (31 April). */
export function makeDate(year: number, month: number, day: number): string | undefined {
  if (!Number.isInteger(year) || month < 1 || month > 12 || day < 1) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? isoDate(date) : undefined;
}

/** A day of the month at word `i`: "15", "15th", "fifteenth", "twenty first", "twenty one". */
function readDay(tokens: readonly string[], i: number): { day: number; ordinal: boolean; end: number } | undefined {
  const word = tokens[i];
  if (word === undefined) return undefined;
  const digits = /^(\d{1,2})(st|nd|rd|th)?$/.exec(word);
  if (digits) return { day: Number(digits[1]), ordinal: digits[2] !== undefined, end: i + 1 };
  if (ORDINALS.has(word)) return { day: ORDINALS.get(word)!, ordinal: true, end: i + 1 };
  if (DAY_TENS.has(word)) {
    const next = tokens[i + 1] ?? '';
    const unit = ORDINALS.get(next) ?? CARDINALS.get(next);
    if (unit !== undefined && unit < 10)
      return { day: DAY_TENS.get(word)! + unit, ordinal: ORDINALS.has(next), end: i + 2 };
    return { day: DAY_TENS.get(word)!, ordinal: false, end: i + 1 };
  }
  if (CARDINALS.has(word)) return { day: CARDINALS.get(word)!, ordinal: false, end: i + 1 };
  return undefined;
}

/** A year at word `i` (digits or spoken, "twenty twenty six"), if what is there is one. */
function readYear(tokens: readonly string[], i: number): number | undefined {
  const word = tokens[i];
  if (word === undefined) return undefined;
  if (/^\d{2}$/.test(word)) return 2000 + Number(word);
  const run = readNumberRun(tokens, i);
  if (!run) return undefined;
  const year = runValue(run);
  return Number.isInteger(year) && year >= YEAR_RANGE[0] && year <= YEAR_RANGE[1] ? year : undefined;
}

/** The first date on or after today with this month and day. */
function nextOccurrence(today: string, month: number, day: number): string | undefined {
  const year = toDate(today).getUTCFullYear();
  const thisYear = makeDate(year, month, day);
  if (thisYear && thisYear >= today) return thisYear;
  return makeDate(year + 1, month, day) ?? thisYear;
}

function fromNumeric(text: string, today: string): string | undefined {
  const iso = /\b(\d{4})-(\d{1,2})-(\d{1,2})\b/.exec(text);
  if (iso) return makeDate(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const dm = /\b(\d{1,2})[/-](\d{1,2})(?:[/-](\d{2}|\d{4}))?\b/.exec(text);
  if (!dm) return undefined;
  let [first, second] = [Number(dm[1]), Number(dm[2])];
  if (second > 12 && first <= 12) [first, second] = [second, first];
  if (dm[3] === undefined) return nextOccurrence(today, second, first);
  const year = dm[3].length === 2 ? 2000 + Number(dm[3]) : Number(dm[3]);
  return makeDate(year, second, first);
}

function fromMonthName(tokens: readonly string[], today: string): string | 'invalid' | undefined {
  // Every month word is tried: "may" is also a verb ("I may come on March 3rd").
  for (let m = 0; m < tokens.length; m++) {
    const month = MONTHS.get(tokens[m]!);
    if (month === undefined) continue;
    const date = aroundMonth(tokens, m, month, today);
    if (date) return date;
  }
  return undefined;
}

/** A month with a day next to it; 'invalid' when that day does not exist, so no other reading is tried. */

function aroundMonth(
  tokens: readonly string[],
  m: number,
  month: number,
  today: string,
): string | 'invalid' | undefined {
  // "March 15" / "March the fifteenth", else "15th of March" / "the fifteenth March".
  let day = readDay(tokens, tokens[m + 1] === 'the' ? m + 2 : m + 1);
  let yearAt = day?.end ?? m + 1;
  if (!day || day.day > 31) {
    day = undefined;
    const last = tokens[m - 1] === 'of' ? m - 2 : m - 1;
    for (let start = Math.max(0, last - 1); start <= last && !day; start++) {
      const candidate = readDay(tokens, start);
      if (candidate && candidate.end === last + 1) day = candidate;
    }
    yearAt = m + 1;
  }
  if (!day) return undefined;
  const year = readYear(tokens, yearAt);
  return (year !== undefined ? makeDate(year, month, day.day) : nextOccurrence(today, month, day.day)) ?? 'invalid';
}

function fromRelative(tokens: readonly string[], today: string): string | undefined {
  const joined = ` ${tokens.join(' ')} `;
  for (const [phrase, days] of RELATIVE) if (joined.includes(` ${phrase} `)) return addDays(today, days);
  const inN = /\bin (\S+(?: \S+)?) (day|days|week|weeks)\b/.exec(joined);
  if (inN) {
    const run =
      readNumberRun(inN[1]!.split(' '), 0) ??
      (inN[1]!.startsWith('a ') || inN[1] === 'a' ? { groups: ['1'], negative: false, end: 1 } : undefined);
    if (run) return addDays(today, runValue(run) * (inN[2]!.startsWith('week') ? 7 : 1));
  }
  const weekday = tokens.findIndex((word) => WEEKDAYS.includes(word));
  if (weekday >= 0) {
    const target = WEEKDAYS.indexOf(tokens[weekday]!);
    const now = toDate(today).getUTCDay();
    // Said on a Monday, "Monday" means the next one: nobody books today by its weekday name.
    const ahead = (target - now + 7) % 7 || 7;
    return addDays(today, ahead);
  }
  return undefined;
}

/** "the 15th", "on the twenty first": a day of this month, or of next month once it has passed. */
function fromOrdinalDay(tokens: readonly string[], today: string): string | undefined {
  for (let i = 0; i < tokens.length; i++) {
    const day = readDay(tokens, i);
    if (!day?.ordinal) continue;
    const now = toDate(today);
    const [year, month] = [now.getUTCFullYear(), now.getUTCMonth() + 1];
    const thisMonth = makeDate(year, month, day.day);
    if (thisMonth && thisMonth >= today) return thisMonth;
    return month === 12 ? makeDate(year + 1, 1, day.day) : makeDate(year, month + 1, day.day);
  }
  return undefined;
}

/** Reads a date from a transcript; undefined when it names none (or one that does not exist). */
export function parseSpokenDate(text: string, today: string): string | undefined {
  const numeric = fromNumeric(text, today);
  if (numeric) return numeric;
  const tokens = words(text);
  const named = fromMonthName(tokens, today);
  if (named === 'invalid') return undefined;
  return named ?? fromRelative(tokens, today) ?? fromOrdinalDay(tokens, today);
}

/** A keypad date: 8 keys as DDMMYYYY (the order in which most of the world writes dates). */
export function parseDtmfDate(digits: string): string | undefined {
  const match = /^(\d{2})(\d{2})(\d{4})$/.exec(digits);
  return match ? makeDate(Number(match[3]), Number(match[2]), Number(match[1])) : undefined;
}
