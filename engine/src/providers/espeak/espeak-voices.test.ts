import { describe, expect, it } from 'vitest';
import {
  bcp47,
  parseEspeakVariants,
  parseEspeakVoices,
  resolveEspeakVoice,
  type EspeakVoiceTable,
} from './espeak-voices.ts';

/** Rows as espeak-ng 1.51 prints them (Debian 12). */
const VOICES = `Pty Language       Age/Gender VoiceName          File                 Other Languages
 5  de              --/M      German             gmw/de
 2  en-gb           --/M      English_(Great_Britain) gmw/en               (en 2)
 5  en-gb-x-rp      --/M      English_(Received_Pronunciation) gmw/en-GB-x-rp       (en-gb 4)(en 5)
 2  en-us           --/M      English_(America)  gmw/en-US            (en 3)
 5  yue             --/M      Chinese_(Cantonese) sit/yue              (zh-yue 5)(zh 8)
 5  yue             --/M      Chinese_(Cantonese,_latin_as_Jyutping) sit/yue-Latn-jyutping (zh-yue 5)(zh 8)
 5  cmn             --/M      Chinese_(Mandarin,_latin_as_English) sit/cmn              (zh-cmn 5)(zh 5)
`;
const VARIANTS = `Pty Language       Age/Gender VoiceName          File                 Other Languages
 5  variant         --/F      Annie              !v/Annie
 5  variant         --/F      female3            !v/f3
 5  variant         --/M      male3              !v/m3
`;

const table: EspeakVoiceTable = { voices: parseEspeakVoices(VOICES), variants: parseEspeakVariants(VARIANTS) };

describe('parseEspeakVoices', () => {
  it('reads id, name, BCP-47 language and gender of each row', () => {
    expect(table.voices.find((v) => v.id === 'en-gb-x-rp')).toMatchObject({
      name: 'English (Received Pronunciation)',
      language: 'en-GB-x-rp',
      gender: 'MALE',
      serves: [
        { language: 'en-gb', priority: 4 },
        { language: 'en', priority: 5 },
      ],
    });
  });

  it('gives a second row of the same language its file name as id, which -v also accepts', () => {
    expect(table.voices.filter((v) => v.language === 'yue').map((v) => v.id)).toEqual(['yue', 'yue-Latn-jyutping']);
  });
});

describe('resolveEspeakVoice', () => {
  it('takes a known voice id, with a variant in the spelling espeak-ng files it under', () => {
    expect(resolveEspeakVoice(table, 'EN-US', undefined, 'en-us')).toBe('en-us');
    expect(resolveEspeakVoice(table, 'en-us+annie', undefined, 'en-us')).toBe('en-us+Annie');
  });

  it('refuses an unknown voice or variant (espeak-ng would fall back without a word)', () => {
    expect(() => resolveEspeakVoice(table, 'xx', undefined, 'en-us')).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
    expect(() => resolveEspeakVoice(table, 'en-us+nobody', undefined, 'en-us')).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
    expect(() => resolveEspeakVoice(table, 'en-us+f3+m3', undefined, 'en-us')).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  });

  it('picks by language: the exact tag, else the voice serving it with the best priority, else its primary language', () => {
    expect(resolveEspeakVoice(table, undefined, 'en-US', 'x')).toBe('en-us');
    expect(resolveEspeakVoice(table, undefined, 'en', 'x')).toBe('en-gb');
    expect(resolveEspeakVoice(table, undefined, 'zh', 'x')).toBe('cmn');
    expect(resolveEspeakVoice(table, undefined, 'de-AT', 'x')).toBe('de');
    expect(resolveEspeakVoice(table, undefined, undefined, 'en-us')).toBe('en-us');
    expect(() => resolveEspeakVoice(table, undefined, 'tlh', 'x')).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  });
});

describe('bcp47', () => {
  it('upper-cases regions and title-cases scripts, leaving private-use subtags alone', () => {
    expect(bcp47('en-us')).toBe('en-US');
    expect(bcp47('en-029')).toBe('en-029');
    expect(bcp47('sr-latn-rs')).toBe('sr-Latn-RS');
    expect(bcp47('en-gb-x-rp')).toBe('en-GB-x-rp');
  });
});
