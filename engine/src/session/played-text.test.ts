import { describe, expect, it } from 'vitest';
import { playedText } from './played-text.ts';

const clauses = [
  { tag: 'a', text: 'Your appointment is on Tuesday.', frames: 50 },
  { tag: 'b', text: 'It starts at ten in the morning and lasts an hour.', frames: 100 },
  { tag: 'c', text: 'Anything else?', frames: 30 },
];

describe('played text', () => {
  it('keeps whole played clauses and the played share of the one in progress', () => {
    const played: Record<string, number> = { a: 50, b: 40 };
    expect(playedText(clauses, (tag) => played[tag] ?? 0)).toBe('Your appointment is on Tuesday. It starts at ten');
  });

  it('is empty when nothing was heard, and everything when all was', () => {
    expect(playedText(clauses, () => 0)).toBe('');
    expect(playedText(clauses, (tag) => ({ a: 50, b: 100, c: 30 })[tag] ?? 0)).toBe(
      'Your appointment is on Tuesday. It starts at ten in the morning and lasts an hour. Anything else?',
    );
  });
});
