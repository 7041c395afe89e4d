/**
 * What a knowledge step says when no language model is there to answer from the search results: the best hit,
 * read out as found, cut to a few sentences. Search answers come in several shapes (knowledge chunks, product
 * results, plain text, or those wrapped in `results` / `data`), so the text is looked for where they keep it.
 */

/** About fifteen seconds of speech: a caller can follow that much read-out text, not a page. */
export const MAX_READ_OUT_CHARS = 300;

/** How far wrappers ({ data: { results: [...] } }) are opened; search answers are never deeper than this. */
const MAX_UNWRAP_DEPTH = 4;

const LIST_KEYS = ['results', 'data', 'items', 'chunks', 'documents', 'matches', 'products'];
const TEXT_KEYS = ['answer', 'text', 'content', 'snippet', 'chunk', 'short_description', 'description', 'summary'];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function productLine(hit: Record<string, unknown>): string | undefined {
  if (typeof hit.name !== 'string' || hit.price === undefined) return undefined;
  const price = `${String(hit.price)}${typeof hit.currency === 'string' ? ` ${hit.currency}` : ''}`;
  const stock = hit.in_stock === false ? ', currently out of stock' : '';
  const about = typeof hit.short_description === 'string' && hit.short_description ? ` ${hit.short_description}` : '';
  return `${hit.name}, ${price}${stock}.${about}`;
}

function bestText(value: unknown, depth: number): string | undefined {
  if (depth > MAX_UNWRAP_DEPTH) return undefined;
  if (typeof value === 'string') {
    try {
      return bestText(JSON.parse(value), depth + 1);
    } catch {
      return value.trim() || undefined;
    }
  }
  if (Array.isArray(value)) return value.length ? bestText(value[0], depth + 1) : undefined;
  if (!isRecord(value)) return undefined;
  const product = productLine(value);
  if (product) return product;
  for (const key of TEXT_KEYS) {
    if (typeof value[key] === 'string' && value[key].trim()) return value[key].trim();
  }
  for (const key of LIST_KEYS) {
    if (key in value) return bestText(value[key], depth + 1);
  }
  return undefined;
}

/** Cuts at the last sentence end that fits, else at a word, so the voice never stops mid-word. */
function fitForSpeech(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= MAX_READ_OUT_CHARS) return flat;
  const head = flat.slice(0, MAX_READ_OUT_CHARS);
  const sentence = Math.max(head.lastIndexOf('. '), head.lastIndexOf('? '), head.lastIndexOf('! '));
  if (sentence > MAX_READ_OUT_CHARS / 3) return head.slice(0, sentence + 1);
  return `${head.slice(0, head.lastIndexOf(' ')).replace(/[,;:]$/, '')}.`;
}

/** The top search hit as a line to speak, or undefined when the search found nothing usable. */
export function readOutTopHit(result: unknown): string | undefined {
  const text = bestText(result, 0);
  return text ? fitForSpeech(text) : undefined;
}
