/**
 * espeak-ng's voice table (`espeak-ng --voices`) and how a request's voice id or language picks an entry from it.
 * A voice id is the table's language column (`en-us`, `fr-fr`), which is also what `-v` takes; optionally followed
 * by `+<variant>` (`en-us+f3` is female, `en-us+m3`, `en-us+Annie`): the File column of `espeak-ng --voices=variant`
 * without its `!v/`, which changes pitch and timbre.
 */
import { primaryLanguage } from '../local/speech-request.ts';
import { ProviderError } from '../provider-error.ts';
import type { TtsVoice } from '../tts-provider.ts';

/** The provider's name (EspeakTtsProvider's `name`), which its errors carry. */
export const ESPEAK_NAME = 'espeak';

/** One row of `espeak-ng --voices`. */
export interface EspeakVoice extends TtsVoice {
  /** Lower-cased id, for matching. */
  key: string;
  /** Other languages this voice serves and its priority for each (lower is preferred), lower-cased. */
  serves: { language: string; priority: number }[];
  /** Priority for its own language (the Pty column). */
  priority: number;
}

export interface EspeakVoiceTable {
  voices: EspeakVoice[];
  /** Variant names as `-v` wants them (`f3`, `Annie`), by lower-cased name. */
  variants: Map<string, string>;
}

const GENDERS: Record<string, TtsVoice['gender']> = { M: 'MALE', F: 'FEMALE' };

/**
 * Parses `espeak-ng --voices` (or `--voices=variant`):
 * ` 2  en-us           --/M      English_(America)  gmw/en-US            (en 3)`.
 * Two rows can share a language (`yue` twice): the later one takes its file name as id, which `-v` also accepts.
 */
export function parseEspeakVoices(output: string): EspeakVoice[] {
  const voices: EspeakVoice[] = [];
  const taken = new Set<string>();
  for (const line of output.split('\n').slice(1)) {
    const [pty, language, ageGender, name, file, ...rest] = line.trim().split(/\s+/);
    if (
      pty === undefined ||
      language === undefined ||
      ageGender === undefined ||
      name === undefined ||
      file === undefined
    )
      continue;
    let id = language;
    if (taken.has(id.toLowerCase())) id = file.slice(file.lastIndexOf('/') + 1);
    taken.add(id.toLowerCase());
    const serves = [...rest.join(' ').matchAll(/\(([^\s()]+)\s+(\d+)\)/g)].map((m) => ({
      language: m[1]!.toLowerCase(),
      priority: Number(m[2]),
    }));
    const gender = GENDERS[ageGender.slice(ageGender.indexOf('/') + 1)];
    voices.push({
      id,
      key: id.toLowerCase(),
      name: name.replaceAll('_', ' '),
      language: bcp47(language),
      ...(gender ? { gender } : {}),
      serves,
      priority: Number(pty) || 0,
    });
  }
  return voices;
}

/** Variant names from `espeak-ng --voices=variant`, whose File column reads `!v/<name>`. */
export function parseEspeakVariants(output: string): Map<string, string> {
  const variants = new Map<string, string>();
  for (const line of output.split('\n').slice(1)) {
    const file = line.trim().split(/\s+/)[4];
    if (file?.startsWith('!v/')) variants.set(file.slice(3).toLowerCase(), file.slice(3));
  }
  return variants;
}

/**
 * The `-v` argument for a request: its voice id when given (checked against the table), else the best voice for
 * its language, else `defaultVoice`.
 * @param provider the provider's name, for the error: Debian's espeak-ng or its WebAssembly build (../espeak-wasm/)
 * @throws ProviderError `invalid_request` for an unknown voice or variant, or a language no voice speaks
 */
export function resolveEspeakVoice(
  table: EspeakVoiceTable,
  voiceId: string | undefined,
  language: string | undefined,
  defaultVoice: string,
  provider = ESPEAK_NAME,
): string {
  if (voiceId !== undefined) {
    const [base = '', variant, ...extra] = voiceId.split('+');
    const voice = table.voices.find((v) => v.key === base.toLowerCase());
    if (voice === undefined || extra.length > 0)
      throw new ProviderError('invalid_request', provider, `unknown espeak-ng voice "${voiceId}"`);
    if (variant === undefined) return voice.id;
    // espeak-ng falls back to the plain voice for an unknown variant without a word, so check it here.
    const file = table.variants.get(variant.toLowerCase());
    if (file === undefined)
      throw new ProviderError('invalid_request', provider, `unknown espeak-ng voice variant "${variant}"`);
    return `${voice.id}+${file}`;
  }
  if (language === undefined) return defaultVoice;
  const tag = language.toLowerCase().replaceAll('_', '-');
  const found = bestFor(table.voices, tag) ?? bestFor(table.voices, primaryLanguage(tag));
  if (found === undefined)
    throw new ProviderError('invalid_request', provider, `espeak-ng has no voice for language ${language}`);
  return found.id;
}

/** The voice whose own language is `tag`, else the one serving it with the lowest priority number. */
function bestFor(voices: EspeakVoice[], tag: string): EspeakVoice | undefined {
  const own = voices.filter((v) => v.key === tag || v.language.toLowerCase() === tag);
  if (own.length > 0) return own.sort((a, b) => a.priority - b.priority)[0];
  let best: { voice: EspeakVoice; priority: number } | undefined;
  for (const voice of voices) {
    for (const served of voice.serves) {
      if (served.language === tag && (best === undefined || served.priority < best.priority))
        best = { voice, priority: served.priority };
    }
  }
  return best?.voice;
}

/** espeak's `en-gb-x-rp` as BCP-47: `en-GB-x-rp` (region upper-case, script title-case, private use untouched). */
export function bcp47(tag: string): string {
  const parts = tag.split('-');
  let privateUse = false;
  return parts
    .map((part, index) => {
      if (index === 0) return part.toLowerCase();
      if (part.toLowerCase() === 'x') privateUse = true;
      if (privateUse) return part;
      if (/^[a-z]{2}$/i.test(part) || /^\d{3}$/.test(part)) return part.toUpperCase();
      if (/^[a-z]{4}$/i.test(part)) return part[0]!.toUpperCase() + part.slice(1).toLowerCase();
      return part.toLowerCase();
    })
    .join('-');
}
