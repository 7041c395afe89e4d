/**
 * Searching knowledge bases (docs/architecture.md §14): the REST search, the engine's `v1.kb.search` and the bench
 * all come here. Full text always (search-repository.ts); with an embedder (search-mode.ts) also the chunks nearest
 * to the question's embedding, the two rankings fused by reciprocal rank (each list contributes 1 / (60 + rank)),
 * so a passage both find ranks first and one only the embeddings find (other words, a misheard spelling) is still
 * found. Results carry the chunk's text, its document's name and heading, and a score (higher is better;
 * comparable within one search, not across searches or modes).
 */
import type { Queryable } from '../db/database.ts';
import { badField } from '../errors.ts';
import type { Embedder } from './embeddings/embedder.ts';
import { DEFAULT_SEARCH_RESULTS, MAX_QUERY_CHARS, MAX_SEARCH_RESULTS } from './limits.ts';
import {
  COMMON_WORD_CHUNKS,
  READ_SHARE,
  nearestChunks,
  scopeWords,
  searchChunks,
  wordsQuery,
  type ChunkHitRow,
} from './search-repository.ts';

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

/** Reciprocal rank fusion's constant: 60, as in Cormack et al., keeps one list's top rank from drowning the other. */
export const RRF_K = 60;
/** Candidates each ranking brings to the fusion: a few times the results, so a passage second in both still wins. */
const FUSION_CANDIDATES = 20;
/** The question's embedding must come this fast, ms, or the search goes on with full text alone: a caller waits. */
export const QUERY_EMBEDDING_TIMEOUT_MS = 800;

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

export async function searchKnowledge(
  sql: Queryable,
  request: KnowledgeQuery,
  embedder?: Embedder,
): Promise<KnowledgeHit[]> {
  const query = checkQuery(request.query);
  const limit = Math.min(Math.max(request.limit ?? DEFAULT_SEARCH_RESULTS, 1), MAX_SEARCH_RESULTS);
  if (request.documentIds && request.documentIds.length === 0) return [];
  const scope = { organisationId: request.organisationId, documentIds: request.documentIds };
  const phrases = quotedPhrases(query);
  const candidates = embedder && phrases.length === 0 ? Math.max(limit, FUSION_CANDIDATES) : limit;
  const textHits: ChunkHitRow[] = [];
  for (const { words, chunks, tableChunks, ...scopeOfLanguage } of await scopeWords(sql, { ...scope, query })) {
    const byCount = [...words].sort((a, b) => a.chunks - b.chunks);
    const rare = byCount.filter((w) => w.chunks <= COMMON_WORD_CHUNKS).map((w) => w.lexeme);
    const allWords = words.map((w) => w.lexeme);
    const share = (count: number) => Math.min(count / Math.max(chunks, 1), 1);
    // Rare words pick every chunk that holds one (those with all of them first); with none, the chunks with every
    // word, then those with the least common one. The share holding every word is guessed as if words were
    // independent, which real text makes an underestimate: at worst the index is asked when reading was cheaper.
    const picking = rare.length
      ? ({ kind: 'rare' } as const)
      : ({
          kind: 'common',
          readForAll: words.reduce((product, w) => product * share(w.chunks), 1) >= READ_SHARE,
          readForLeast: share(byCount[0]!.chunks) >= READ_SHARE,
        } as const);
    const request = {
      ...scope,
      query,
      phrases,
      limit: candidates,
      allWords,
      retrieve: wordsQuery(rare.length ? rare : [byCount[0]!.lexeme], '|'),
      retrieveAll: wordsQuery(rare.length ? rare : allWords, '&'),
      picking,
      scopeIsMostChunks: chunks >= tableChunks / 2,
    };
    textHits.push(...(await searchChunks(sql, scopeOfLanguage, request)));
  }
  textHits.sort((a, b) => b.score - a.score);
  // Quoted phrases are a demand for those words: the embeddings, which know no phrases, are not asked.
  const vectorHits = embedder && phrases.length === 0 ? await nearest(sql, embedder, scope, query, candidates) : [];
  const ranked = vectorHits.length ? fuse(textHits, vectorHits) : textHits;
  return ranked.slice(0, limit).map((hit) => ({
    document_id: hit.document_id,
    document_name: hit.document_name,
    heading: hit.heading,
    text: hit.content,
    score: Math.round(hit.score * 10_000) / 10_000,
  }));
}

async function nearest(
  sql: Queryable,
  embedder: Embedder,
  scope: { organisationId: string; documentIds: string[] | undefined },
  query: string,
  limit: number,
): Promise<ChunkHitRow[]> {
  let embedding: number[] | undefined;
  try {
    [embedding] = await embedder.embed(
      [query],
      AbortSignal.timeout(QUERY_EMBEDDING_TIMEOUT_MS),
      QUERY_EMBEDDING_TIMEOUT_MS,
    );
  } catch {
    // A slow or failing endpoint costs the search its embeddings half, never the answer.
    return [];
  }
  if (!embedding) return [];
  return nearestChunks(sql, { ...scope, embedding, limit, minSimilarity: embedder.minSimilarity });
}

/** Reciprocal rank fusion of the two rankings; a chunk's score is the sum of its 1 / (RRF_K + rank) terms. */
export function fuse(...rankings: ChunkHitRow[][]): ChunkHitRow[] {
  const fused = new Map<string, ChunkHitRow>();
  for (const ranking of rankings) {
    ranking.forEach((hit, index) => {
      const share = 1 / (RRF_K + index + 1);
      const seen = fused.get(hit.id);
      fused.set(hit.id, { ...hit, score: (seen?.score ?? 0) + share });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || Number(a.id) - Number(b.id));
}
