import { describe, expect, it } from 'vitest';
import { cleanTranscript } from './transcript.ts';

describe('cleanTranscript', () => {
  it('joins the lines of several stretches of speech and drops the empty ones', () => {
    expect(cleanTranscript('please call me back\n\nthank you\n')).toBe('please call me back thank you');
  });

  it('drops sentence, silence and noise fillers and alternate-pronunciation markers, and lower-cases', () => {
    expect(cleanTranscript('<s> READ(2) the [NOISE] book <sil> ++BREATH++ </s>')).toBe('read the book');
  });

  it('is empty when nothing was heard', () => {
    expect(cleanTranscript('\n')).toBe('');
    expect(cleanTranscript('<s> <sil> </s>')).toBe('');
  });
});
