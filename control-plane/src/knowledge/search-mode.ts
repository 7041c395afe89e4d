/**
 * Which knowledge search this installation runs (docs/architecture.md §14): hybrid — full text and embeddings,
 * fused by reciprocal rank — when an embeddings endpoint is configured and the database has a vector column
 * (migration 015 adds it where a vector type exists: embedded PGlite loads pgvector, a server may not have it);
 * full text alone otherwise. The start log prints `description`, so an operator sees which and why.
 */
import type { Queryable } from '../db/database.ts';
import { OpenAiEmbedder } from '../integrations/embeddings/openai-embeddings.ts';
import type { Embedder } from './embeddings/embedder.ts';
import { hasEmbeddingColumn } from './search-repository.ts';

export interface SearchMode {
  /** Set when search is hybrid: embeds chunks as they are indexed, and queries as they are asked. */
  embedder: Embedder | undefined;
  description: string;
}

export async function chooseSearchMode(
  sql: Queryable,
  embeddings: { baseUrl: string; apiKey: string | undefined; model: string; minSimilarity?: number } | undefined,
): Promise<SearchMode> {
  if (!embeddings) {
    return {
      embedder: undefined,
      description: 'full text (no embeddings endpoint: set PARLEY_EMBEDDINGS_BASE_URL for hybrid search)',
    };
  }
  if (!(await hasEmbeddingColumn(sql))) {
    return {
      embedder: undefined,
      description: 'full text (the database has no vector type: install pgvector for hybrid search)',
    };
  }
  return {
    embedder: new OpenAiEmbedder(embeddings),
    description: `hybrid (full text and ${embeddings.model} embeddings, reciprocal rank fusion)`,
  };
}
