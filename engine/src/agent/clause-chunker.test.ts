import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ClauseChunker,
  clausesOf,
  COMMA_MIN_CHARS,
  MAX_CLAUSE_CHARS,
  type ClauseChunkerOptions,
} from './clause-chunker.ts';

/** All clauses of `tokens` pushed one by one, then flushed. */
function chunk(tokens: readonly string[], options?: ClauseChunkerOptions): string[] {
  const chunker = new ClauseChunker(options);
  return [...tokens.flatMap((token) => chunker.push(token)), ...chunker.flush()];
}

/** Each character its own token: the harshest split. */
const chars = (text: string): string[] => [...text];

describe('ClauseChunker', () => {
  it('releases a sentence as soon as the space after its period arrives', () => {
    const chunker = new ClauseChunker();
    expect(chunker.push('Sure.')).toEqual([]);
    expect(chunker.push(' I')).toEqual(['Sure.']);
    expect(chunker.push(' can help')).toEqual([]);
    expect(chunker.flush()).toEqual(['I can help']);
  });

  it('cuts at ! ? and … and keeps closing quotes with their sentence', () => {
    expect(chunk(chars('Great! Is that right? "Really?" She paused… Then left.'))).toEqual([
      'Great!',
      'Is that right?',
      '"Really?"',
      'She paused…',
      'Then left.',
    ]);
  });

  it('never splits decimals, thousands, times or domains', () => {
    expect(chunk(chars('It costs 3.50 dollars, or 1,000 cents at 10:30 on example.com today.'))).toEqual([
      'It costs 3.50 dollars,',
      'or 1,000 cents at 10:30 on example.com today.',
    ]);
    expect(chunk(chars('Pi is 3.14159. Next.'))).toEqual(['Pi is 3.14159.', 'Next.']);
  });

  it('does not end a sentence at abbreviations or initials, but does after a dotted word before a capital', () => {
    const text = 'Mr. Smith and Dr. Jones met J. R. Tolkien in the U.S. on Jan. 5, e.g. at 5 p.m. It went well.';
    expect(chunk(chars(text), { firstClauseMinChars: 1000 })).toEqual([
      'Mr. Smith and Dr. Jones met J. R. Tolkien in the U.S. on Jan. 5, e.g. at 5 p.m.',
      'It went well.',
    ]);
  });

  it('does not end a sentence when the next word starts in lowercase', () => {
    expect(chunk(chars('It takes approx. five minutes. Then we go.'))).toEqual([
      'It takes approx. five minutes.',
      'Then we go.',
    ]);
  });

  it('keeps a list number with its item and cuts list items at line breaks', () => {
    expect(chunk(chars('Options:\n1. Pay online\n2. Pay by phone\n'))).toEqual([
      'Options:',
      '1. Pay online',
      '2. Pay by phone',
    ]);
  });

  it('lets the first clause end at a comma early, later ones only when long', () => {
    const long = 'And this later part of the reply is certainly long enough to be cut at its comma,';
    expect(long.length).toBeGreaterThanOrEqual(COMMA_MIN_CHARS);
    expect(chunk(chars(`Well, let me check that, one moment. Short, clause here. ${long} like so.`))).toEqual([
      'Well, let me check that,',
      'one moment.',
      'Short, clause here.',
      long,
      'like so.',
    ]);
  });

  it('cuts at a semicolon or colon once the clause is long enough', () => {
    expect(
      chunk(chars('Yes. Here is what we found for you: two orders; both shipped yesterday afternoon; done.')),
    ).toEqual(['Yes.', 'Here is what we found for you:', 'two orders; both shipped yesterday afternoon;', 'done.']);
  });

  it('cuts CJK sentences without spaces', () => {
    expect(chunk(chars('你好。我可以帮你吗？好的'))).toEqual(['你好。', '我可以帮你吗？', '好的']);
  });

  it('cuts an unpunctuated reply at a space once it reaches the maximum length', () => {
    const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    const clauses = chunk(chars(words));
    expect(clauses.length).toBeGreaterThan(1);
    for (const clause of clauses) expect(clause.length).toBeLessThanOrEqual(MAX_CLAUSE_CHARS);
    expect(clauses.join(' ')).toBe(words);
  });

  it('skips clauses with no words and releases whatever is left at flush', () => {
    expect(chunk(chars('... Okay. 👍'))).toEqual(['... Okay.', '👍']);
    expect(chunk(['   '])).toEqual([]);
  });

  it('starts each reply afresh after flush, first-clause minimum included', () => {
    const chunker = new ClauseChunker();
    chunker.push('One. Two, three four five six seven, eight');
    chunker.flush();
    expect(chunker.push('Hello there friend, how are')).toEqual(['Hello there friend,']);
  });

  it('chunks an async token stream with clausesOf', async () => {
    async function* tokens() {
      yield* ['Hi', '.', ' How', ' are you', '?'];
    }
    const clauses: string[] = [];
    for await (const clause of clausesOf(tokens())) clauses.push(clause);
    expect(clauses).toEqual(['Hi.', 'How are you?']);
  });

  describe('properties', () => {
    const sentenceText = fc
      .array(
        fc.oneof(
          fc.constantFrom('Mr.', 'Dr.', 'e.g.', '3.5', '1,000', '10:30', 'U.S.', '"Yes?"', '…', '\n', '1.', '你好。'),
          fc.constantFrom('.', ',', ';', ':', '!', '?', ' ', ' ', ' '),
          fc.string({ unit: fc.constantFrom(...'abcdefghij ABCDE'.split('')), minLength: 1, maxLength: 12 }),
        ),
        { maxLength: 60 },
      )
      .map((parts) => parts.join(''));
    /** `text` cut into tokens at the given offsets. */
    const tokenise = (text: string, offsets: number[]): string[] => {
      const points = [...new Set(offsets.map((o) => o % (text.length + 1)))].sort((a, b) => a - b);
      const tokens: string[] = [];
      let start = 0;
      for (const point of [...points, text.length]) {
        tokens.push(text.slice(start, point));
        start = point;
      }
      return tokens;
    };

    it('loses and adds nothing but whitespace', () => {
      fc.assert(
        fc.property(sentenceText, fc.array(fc.nat(), { maxLength: 30 }), (text, offsets) => {
          const clauses = chunk(tokenise(text, offsets));
          expect(clauses.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
          for (const clause of clauses) {
            expect(clause).not.toBe('');
            expect(clause).toBe(clause.trim());
          }
        }),
      );
    });

    it('gives the same clauses however the text is split into tokens', () => {
      fc.assert(
        fc.property(sentenceText, fc.array(fc.nat(), { maxLength: 30 }), (text, offsets) => {
          expect(chunk(tokenise(text, offsets))).toEqual(chunk([text]));
        }),
      );
    });

    it('never ends a clause inside a decimal number', () => {
      fc.assert(
        fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', 'b', ' ', '.'), maxLength: 8 })), (parts) => {
          const text = parts.map((part, i) => `${part} ${i}.${i + 5} `).join('');
          const clauses = chunk(chars(text));
          for (const [i, clause] of clauses.entries()) {
            if (i + 1 < clauses.length && /\d\.$/.test(clause)) expect(clauses[i + 1]).not.toMatch(/^\d/);
          }
        }),
      );
    });

    it('keeps every clause within the maximum length', () => {
      fc.assert(
        fc.property(sentenceText, (text) => {
          for (const clause of chunk([text], { maxClauseChars: 40 })) expect(clause.length).toBeLessThanOrEqual(60);
        }),
      );
    });
  });
});
