/**
 * Cuts the LLM's streamed reply into clauses for TTS, each released the moment it is complete, so the first audio
 * is synthesised while the model is still writing the rest (docs/architecture.md §3 step 4).
 *
 * A clause ends at a sentence end (. ! ? … and the CJK 。！？), at a line break, at ; or : once the clause is long
 * enough, and at a comma only once it is long — short comma phrases synthesised alone sound choppy. The first
 * clause of a reply has a shorter minimum: getting the first words out sooner is what the caller hears as speed.
 * A period is not a sentence end inside a number (3.5), after a known abbreviation (Mr., Dr., e.g.), an initial
 * (J.), a list number opening the clause (1.), or when the next word starts in lowercase ("the U.S. team"). A
 * reply without punctuation is still cut, at a space, once it runs past a maximum.
 *
 * Every decision looks only at text already received (waiting for the character after a period, say, before
 * deciding), so the clauses do not depend on how the reply was split into tokens.
 */

export interface ClauseChunkerOptions {
  /** The first clause may end at a comma, semicolon or colon once it has this many characters. */
  firstClauseMinChars?: number;
  /** Later clauses end at a semicolon or colon once they have this many characters. */
  clauseMinChars?: number;
  /** Later clauses end at a comma once they have this many characters. */
  commaMinChars?: number;
  /** A clause with no boundary is cut at its last space once it reaches this many characters. */
  maxClauseChars?: number;
}

/** ~2 words: "Well, actually," is worth speaking before the rest arrives; "So," alone is not. */
export const FIRST_CLAUSE_MIN_CHARS = 12;
/** Later clauses are synthesised while earlier ones play, so they can wait for a natural pause. */
export const CLAUSE_MIN_CHARS = 24;
/** Later commas cut only long clauses (about ten words): list-like commas keep their flow. */
export const COMMA_MIN_CHARS = 60;
/** ~15 s of speech: a model that never punctuates must not starve the TTS until the end of the reply. */
export const MAX_CLAUSE_CHARS = 240;

const SENTENCE_ENDS = new Set(['.', '!', '?', '…']);
const CJK_SENTENCE_ENDS = new Set(['。', '！', '？']);
const CLAUSE_MARKS = new Set([',', ';', ':']);
const CJK_CLAUSE_MARKS = new Set(['，', '；', '：']);
/** Closing quotes and brackets that belong to the clause before a boundary: `"Really?" she asked`. */
const CLOSERS = new Set(['"', "'", '”', '’', ')', ']', '}', '»', '」', '』']);
/**
 * Lowercase words that end with a period without ending the sentence (besides initials). Other dotted words
 * (U.S., p.m.) end one when an uppercase word follows: "at 5 p.m. It went well".
 */
const ABBREVIATIONS = new Set([
  'e.g',
  'i.e',
  'cf',
  'viz',
  'mr',
  'mrs',
  'ms',
  'mx',
  'dr',
  'prof',
  'rev',
  'hon',
  'sr',
  'jr',
  'st',
  'mt',
  'ft',
  'gen',
  'col',
  'lt',
  'sgt',
  'capt',
  'gov',
  'sen',
  'rep',
  'pres',
  'vs',
  'approx',
  'apt',
  'dept',
  'est',
  'fig',
  'ext',
  'tel',
  'inc',
  'ltd',
  'corp',
  'co',
  'jan',
  'feb',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
]);

const WHITESPACE = /\s/;
const HAS_WORD_CHARACTER = /[\p{L}\p{N}]/u;
const LOWERCASE_LETTER = /\p{Ll}/u;

type Decision = { kind: 'wait' } | { kind: 'skip'; to: number } | { kind: 'cut'; end: number };
type BoundaryKind = 'sentence' | 'clause' | 'comma';

export class ClauseChunker {
  readonly #firstMin: number;
  readonly #clauseMinChars: number;
  readonly #commaMinChars: number;
  readonly #maxChars: number;
  /** Text not yet released, starting at the current clause's first non-space character. */
  #buffer = '';
  /** Positions of #buffer before this one hold no boundary. */
  #scannedUpTo = 0;
  /** Clauses released in this reply; 0 means the next one is the first. */
  #released = 0;

  constructor(options: ClauseChunkerOptions = {}) {
    this.#firstMin = options.firstClauseMinChars ?? FIRST_CLAUSE_MIN_CHARS;
    this.#clauseMinChars = options.clauseMinChars ?? CLAUSE_MIN_CHARS;
    this.#commaMinChars = options.commaMinChars ?? COMMA_MIN_CHARS;
    this.#maxChars = options.maxClauseChars ?? MAX_CLAUSE_CHARS;
  }

  /** Adds streamed text; returns the clauses it completed (trimmed, in order; often none). */
  push(text: string): string[] {
    this.#buffer += text;
    if (this.#scannedUpTo === 0) this.#buffer = this.#buffer.trimStart();
    const clauses: string[] = [];
    let i = this.#scannedUpTo;
    while (i < this.#buffer.length) {
      const decision = i >= this.#maxChars ? this.#forcedCut(i) : this.#decide(i);
      if (decision.kind === 'wait') break;
      if (decision.kind === 'skip') {
        i = decision.to;
        continue;
      }
      clauses.push(this.#buffer.slice(0, decision.end).trim());
      this.#released += 1;
      this.#buffer = this.#buffer.slice(decision.end).trimStart();
      i = 0;
    }
    this.#scannedUpTo = i;
    return clauses;
  }

  /** The reply ended: returns what is left as a last clause, and readies the chunker for the next reply. */
  flush(): string[] {
    const rest = this.#buffer.trim();
    this.#buffer = '';
    this.#scannedUpTo = 0;
    this.#released = 0;
    return rest === '' ? [] : [rest];
  }

  #decide(i: number): Decision {
    const buffer = this.#buffer;
    const c = buffer[i] as string;
    if (c === '\n') return this.#boundary(i + 1, 'sentence');
    if (SENTENCE_ENDS.has(c)) return this.#sentenceEnd(i);
    if (CJK_SENTENCE_ENDS.has(c) || CJK_CLAUSE_MARKS.has(c)) {
      const end = this.#pastClosers(i + 1);
      if (end >= buffer.length) return { kind: 'wait' };
      return this.#boundary(end, CJK_SENTENCE_ENDS.has(c) ? 'sentence' : c === '，' ? 'comma' : 'clause');
    }
    if (CLAUSE_MARKS.has(c)) {
      const end = this.#pastClosers(i + 1);
      if (end >= buffer.length) return { kind: 'wait' };
      // "1,000" and "10:30" have no space after the mark.
      if (!WHITESPACE.test(buffer[end] as string)) return { kind: 'skip', to: end };
      return this.#boundary(end, c === ',' ? 'comma' : 'clause');
    }
    return { kind: 'skip', to: i + 1 };
  }

  #sentenceEnd(i: number): Decision {
    const buffer = this.#buffer;
    let runEnd = i;
    while (runEnd < buffer.length && SENTENCE_ENDS.has(buffer[runEnd] as string)) runEnd += 1;
    const end = this.#pastClosers(runEnd);
    if (end >= buffer.length) return { kind: 'wait' };
    // No space after it: a decimal point (3.5), a domain (example.com), "?!" mid-word.
    if (!WHITESPACE.test(buffer[end] as string)) return { kind: 'skip', to: end };
    const run = buffer.slice(i, runEnd);
    if (/^[.…]+$/.test(run)) {
      if (run === '.' && this.#abbreviationBefore(i)) return { kind: 'skip', to: end };
      let next = end;
      while (next < buffer.length && WHITESPACE.test(buffer[next] as string)) next += 1;
      if (next >= buffer.length) return { kind: 'wait' };
      if (LOWERCASE_LETTER.test(buffer[next] as string)) return { kind: 'skip', to: end };
    }
    return this.#boundary(end, 'sentence');
  }

  /** True when the period at `dot` ends a known abbreviation, an initial or a list number opening the clause. */
  #abbreviationBefore(dot: number): boolean {
    let start = dot;
    while (start > 0 && !WHITESPACE.test(this.#buffer[start - 1] as string)) start -= 1;
    const word = this.#buffer.slice(start, dot).replace(/^[("'“‘[]+/, '');
    if (word === '') return false;
    if (/^\d+$/.test(word)) return start === 0;
    if (/^\p{L}$/u.test(word)) return true;
    return ABBREVIATIONS.has(word.toLowerCase());
  }

  #boundary(end: number, kind: BoundaryKind): Decision {
    const clause = this.#buffer.slice(0, end).trim();
    if (!HAS_WORD_CHARACTER.test(clause)) return { kind: 'skip', to: end };
    if (kind !== 'sentence') {
      const first = this.#released === 0;
      const min = first ? this.#firstMin : kind === 'comma' ? this.#commaMinChars : this.#clauseMinChars;
      if (clause.length < min) return { kind: 'skip', to: end };
    }
    return { kind: 'cut', end };
  }

  /** At the maximum length with no boundary: cut at the last space, or mid-word if there is none. */
  #forcedCut(i: number): Decision {
    for (let k = i - 1; k > 0; k -= 1) {
      if (WHITESPACE.test(this.#buffer[k] as string)) return { kind: 'cut', end: k };
    }
    return { kind: 'cut', end: i };
  }

  #pastClosers(from: number): number {
    let end = from;
    while (end < this.#buffer.length && CLOSERS.has(this.#buffer[end] as string)) end += 1;
    return end;
  }
}

/** The clauses of a token stream: a convenience over ClauseChunker for `for await` pipelines. */
export async function* clausesOf(
  tokens: AsyncIterable<string>,
  options?: ClauseChunkerOptions,
): AsyncGenerator<string, void, undefined> {
  const chunker = new ClauseChunker(options);
  for await (const token of tokens) yield* chunker.push(token);
  yield* chunker.flush();
}
