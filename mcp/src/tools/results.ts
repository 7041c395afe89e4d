/**
 * How tool results look to an AI host (spec document 2, MCP rules 3 to 5): compact JSON text (every byte is a token
 * of the host's context), scrubbed; lists of 20 by
 * default and at most 100, each item trimmed to `fields` when asked, the whole cut at about 30 KB with a note saying
 * how to narrow the request; REST errors as results (isError), never as transport failures.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { scrub, scrubText } from './scrub.ts';

export const DEFAULT_LIST_LIMIT = 20;
export const MAX_LIST_LIMIT = 100;
/** "A result is cut at roughly 30 KB": large enough for a page of full records, small enough for a host's context. */
export const RESULT_BUDGET_BYTES = 30_000;

export interface ListPage {
  items: readonly unknown[];
  /** Matches over all pages, when the REST API says. */
  total?: number;
  page?: number;
  offset?: number;
  limit: number;
}

function pick(item: unknown, fields: readonly string[] | undefined): unknown {
  if (!fields?.length || !item || typeof item !== 'object' || Array.isArray(item)) return item;
  const record = item as Record<string, unknown>;
  return Object.fromEntries(fields.filter((field) => field in record).map((field) => [field, record[field]]));
}

/** Bytes of the list's JSON without any items: the envelope every cut keeps. */
function envelopeBytes(shown: Record<string, unknown>): number {
  return Buffer.byteLength(JSON.stringify({ ...shown, items: [] }));
}

/** One page of a list, trimmed to `fields`, as many whole items as fit the budget. */
export function listResult(page: ListPage, fields?: readonly string[]): CallToolResult {
  const items = scrub(page.items.map((item) => pick(item, fields))) as unknown[];
  const shown: Record<string, unknown> = { items, count: items.length, limit: page.limit };
  if (page.total !== undefined) shown.total = page.total;
  if (page.page !== undefined) shown.page = page.page;
  if (page.offset !== undefined) shown.offset = page.offset;
  const text = JSON.stringify(shown);
  if (Buffer.byteLength(text) <= RESULT_BUDGET_BYTES) return { content: [{ type: 'text', text }] };

  // Each item is measured once (its JSON plus the comma before it), then whole items are kept in order while they
  // fit beside the envelope and the note (whose counts take at most as many digits as the page's length).
  const note = (kept: number) =>
    `Cut at about 30 KB: ${kept} of the ${items.length} items on this page are shown. ` +
    'Narrow the request: ask for fewer items (limit), only the keys you need (fields), or add filters.';
  let room = RESULT_BUDGET_BYTES - envelopeBytes({ ...shown, count: items.length, note: note(items.length) });
  let kept = 0;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item)) + (kept > 0 ? 1 : 0);
    if (size > room) break;
    room -= size;
    kept++;
  }
  shown.items = items.slice(0, kept);
  shown.count = kept;
  shown.note = note(kept);
  return { content: [{ type: 'text', text: JSON.stringify(shown) }] };
}

/** One record or any other answer, scrubbed, cut at the budget with the same advice when it is larger. */
export function valueResult(value: unknown): CallToolResult {
  const text = JSON.stringify(scrub(value));
  if (Buffer.byteLength(text) <= RESULT_BUDGET_BYTES) return { content: [{ type: 'text', text }] };
  const cut = Buffer.from(text).subarray(0, RESULT_BUDGET_BYTES).toString('utf8');
  return {
    content: [
      { type: 'text', text: cut },
      {
        type: 'text',
        text: 'Cut at about 30 KB (the JSON above is incomplete). Narrow the request: ask for fewer items, only the fields you need, or a single record.',
      },
    ],
  };
}

/** A refusal or failure the host should show its user. */
export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: scrubText(text) }] };
}

/** Plain prose (help, previews' explanations). */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text: scrubText(text) }] };
}
