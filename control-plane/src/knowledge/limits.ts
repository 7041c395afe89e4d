/**
 * The limits of knowledge bases and catalogues (spec document 3, "Files"; docs/architecture.md §14), each with why.
 */

/** At most this many files per knowledge document (spec document 3). */
export const MAX_KNOWLEDGE_FILES = 5;
/** Each uploaded file, and a catalogue's product file, at most 4 MB (spec document 3). */
export const MAX_UPLOAD_FILE_BYTES = 4 * 1024 * 1024;
/** The form's `text` field: as large as one file may be, since it stands for one. */
export const MAX_KNOWLEDGE_TEXT_BYTES = MAX_UPLOAD_FILE_BYTES;
/** A whole multipart request: every file and the text at their limits, plus room for the form's framing. */
export const MAX_KNOWLEDGE_REQUEST_BYTES = (MAX_KNOWLEDGE_FILES + 1) * MAX_UPLOAD_FILE_BYTES + 64 * 1024;
/** Names and descriptions are labels, not content. */
export const MAX_NAME_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 2_000;

/** File kinds a knowledge document takes, by extension (spec document 2: .pdf, .docx, .txt, .md; the CLI adds .csv, .json). */
export const KNOWLEDGE_FILE_KINDS = ['pdf', 'docx', 'txt', 'md', 'csv', 'json'] as const;
export type KnowledgeFileKind = (typeof KNOWLEDGE_FILE_KINDS)[number];
/** A catalogue's product file (spec document 2: .csv or .json). */
export const PRODUCT_FILE_KINDS = ['csv', 'json'] as const;

/** A chunk aims at this many characters: about a paragraph, enough context to answer from, small enough to rank well. */
export const CHUNK_TARGET_CHARS = 800;
/** No chunk is longer than this: a sentence longer than it (tables, lists run together) is cut at words. */
export const CHUNK_MAX_CHARS = 1_200;
/** Text carried over from the end of a chunk to the start of the next, so an answer split across the seam is found. */
export const CHUNK_OVERLAP_CHARS = 150;
/** A document's chunks are written in batches of this many rows: one round trip each, well under the parameter limit. */
export const CHUNK_INSERT_BATCH = 200;
/** More extracted text than this is refused: about 2,500 pages, far beyond what a voice agent can usefully search. */
export const MAX_EXTRACTED_CHARS = 5_000_000;

/** Results a search returns by default, and at most: an agent reads a few passages, not a page of them. */
export const DEFAULT_SEARCH_RESULTS = 5;
export const MAX_SEARCH_RESULTS = 20;
/** The longest query searched: a spoken question, or a typed one, is far shorter. */
export const MAX_QUERY_CHARS = 500;
/** Products in one catalogue file: 4 MB of CSV holds about this many lines of a typical feed. */
export const MAX_PRODUCTS = 50_000;
