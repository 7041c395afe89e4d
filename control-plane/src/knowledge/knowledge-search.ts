/**
 * Searching knowledge bases (docs/architecture.md §14): the REST search, the engine's `v1.kb.search` and the bench
 * all come here. Full text always (search-repository.ts); results carry the chunk's text, its document's name and
 * heading, and a score in [0, 1] (higher is better; comparable within one search, not across searches).
 */
import type { Queryable } from '../db/database.ts';
import { badField } from '../errors.ts';
import { DEFAULT_SEARCH_RESULTS, MAX_QUERY_CHARS, MAX_SEARCH_RESULTS } from './limits.ts';
import { searchChunks, searchLanguages } from './search-repository.ts';

export interface KnowledgeHit {
  document_id: string;
  document_name: string;
  heading: string;
  text: string;
  score: number;
}

export interface KnowledgeQuery {
  organisationId: string;
  /** Only these knowledge bases; undefined searches all of the organisation's. */
  documentIds?: string[];
  query: string;
  limit?: number;
}

/** The quoted phrases of a query ("gift card"), which every hit must hold. */
export function quotedPhrases(query: string): string[] {
  return [...query.matchAll(/"([^"]+)"/g)].map((m) => m[1]!.trim()).filter(Boolean);
}

export function checkQuery(query: string, field = 'query'): string {
  const trimmed = query.trim();
  if (!trimmed) throw badField(field, 'must not be empty');
  if (trimmed.length > MAX_QUERY_CHARS) throw badField(field, `must be at most ${MAX_QUERY_CHARS} characters`);
  return trimmed;
}

export async function searchKnowledge(sql: Queryable, request: KnowledgeQuery): Promise<KnowledgeHit[]> {
  const query = checkQuery(request.query);
  const limit = Math.min(Math.max(request.limit ?? DEFAULT_SEARCH_RESULTS, 1), MAX_SEARCH_RESULTS);
  if (request.documentIds && request.documentIds.length === 0) return [];
  const scope = { organisationId: request.organisationId, documentIds: request.documentIds };
  const hits = [];
  for (const language of await searchLanguages(sql, scope)) {
    hits.push(...(await searchChunks(sql, language, { ...scope, query, phrases: quotedPhrases(query), limit })));
  }
  return hits
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map((hit) => ({
      document_id: hit.document_id,
      document_name: hit.document_name,
      heading: hit.heading,
      text: hit.content,
      score: Math.round(hit.score * 10_000) / 10_000,
    }));
}
