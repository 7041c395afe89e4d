/**
 * Text out of an uploaded knowledge file, as Markdown-ish plain text the chunker splits along (`#` headings,
 * paragraphs, lines). PDFs through unpdf (pdf.js), Word documents through mammoth (headings kept as `#` lines),
 * CSV rows and JSON values as "field: value" lines, so a search for a value finds its row with its field names.
 * A file that cannot be read is a `KnowledgeFileError` naming it: the document's status becomes error, not a retry.
 */
import { extractText, getDocumentProxy } from 'unpdf';
import mammoth from 'mammoth';
import type { KnowledgeFileKind } from './limits.ts';
import { parseCsv } from './csv.ts';

/** A file whose content cannot be read as its kind; final (a retry reads the same bytes). */
export class KnowledgeFileError extends Error {
  override name = 'KnowledgeFileError';
}

/** How deep JSON is followed: feeds and exports nest a few levels; deeper is data no caller will ask about. */
const MAX_JSON_DEPTH = 8;

export async function extractKnowledgeText(kind: KnowledgeFileKind | 'text', bytes: Uint8Array, fileName: string) {
  try {
    switch (kind) {
      case 'pdf':
        return await pdfText(bytes);
      case 'docx':
        return await docxText(bytes);
      case 'csv':
        return csvText(utf8(bytes));
      case 'json':
        return jsonText(JSON.parse(utf8(bytes)) as unknown);
      default:
        return utf8(bytes);
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new KnowledgeFileError(`${fileName} could not be read as ${kind.toUpperCase()}: ${reason}`, { cause: error });
  }
}

function utf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  // pdf.js takes ownership of the buffer it is given; a copy keeps the stored bytes intact.
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const { text } = await extractText(pdf, { mergePages: false });
    return text.join('\n\n');
  } finally {
    await pdf.destroy();
  }
}

async function docxText(bytes: Uint8Array): Promise<string> {
  const { value: html } = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) });
  return htmlToText(html);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** mammoth's simple HTML (headings, paragraphs, lists, tables) as text with `#` headings. */
function htmlToText(html: string): string {
  return html
    .replace(/<h([1-6])[^>]*>([\s\S]*?)<\/h\1>/g, (_m, level: string, inner: string) => {
      return `\n\n${'#'.repeat(Number(level))} ${inner}\n\n`;
    })
    .replace(/<\/(p|li|tr|table|ul|ol)>|<br\s*\/?>/g, '\n')
    .replace(/<\/t[dh]>/g, ' ')
    .replace(/<[^>]+>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, entity: string) => {
      if (entity[0] === '#') {
        const code = entity[1]?.toLowerCase() === 'x' ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
        return Number.isFinite(code) ? String.fromCodePoint(code) : match;
      }
      return ENTITIES[entity.toLowerCase()] ?? match;
    });
}

/** One paragraph per row: "column: value; column: value." */
function csvText(text: string): string {
  const [header, ...rows] = parseCsv(text);
  if (!header) return '';
  return rows
    .map((row) =>
      row
        .map((value, i) => (value.trim() ? `${header[i]?.trim() || `column ${i + 1}`}: ${value.trim()}` : ''))
        .filter(Boolean)
        .join('; '),
    )
    .filter(Boolean)
    .map((line) => `${line}.`)
    .join('\n\n');
}

/** Each record of a top-level array is a paragraph; values are "path: value" lines. */
function jsonText(value: unknown): string {
  const records = Array.isArray(value) ? value : [value];
  return records
    .map((record) => {
      const lines: string[] = [];
      flatten(record, '', 0, lines);
      return lines.join('\n');
    })
    .filter(Boolean)
    .join('\n\n');
}

function flatten(value: unknown, path: string, depth: number, lines: string[]): void {
  if (value === null || value === undefined || depth > MAX_JSON_DEPTH) return;
  if (Array.isArray(value)) {
    if (value.every((item) => typeof item !== 'object' || item === null)) {
      if (value.length) lines.push(`${path || 'values'}: ${value.join(', ')}`);
      return;
    }
    for (const item of value) flatten(item, path, depth + 1, lines);
    return;
  }
  if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) flatten(item, path ? `${path} ${key}` : key, depth + 1, lines);
    return;
  }
  lines.push(path ? `${path}: ${String(value)}` : String(value));
}
