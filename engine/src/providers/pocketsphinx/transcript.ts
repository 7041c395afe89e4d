/**
 * What pocketsphinx prints, made into the words a caller said. `pocketsphinx_continuous` prints one line per
 * stretch of speech its own voice-activity detector found, and an empty line for a stretch it heard nothing in.
 * Hypotheses normally hold plain dictionary words, but filler and alternate-pronunciation tokens can show up
 * (with other flags or models), and none of them is something a person said.
 */

/** Sentence and silence markers (`<s>`, `</s>`, `<sil>`), noise fillers (`[NOISE]`, `++BREATH++`). */
const FILLER_TOKEN = /^(<[^>]*>|\[[^\]]*\]|\+\+[^+]*\+\+)$/;
/** The alternate-pronunciation suffix of a dictionary entry: `read(2)` is the word `read`. */
const ALTERNATE_SUFFIX = /\(\d+\)$/;

/** The words of pocketsphinx's output, lower-case, separated by single spaces; '' when it heard no words. */
export function cleanTranscript(output: string): string {
  return output
    .split(/\s+/)
    .filter((token) => token !== '' && !FILLER_TOKEN.test(token))
    .map((token) => token.replace(ALTERNATE_SUFFIX, '').toLowerCase())
    .filter((word) => word !== '')
    .join(' ');
}
