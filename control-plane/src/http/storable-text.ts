/**
 * One rule for text, whatever the route: a string Postgres cannot store is refused with a 400 naming its field,
 * before validation and before any handler sees it. Postgres refuses U+0000 in `text` and `jsonb`, and a lone UTF-16
 * surrogate in `jsonb` (in `text` it would be silently turned into U+FFFD); left alone, either answered 500 from
 * deep inside a query. Checking the parsed values rather than each schema's strings also covers free-form JSON
 * (metadata, variables) and object keys, and a route added later gets the rule without declaring anything.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badField } from '../errors.ts';

/** NUL, or a surrogate half without its partner (the `u` flag makes a well-formed pair one code point). */
const UNSTORABLE = /[\u0000\uD800-\uDFFF]/u;

const PARTS = ['params', 'query', 'body'] as const;

/**
 * `exempt`: doors whose text is passed on to the routes above rather than stored (the MCP server calls them
 * in-process, and the spec wants their refusals back as tool results, not as transport failures).
 */
export function installStorableTextRule(app: FastifyInstance, exempt: (url: string) => boolean = () => false): void {
  app.addHook('preValidation', async (request: FastifyRequest) => {
    if (exempt(request.routeOptions.url ?? '')) return;
    for (const part of PARTS) {
      const field = unstorableField(request[part]);
      if (field !== undefined) throw badField(field || part, 'must not contain NUL or unpaired surrogate characters');
    }
  });
}

/**
 * The dotted path of the first string (value or key) Postgres cannot store, '' for the value itself, or undefined.
 * Iterative, not recursive: a megabyte of `[[[[…` nests deeper than the call stack allows.
 */
export function unstorableField(value: unknown): string | undefined {
  const pending: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (typeof next.value === 'string') {
      if (UNSTORABLE.test(next.value)) return next.path;
      continue;
    }
    if (typeof next.value !== 'object' || next.value === null || Buffer.isBuffer(next.value)) continue;
    for (const [key, child] of Object.entries(next.value)) {
      const path = next.path ? `${next.path}.${key}` : key;
      if (UNSTORABLE.test(key)) return path;
      pending.push({ value: child, path });
    }
  }
  return undefined;
}
