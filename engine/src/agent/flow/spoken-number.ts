/**
 * Numbers as speech recognisers write them: digits ("23", "1,200", "3.5") or words ("twenty three", "one hundred
 * and five", "two lakh", "three point five"), without a language model.
 *
 * Spoken words form groups by the usual grammar (units after tens, tens after hundreds, scales after anything
 * smaller). A word that cannot continue the group starts a new one, and groups are read one after another as
 * digits: that is how people say digit strings and years ("four two" is 42, "nineteen eighty four" is 1984,
 * "double five" is 55), and how they read phone numbers.
 */
import { lookup, words } from './text-match.ts';

const UNITS = lookup({
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
});
const TEENS = lookup({
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
const TENS = lookup({
  twenty: 20,
  thirty: 30,
  forty: 40,
  fourty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
});
/** Scales above a hundred, with the Indian lakh and crore, which callers of Indian numbers use. */
const SCALES = lookup({
  thousand: 1e3,
  lakh: 1e5,
  lakhs: 1e5,
  lac: 1e5,
  million: 1e6,
  crore: 1e7,
  crores: 1e7,
  billion: 1e9,
});
const ZEROS = new Set(['zero', 'nought', 'oh', 'o']);
/** "oh" and "o" are zero only between other number words ("five oh two"); alone they are an exclamation. */
const WEAK_ZEROS = new Set(['oh', 'o']);
const REPEATS = lookup({ double: 2, triple: 3 });
const NEGATIVES = new Set(['minus', 'negative']);

type Last = 'none' | 'unit' | 'teen' | 'tens' | 'hundred' | 'scale' | 'digits';

class Group {
  total = 0;
  current = 0;
  last: Last = 'none';
  /** The largest scale used so far: "two thousand three hundred" is fine, "two thousand thousand" is not. */
  lastScale = Infinity;
  fraction = '';

  get empty(): boolean {
    return this.last === 'none';
  }

  /** Adds a word if the grammar allows it here; false means the word starts a new group. */
  add(word: string): boolean {
    const last = this.last;
    if (UNITS.has(word)) {
      if (!['none', 'tens', 'hundred', 'scale'].includes(last)) return false;
      this.current += UNITS.get(word)!;
      this.last = 'unit';
    } else if (TEENS.has(word) || TENS.has(word)) {
      if (!['none', 'hundred', 'scale'].includes(last)) return false;
      this.current += (TEENS.get(word) ?? TENS.get(word))!;
      this.last = TEENS.has(word) ? 'teen' : 'tens';
    } else if (word === 'hundred') {
      if (last === 'none') this.current = 1;
      else if (!['unit', 'teen', 'digits'].includes(last) || this.current >= 100) return false;
      this.current *= 100;
      this.last = 'hundred';
    } else if (SCALES.has(word)) {
      const scale = SCALES.get(word)!;
      if (last === 'none') this.current = 1;
      else if (last === 'scale' || scale >= this.lastScale || this.current === 0) return false;
      this.total += this.current * scale;
      this.current = 0;
      this.lastScale = scale;
      this.last = 'scale';
    } else {
      return false;
    }
    return true;
  }

  text(): string {
    return `${this.total + this.current}${this.fraction ? `.${this.fraction}` : ''}`;
  }
}

export interface NumberRun {
  /** Each group's digits, in order (a group may end in a decimal fraction). */
  groups: string[];
  negative: boolean;
  /** Word index just past the run. */
  end: number;
}

const isDigits = (word: string) => /^\d+(\.\d+)?$/.test(word);
const isNumberWord = (word: string) =>
  UNITS.has(word) ||
  TEENS.has(word) ||
  TENS.has(word) ||
  SCALES.has(word) ||
  word === 'hundred' ||
  (ZEROS.has(word) && !WEAK_ZEROS.has(word));
const singleDigit = (word: string | undefined): string | undefined => {
  if (word === undefined) return undefined;
  if (/^\d$/.test(word)) return word;
  if (ZEROS.has(word)) return '0';
  return UNITS.has(word) ? String(UNITS.get(word)) : undefined;
};

/** Reads the run of number words starting at word `start`; undefined when no number starts there. */
export function readNumberRun(tokens: readonly string[], start: number): NumberRun | undefined {
  let i = start;
  let negative = false;
  if (NEGATIVES.has(tokens[i] ?? '') && (isNumberWord(tokens[i + 1] ?? '') || isDigits(tokens[i + 1] ?? ''))) {
    negative = true;
    i++;
  }
  const groups: string[] = [];
  let group = new Group();
  const close = () => {
    if (!group.empty) groups.push(group.text());
    group = new Group();
  };
  for (; i < tokens.length; i++) {
    const word = tokens[i]!;
    const next = tokens[i + 1];
    const started = groups.length > 0 || !group.empty;
    if (isDigits(word)) {
      close();
      if (next !== undefined && (next === 'hundred' || SCALES.has(next))) {
        // "2 thousand": the digits are the multiplier of a spoken scale.
        group.current = Number.parseFloat(word);
        group.last = 'digits';
      } else {
        // Kept as written: a phone number's leading zeros matter.
        groups.push(word);
      }
    } else if (REPEATS.has(word) && singleDigit(next) !== undefined) {
      close();
      groups.push(singleDigit(next)!.repeat(REPEATS.get(word)!));
      i++;
    } else if (ZEROS.has(word) && (started || !WEAK_ZEROS.has(word))) {
      close();
      groups.push('0');
    } else if (word === 'a' && (next === 'hundred' || (next !== undefined && SCALES.has(next))) && !started) {
      continue;
    } else if (
      word === 'and' &&
      started &&
      next !== undefined &&
      isNumberWord(next) &&
      ['hundred', 'scale'].includes(group.last)
    ) {
      continue;
    } else if (word === 'and' && !group.empty && !group.fraction && next === 'a' && tokens[i + 2] === 'half') {
      // "three and a half"
      group.fraction = '5';
      i += 2;
      close();
    } else if (word === 'point' && started && singleDigit(next) !== undefined) {
      let fraction = '';
      while (singleDigit(tokens[i + 1]) !== undefined) fraction += singleDigit(tokens[++i]);
      if (group.empty) {
        // "five oh point two" is unusual enough that the fraction simply joins the last finished group.
        groups[groups.length - 1] += `.${fraction}`;
      } else {
        group.fraction = fraction;
      }
      close();
    } else if (isNumberWord(word) && !WEAK_ZEROS.has(word)) {
      if (!group.add(word)) {
        close();
        group.add(word);
      }
    } else {
      break;
    }
  }
  close();
  return groups.length ? { groups, negative, end: i } : undefined;
}

/** The first run of number words in a text, and where it starts. */
function firstRun(tokens: readonly string[]): NumberRun | undefined {
  for (let i = 0; i < tokens.length; i++) {
    const run = readNumberRun(tokens, i);
    if (run) return run;
  }
  return undefined;
}

/** The value of a run: one group is its value; several are read as digits one after another. */
export function runValue(run: NumberRun): number {
  const text = run.groups.length === 1 ? run.groups[0]! : run.groups.map((g) => g.split('.')[0]).join('');
  const value = Number.parseFloat(text);
  return run.negative ? -value : value;
}

/** The first number in a transcript ("I'd say about twenty three" → 23), or undefined. */
export function parseSpokenNumber(text: string): number | undefined {
  const run = firstRun(words(text));
  if (!run) return undefined;
  const value = runValue(run);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * Every digit a transcript reads out, in order ("nine eight double seven, six five" → "98776 5" without the
 * space), with a leading + when the caller said "plus" or wrote +: the shape of a spoken phone number.
 */
export function spokenDigits(text: string): string {
  // Digits written in blocks ("98765 43210") are one number; a written + is read like the spoken "plus".
  const tokens = words(text.replace(/(\d)[\s-]+(?=\d)/g, '$1').replace(/\+/g, ' plus '));
  let plus = false;
  let digits = '';
  for (let i = 0; i < tokens.length; ) {
    const token = tokens[i]!;
    if (digits === '' && (token === 'plus' || token === '+')) {
      plus = true;
      i++;
      continue;
    }
    const run = readNumberRun(tokens, i);
    if (run) {
      digits += run.groups.map((g) => g.replace(/\D/g, '')).join('');
      i = run.end;
    } else {
      i++;
    }
  }
  return plus && digits ? `+${digits}` : digits;
}
