/**
 * Splits a document's text into search chunks (docs/architecture.md §14): first into sections at headings (Markdown
 * `#` lines; in text without markup, a short title-like line standing alone), then each section's paragraphs into
 * sentences and lines, packed into chunks of about CHUNK_TARGET_CHARS. A chunk never spans two sections, so its
 * heading says what it is about; consecutive chunks of a section share up to CHUNK_OVERLAP_CHARS of sentences, so a
 * passage cut at the seam is still found whole in one of them.
 */
import { CHUNK_MAX_CHARS, CHUNK_OVERLAP_CHARS, CHUNK_TARGET_CHARS } from './limits.ts';

export interface Chunk {
  /** The headings above the chunk, outermost first, joined with " › "; '' before the first heading. */
  heading: string;
  content: string;
}

export interface ChunkOptions {
  /** Recognise title-like lines as headings (plain text, PDFs); Markdown and Word documents mark theirs. */
  guessHeadings?: boolean;
  /**
   * Each paragraph is a record of its own (CSV rows, JSON records): one chunk each, never packed with its
   * neighbours, so a search for one product or question finds that one and not the three around it.
   */
  recordPerChunk?: boolean;
}

const MARKDOWN_HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
/** Title-like: short, a few words, no sentence or field punctuation, no figures (so "Sunday 10–4" is not one). */
const TITLE_LIKE = /^[\p{Lu}][^.!?;:,\d]{0,70}$/u;
const MAX_TITLE_WORDS = 8;

/** Text Postgres can store and the search can read: no NUL, no lone surrogates, one kind of line break. */
export function cleanText(text: string): string {
  return text
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/\u0000/g, '')
    .replace(/\r\n?/g, '\n')
    .replace(/[\t\f\v\u00a0]+/g, ' ');
}

export function chunkText(text: string, options: ChunkOptions = {}): Chunk[] {
  if (options.recordPerChunk) {
    return cleanText(text)
      .split(/\n\s*\n/)
      .flatMap((record) => pack(units(record.split('\n').map((line) => line.trim()))))
      .map((content) => ({ heading: '', content }));
  }
  const chunks: Chunk[] = [];
  for (const section of sections(cleanText(text), options.guessHeadings ?? false)) {
    const heading = section.path.join(' › ');
    for (const content of pack(units(section.lines))) chunks.push({ heading, content });
  }
  return chunks;
}

interface Section {
  path: string[];
  lines: string[];
}

function sections(text: string, guessHeadings: boolean): Section[] {
  const lines = text.split('\n');
  const result: Section[] = [];
  let path: string[] = [];
  let current: Section = { path, lines: [] };
  const open = (next: string[]) => {
    if (current.lines.some((l) => l.trim())) result.push(current);
    path = next;
    current = { path, lines: [] };
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!.trim();
    const markdown = MARKDOWN_HEADING.exec(line);
    if (markdown) {
      const level = markdown[1]!.length;
      open([...path.slice(0, level - 1), markdown[2]!]);
      continue;
    }
    if (guessHeadings && isTitleLike(line, lines[i - 1], lines[i + 1])) {
      open([line]);
      continue;
    }
    current.lines.push(line);
  }
  open([]);
  return result;
}

function isTitleLike(line: string, before: string | undefined, after: string | undefined): boolean {
  if (!TITLE_LIKE.test(line) || line.split(/\s+/).length > MAX_TITLE_WORDS) return false;
  const standsAlone = before === undefined || before.trim() === '';
  return standsAlone && after !== undefined && after.trim() !== '';
}

/** Sentences and lines of a section, in order: the pieces a chunk is made of. */
function units(lines: string[]): string[] {
  const pieces: string[] = [];
  for (const line of lines) {
    if (!line) continue;
    for (const sentence of line.split(/(?<=[.!?…])\s+(?=["'“‘(\[]?[\p{Lu}\d])/u)) {
      const trimmed = sentence.replace(/\s+/g, ' ').trim();
      if (!trimmed) continue;
      pieces.push(...cutLong(trimmed));
    }
  }
  return pieces;
}

/** A piece longer than a chunk may be is cut at words. */
function cutLong(text: string): string[] {
  if (text.length <= CHUNK_MAX_CHARS) return [text];
  const parts: string[] = [];
  let rest = text;
  while (rest.length > CHUNK_MAX_CHARS) {
    const cut = rest.lastIndexOf(' ', CHUNK_TARGET_CHARS);
    const at = cut > CHUNK_TARGET_CHARS / 2 ? cut : CHUNK_TARGET_CHARS;
    parts.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) parts.push(rest);
  return parts;
}

function pack(pieces: string[]): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let length = 0;
  let fresh = 0; // pieces in `current` not carried over from the previous chunk
  for (const piece of pieces) {
    if (length > 0 && fresh > 0 && length + 1 + piece.length > CHUNK_TARGET_CHARS) {
      chunks.push(current.join(' '));
      current = overlap(current);
      length = current.join(' ').length;
      fresh = 0;
    }
    current.push(piece);
    length += (length ? 1 : 0) + piece.length;
    fresh += 1;
  }
  if (fresh > 0) chunks.push(current.join(' '));
  return chunks;
}

/** The last pieces of a chunk, up to CHUNK_OVERLAP_CHARS, to begin the next one with. */
function overlap(pieces: string[]): string[] {
  const carried: string[] = [];
  let length = 0;
  for (let i = pieces.length - 1; i >= 0; i -= 1) {
    const piece = pieces[i]!;
    if (length + piece.length > CHUNK_OVERLAP_CHARS) break;
    carried.unshift(piece);
    length += piece.length + 1;
  }
  return carried;
}
