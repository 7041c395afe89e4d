import { describe, expect, it } from 'vitest';
import { RECOGNISER_LOST_LINES, recogniserLostLine } from './recogniser-lost.ts';

describe('recogniserLostLine', () => {
  it('apologises in the agent’s language, by its primary subtag', () => {
    expect(recogniserLostLine({ language: 'en-US', closingMessage: null }, {})).toBe(RECOGNISER_LOST_LINES.en);
    expect(recogniserLostLine({ language: 'ES-mx', closingMessage: null }, {})).toBe(RECOGNISER_LOST_LINES.es);
    expect(recogniserLostLine({ language: 'hi-IN', closingMessage: undefined }, {})).toBe(RECOGNISER_LOST_LINES.hi);
  });

  it('ends with the agent’s own closing message, its placeholders filled', () => {
    const line = recogniserLostLine(
      { language: 'de-DE', closingMessage: 'Auf Wiederhören, {{name}}.' },
      { name: 'Ravi' },
    );
    expect(line).toBe(`${RECOGNISER_LOST_LINES.de} Auf Wiederhören, Ravi.`);
  });

  it('says the closing message alone in a language it has no apology for, else the English apology', () => {
    expect(recogniserLostLine({ language: 'ta-IN', closingMessage: 'நன்றி, வணக்கம்.' }, {})).toBe('நன்றி, வணக்கம்.');
    expect(recogniserLostLine({ language: 'ta-IN', closingMessage: null }, {})).toBe(RECOGNISER_LOST_LINES.en);
    // A subtag that names an object property is not a language here.
    expect(recogniserLostLine({ language: 'constructor', closingMessage: null }, {})).toBe(RECOGNISER_LOST_LINES.en);
  });
});
