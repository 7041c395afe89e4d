import { describe, expect, it } from 'vitest';
import type { CapturedField } from '../../protocol/flow-definition.ts';
import { captureFromDtmf, captureFromText, normaliseExtracted, parseChoice, parseYesNo } from './capture.ts';
import { parseDtmfDate, parseSpokenDate } from './spoken-date.ts';
import { parseSpokenNumber, spokenDigits } from './spoken-number.ts';

const TODAY = '2026-03-10'; // a Tuesday

const field = (type: CapturedField['type'], extra: Partial<CapturedField> = {}): CapturedField => ({
  key: 'f',
  label: 'F',
  type,
  ...extra,
});
const timeline = field('choice', {
  choices: [
    { value: 'This month', keywords: ['asap', 'right away'] },
    { value: 'Within three months', keywords: ['soon'] },
    { value: 'Later' },
  ],
});

describe('spoken numbers', () => {
  it.each([
    ['twenty three', 23],
    ['I think about twenty-three', 23],
    ['23', 23],
    ['1,200 rupees', 1200],
    ['one hundred and five', 105],
    ['two thousand twenty five', 2025],
    ['three point five', 3.5],
    ['three and a half', 3.5],
    ['nineteen eighty four', 1984],
    ['four two', 42],
    ['a hundred', 100],
    ['two lakh', 200_000],
    ['minus five', -5],
    ['fifteen hundred', 1500],
    ['twelve thousand five hundred', 12_500],
    ['one million two hundred thousand', 1_200_000],
    ['I have 2 kids and 3 dogs', 2],
  ])('reads %j as %d', (text, value) => {
    expect(parseSpokenNumber(text)).toBe(value);
  });

  it('finds no number where none was said, and is not fooled by inherited object keys', () => {
    expect(parseSpokenNumber('no idea')).toBeUndefined();
    expect(parseSpokenNumber('constructor toString')).toBeUndefined();
  });

  it.each([
    ['nine eight seven six five four three two one zero', '9876543210'],
    ['+91 98765 43210', '+919876543210'],
    ['plus nine one nine eight seven double six five four three two one', '+919876654321'],
    ['ninety eight seventy six five four three two one oh', '9876543210'],
    ['my number is 98765-43210', '9876543210'],
    ['zero two zero, triple five', '020555'],
  ])('reads the digits of %j', (text, digits) => {
    expect(spokenDigits(text)).toBe(digits);
  });
});

describe('spoken dates', () => {
  it.each([
    ['tomorrow', '2026-03-11'],
    ['day after tomorrow', '2026-03-12'],
    ['today', '2026-03-10'],
    ['Friday', '2026-03-13'],
    ['next friday', '2026-03-13'],
    ['on Tuesday', '2026-03-17'],
    ['the 15th of March', '2026-03-15'],
    ['March fifteenth twenty twenty six', '2026-03-15'],
    ['June 5 2027', '2027-06-05'],
    ['15/03/2026', '2026-03-15'],
    ['3/15', '2026-03-15'],
    ['2026-03-15', '2026-03-15'],
    ['on the twenty first', '2026-03-21'],
    ['the 2nd', '2026-04-02'],
    ['I may come on March 3rd', '2027-03-03'],
    ['in two weeks', '2026-03-24'],
    ['in a week', '2026-03-17'],
    ['in 3 days', '2026-03-13'],
  ])('reads %j as %s', (text, iso) => {
    expect(parseSpokenDate(text, TODAY)).toBe(iso);
  });

  it('refuses days that do not exist and texts without a date', () => {
    expect(parseSpokenDate('thirty first of April', TODAY)).toBeUndefined();
    expect(parseSpokenDate('no idea', TODAY)).toBeUndefined();
    expect(parseDtmfDate('31042026')).toBeUndefined();
    expect(parseDtmfDate('15032026')).toBe('2026-03-15');
  });
});

describe('yes / no', () => {
  it.each([
    ['yes', true],
    ['Yeah.', true],
    ['yep', true],
    ['1', true],
    ['one', true],
    ["that's right", true],
    ['ok sure', true],
    ['yeah no problem', true],
    ['haan', true],
    ['no', false],
    ['Nope!', false],
    ['2', false],
    ['no, not really', false],
    ["I don't think so", false],
    ['nahi', false],
  ])('reads %j as %s', (text, value) => {
    expect(parseYesNo(text)).toBe(value);
  });

  it.each(["I'm not sure", 'maybe', 'I know', 'hello?'])('hears no answer in %j', (text) => {
    expect(parseYesNo(text)).toBeUndefined();
  });
});

describe('choices', () => {
  it.each([
    ['this month please', 'This month'],
    ['asap', 'This month'],
    ['probably later', 'Later'],
    ['soon I guess', 'Within three months'],
    ['the second one', 'Within three months'],
    ['option 3', 'Later'],
    ['two', 'Within three months'],
    ['the last one', 'Later'],
  ])('reads %j as %j', (text, value) => {
    expect(parseChoice(timeline, text)).toBe(value);
  });

  it('does not take a number inside a sentence as a position', () => {
    expect(parseChoice(timeline, 'I have two kids')).toBeUndefined();
    expect(parseChoice(timeline, 'option 7')).toBeUndefined();
  });

  it('picks by key: its declared key, else its position while no choice declares one', () => {
    expect(captureFromDtmf(timeline, '2')).toBe('Within three months');
    expect(captureFromDtmf(timeline, '4')).toBeUndefined();
    const keyed = field('choice', {
      choices: [
        { value: 'Sales', dtmf: '5' },
        { value: 'Support', dtmf: '6' },
      ],
    });
    expect(captureFromDtmf(keyed, '6')).toBe('Support');
    expect(captureFromDtmf(keyed, '1')).toBeUndefined();
  });
});

describe('capture by type', () => {
  it('reads keys pressed for every type, dropping the terminating #', () => {
    expect(captureFromDtmf(field('yes_no'), '1')).toBe(true);
    expect(captureFromDtmf(field('yes_no'), '2')).toBe(false);
    expect(captureFromDtmf(field('number'), '42#')).toBe(42);
    expect(captureFromDtmf(field('phone'), '9876543210#')).toBe('9876543210');
    expect(captureFromDtmf(field('phone'), '123')).toBeUndefined();
    expect(captureFromDtmf(field('date'), '01052026')).toBe('2026-05-01');
    expect(captureFromDtmf(field('text'), '4711#')).toBe('4711');
    expect(captureFromDtmf(field('number'), '#')).toBeUndefined();
  });

  it('reads transcripts for every type', () => {
    expect(captureFromText(field('number'), 'about twenty three', TODAY)).toBe(23);
    expect(captureFromText(field('phone'), 'it is nine eight seven six five four three two one zero', TODAY)).toBe(
      '9876543210',
    );
    expect(captureFromText(field('phone'), 'five five five', TODAY)).toBeUndefined();
    expect(captureFromText(field('yes_no'), 'yeah', TODAY)).toBe(true);
    expect(captureFromText(timeline, 'right away', TODAY)).toBe('This month');
    expect(captureFromText(field('date'), 'tomorrow works', TODAY)).toBe('2026-03-11');
    expect(captureFromText(field('text'), '  Asha Rao ', TODAY)).toBe('Asha Rao');
  });

  it("tries the step's patterns first, reading their capture group as the field type", () => {
    const patterns = ['order (?:number )?([a-z]{2}\\d+)', 'invalid ('];
    expect(captureFromText(field('text'), 'my order number AB1234 never came', TODAY, patterns)).toBe('AB1234');
    expect(captureFromText(field('number'), 'ref 77, about 12 items', TODAY, ['ref (\\d+)'])).toBe(77);
  });

  it("makes a language model's answer the field's type and refuses one that does not fit", () => {
    expect(normaliseExtracted(field('number'), '23', TODAY)).toBe(23);
    expect(normaliseExtracted(field('number'), 23, TODAY)).toBe(23);
    expect(normaliseExtracted(field('yes_no'), 'Yes.', TODAY)).toBe(true);
    expect(normaliseExtracted(field('yes_no'), false, TODAY)).toBe(false);
    expect(normaliseExtracted(timeline, 'later', TODAY)).toBe('Later');
    expect(normaliseExtracted(timeline, 'next decade', TODAY)).toBeUndefined();
    expect(normaliseExtracted(field('date'), '2026-04-01', TODAY)).toBe('2026-04-01');
    expect(normaliseExtracted(field('phone'), '+44 20 7946 0958', TODAY)).toBe('+442079460958');
    expect(normaliseExtracted(field('text'), { name: 'x' }, TODAY)).toBeUndefined();
    expect(normaliseExtracted(field('text'), null, TODAY)).toBeUndefined();
  });
});
