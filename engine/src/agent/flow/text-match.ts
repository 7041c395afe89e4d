/**
 * Matching words in transcripts. Speech recognisers differ in case, punctuation and hyphenation ("Twenty-three.",
 * "twenty three"), so both sides are reduced to lower-case words separated by single spaces before comparing, and
 * phrases match whole words only ("no" must not match inside "know").
 */

/** Lower-case words and digits separated by single spaces; `+` is kept because it starts phone numbers. */
export function normalise(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/[’']/g, '')
    .replace(/[^\p{L}\p{N}+.]+/gu, ' ')
    .replace(/\.(?!\d)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export function words(text: string): string[] {
  const norm = normalise(text);
  return norm ? norm.split(' ') : [];
}

/**
 * Where a phrase first occurs in a text as whole words, as an index into the text's words; -1 when it does not.
 * Both are normalised here, so callers pass raw text.
 */
export function phraseIndex(text: string, phrase: string): number {
  const haystack = words(text);
  const needle = words(phrase);
  if (needle.length === 0) return -1;
  for (let i = 0; i + needle.length <= haystack.length; i++) {
    if (needle.every((word, j) => haystack[i + j] === word)) return i;
  }
  return -1;
}

export function containsPhrase(text: string, phrase: string): boolean {
  return phraseIndex(text, phrase) >= 0;
}

/** The earliest of several phrases in a text, and where; longer phrases win a tie ("no problem" over "no"). */
export function firstPhrase(text: string, phrases: readonly string[]): { phrase: string; index: number } | undefined {
  let best: { phrase: string; index: number; length: number } | undefined;
  for (const phrase of phrases) {
    const index = phraseIndex(text, phrase);
    if (index < 0) continue;
    const length = words(phrase).length;
    if (!best || index < best.index || (index === best.index && length > best.length)) best = { phrase, index, length };
  }
  return best && { phrase: best.phrase, index: best.index };
}

/** A word table that cannot be fooled by a caller saying "constructor" (plain objects inherit such keys). */
export function lookup<V>(entries: Record<string, V>): ReadonlyMap<string, V> {
  return new Map(Object.entries(entries));
}
