/**
 * Reading an answer into a typed field without a language model: from keys pressed, or from the transcript of
 * what the caller said. Also the check applied to what a language model extracted, so a model's "23" or "Yes."
 * becomes the same value a transcript would have given, and an answer outside a field's choices is refused.
 *
 * Values by type: number → number; phone → digits with an optional leading +; yes_no → boolean;
 * choice → the choice's `value`; date → ISO date (YYYY-MM-DD); text → the trimmed words.
 */
import { DEFAULT_MAX_DIGITS, type CapturedField } from '../../protocol/flow-definition.ts';
import { parseDtmfDate, parseSpokenDate } from './spoken-date.ts';
import { parseSpokenNumber, readNumberRun, runValue, spokenDigits } from './spoken-number.ts';
import { firstPhrase, lookup, normalise, words } from './text-match.ts';

/** Fewer digits is not a phone number anywhere (the shortest subscriber numbers have 7). */
export const MIN_PHONE_DIGITS = 7;
/** E.164's maximum length, country code included. */
export const MAX_PHONE_DIGITS = DEFAULT_MAX_DIGITS.phone;

const YES = [
  'yes',
  'yeah',
  'yea',
  'yep',
  'yup',
  'ya',
  'sure',
  'certainly',
  'correct',
  'thats right',
  'that is right',
  'affirmative',
  'ok',
  'okay',
  'alright',
  'absolutely',
  'definitely',
  'of course',
  'please do',
  'confirm',
  'confirmed',
  'i do',
  'i will',
  'go ahead',
  'sounds good',
  'no problem',
  'no worries',
  'haan',
  'han',
  'ji haan',
];
const NO = [
  'no',
  'nope',
  'nah',
  'not',
  'negative',
  'dont',
  'do not',
  'cannot',
  'cant',
  'wont',
  'wrong',
  'incorrect',
  'never',
  'cancel',
  'nahi',
  'nahin',
];
/** Hedges are no answer at all: "not sure" must not count as the "not" of a no. */
const UNSURE = ['not sure', 'dont know', 'do not know', 'maybe', 'unsure', 'no idea', 'perhaps'];
/** A lone "1" or "2" answers "say or press 1 for yes, 2 for no". */
const YES_NO_DIGITS = lookup({ '1': true, one: true, '2': false, two: false });

const ORDINAL_WORDS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth'];
/** Words around a bare number that still make it a choice by position ("option two", "number 3"). */
const POSITION_FILLERS = new Set([
  'option',
  'number',
  'choice',
  'press',
  'the',
  'one',
  'please',
  'i',
  'pick',
  'choose',
  'want',
]);

export function parseYesNo(text: string): boolean | undefined {
  const norm = normalise(text);
  if (YES_NO_DIGITS.has(norm)) return YES_NO_DIGITS.get(norm);
  if (firstPhrase(norm, UNSURE)) return undefined;
  const yes = firstPhrase(norm, YES);
  const no = firstPhrase(norm, NO);
  if (yes && no) {
    // "yeah, no problem" vs "no, not really": the answer comes first; on the same word the longer phrase wins.
    if (yes.index !== no.index) return yes.index < no.index;
    return words(yes.phrase).length >= words(no.phrase).length;
  }
  return yes ? true : no ? false : undefined;
}

function choiceByPosition(field: CapturedField, position: number): string | undefined {
  return Number.isInteger(position) ? field.choices?.[position - 1]?.value : undefined;
}

export function parseChoice(field: CapturedField, text: string): string | undefined {
  const choices = field.choices ?? [];
  let best: { value: string; index: number } | undefined;
  for (const choice of choices) {
    const hit = firstPhrase(text, [choice.value, ...(choice.keywords ?? [])]);
    if (hit && (!best || hit.index < best.index)) best = { value: choice.value, index: hit.index };
  }
  if (best) return best.value;
  const tokens = words(text);
  const ordinal = tokens.find((word) => ORDINAL_WORDS.includes(word));
  if (ordinal) return choiceByPosition(field, ORDINAL_WORDS.indexOf(ordinal) + 1);
  if (tokens.includes('last')) return choices.at(-1)?.value;
  // A number counts as a position only in a short answer made of it and filler words.
  for (let i = 0; i < tokens.length; i++) {
    const run = readNumberRun(tokens, i);
    if (!run) continue;
    const rest = [...tokens.slice(0, i), ...tokens.slice(run.end)];
    return rest.every((word) => POSITION_FILLERS.has(word)) ? choiceByPosition(field, runValue(run)) : undefined;
  }
  return undefined;
}

function validPhone(digits: string): string | undefined {
  const count = digits.replace(/^\+/, '').length;
  return count >= MIN_PHONE_DIGITS && count <= MAX_PHONE_DIGITS ? digits : undefined;
}

/** Keys pressed, e.g. "1" or "9876543210#": the terminating # and any * are not part of the answer. */
export function captureFromDtmf(field: CapturedField, keys: string): unknown {
  const digits = keys.replace(/[#*]/g, '');
  if (!digits) return undefined;
  switch (field.type) {
    case 'yes_no':
      return YES_NO_DIGITS.get(digits);
    case 'choice': {
      const choices = field.choices ?? [];
      const declared = choices.find((choice) => choice.dtmf === keys || choice.dtmf === digits);
      if (declared) return declared.value;
      // Position keys apply only while no choice claims its own key, so a declared key never means two things.
      return choices.some((choice) => choice.dtmf) ? undefined : choiceByPosition(field, Number(digits));
    }
    case 'number':
      return Number(digits);
    case 'phone':
      return validPhone(digits);
    case 'date':
      return parseDtmfDate(digits);
    case 'text':
      return digits;
  }
}

/** Reads a typed value from a phrase: the transcript, or the part of it that a pattern picked. */
function readTyped(field: CapturedField, text: string, today: string): unknown {
  switch (field.type) {
    case 'yes_no':
      return parseYesNo(text);
    case 'choice':
      return parseChoice(field, text);
    case 'number':
      return parseSpokenNumber(text);
    case 'phone':
      return validPhone(spokenDigits(text));
    case 'date':
      return parseSpokenDate(text, today);
    case 'text':
      return text.trim() || undefined;
  }
}

/**
 * From the transcript: each of the step's patterns (case-insensitive regular expressions; the first capture group
 * or the whole match) in order, then the whole transcript. Patterns were checked to compile when the flow was saved.
 */
export function captureFromText(
  field: CapturedField,
  text: string,
  today: string,
  patterns: readonly string[] = [],
): unknown {
  for (const source of patterns) {
    let match: RegExpExecArray | null;
    try {
      match = new RegExp(source, 'iu').exec(text);
    } catch {
      continue;
    }
    if (!match) continue;
    const value = readTyped(field, match[1] ?? match[0], today);
    if (value !== undefined) return value;
  }
  return readTyped(field, text, today);
}

/** What a language model extracted, made into the field's type, or undefined when it does not fit the field. */
export function normaliseExtracted(field: CapturedField, value: unknown, today: string): unknown {
  if (value === undefined || value === null) return undefined;
  switch (field.type) {
    case 'number':
      return typeof value === 'number'
        ? Number.isFinite(value)
          ? value
          : undefined
        : readTyped(field, String(value), today);
    case 'yes_no':
      return typeof value === 'boolean' ? value : readTyped(field, String(value), today);
    case 'choice': {
      const text = String(value);
      const exact = field.choices?.find((choice) => normalise(choice.value) === normalise(text));
      return exact ? exact.value : parseChoice(field, text);
    }
    case 'phone':
    case 'date':
    case 'text':
      return typeof value === 'string' || typeof value === 'number'
        ? readTyped(field, String(value), today)
        : undefined;
  }
}
