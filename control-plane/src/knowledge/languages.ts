/**
 * The text search configuration a document is indexed and searched with: its language's stemmer and stop words,
 * so "opening" finds "open" and "what time do you" does not count. Only configurations every supported Postgres
 * ships (15 and later, and PGlite) are offered; anything else is a 400 naming the field.
 */
import { badField } from '../errors.ts';

/** Postgres configuration by ISO 639-1 code. `simple` (no stemming, no stop words) suits every other language. */
const CONFIGURATIONS: Record<string, string> = {
  da: 'danish',
  nl: 'dutch',
  en: 'english',
  fi: 'finnish',
  fr: 'french',
  de: 'german',
  hu: 'hungarian',
  it: 'italian',
  no: 'norwegian',
  nb: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  es: 'spanish',
  sv: 'swedish',
  tr: 'turkish',
};
const NAMES = new Set([...Object.values(CONFIGURATIONS), 'simple']);

/** The default: the language of the product's own documents and of most agents. */
export const DEFAULT_SEARCH_CONFIGURATION = 'english';

/** Languages a caller may name: configuration names and language codes (en, en-US, fr, …). */
export const LANGUAGE_CHOICES = [...NAMES, ...Object.keys(CONFIGURATIONS)].sort();

/** The configuration for `language` (a configuration name, or a language tag whose first part is known). */
export function searchConfiguration(language: string | undefined, field = 'language'): string {
  if (language === undefined || language.trim() === '') return DEFAULT_SEARCH_CONFIGURATION;
  const value = language.trim().toLowerCase();
  if (NAMES.has(value)) return value;
  const code = value.split(/[-_]/)[0]!;
  const configuration = CONFIGURATIONS[code];
  if (!configuration) throw badField(field, `must be one of: ${LANGUAGE_CHOICES.join(', ')} (or a tag such as en-US)`);
  return configuration;
}
