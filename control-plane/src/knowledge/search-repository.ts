/**
 * Full-text search over knowledge chunks (docs/architecture.md §14). A question is matched loosely and ranked
 * strictly: a chunk is a candidate when it holds any of the question's words (stemmed by the document's language,
 * the longer ones also as prefixes: "reserv" finds "reservations"), and ranks by cover density (ts_rank_cd: the
 * words close together), then higher when it holds all of them, and higher again when it holds them as the phrase
 * asked. So "what time do you open on Sundays" finds the paragraph with "Sunday" and "opening" although it never
 * says "time". Quoted words ("gift card") must appear as that phrase.
 */
import type { Queryable } from '../db/database.ts';

export interface ChunkHitRow {
  id: string;
  document_id: string;
  document_name: string;
  heading: string;
  content: string;
  score: number;
}

export interface ChunkQuery {
  organisationId: string;
  /** Only these documents; undefined searches every document of the organisation. */
  documentIds: string[] | undefined;
  query: string;
  /** The phrases the query quoted, each of which a hit must hold. */
  phrases: string[];
  limit: number;
}

/** Shortest stemmed word also matched as a prefix: shorter ones ("op") would match half the dictionary. */
const MIN_PREFIX_LEXEME = 4;

/** Text search configurations of the ready documents the query covers (almost always one). */
export async function searchLanguages(sql: Queryable, query: Omit<ChunkQuery, 'query' | 'phrases' | 'limit'>) {
  const rows = await sql<{ language: string }[]>`
    select distinct language from knowledge_documents
     where organisation_id = ${query.organisationId} and status = 'ready'
       and (${query.documentIds ?? null}::text[] is null or id = any(${query.documentIds ?? null}::text[]))`;
  return rows.map((row) => row.language);
}

/** The best chunks of the documents indexed with `language`, best first. */
export function searchChunks(sql: Queryable, language: string, query: ChunkQuery): Promise<ChunkHitRow[]> {
  const ids = query.documentIds ?? null;
  const phrases = query.phrases.map((p) => `"${p.replace(/"/g, ' ')}"`).join(' ');
  return sql<ChunkHitRow[]>`
    with q as (
      select to_tsquery(${language}::regconfig, coalesce((
               select string_agg(quote_literal(lexeme) || case when length(lexeme) >= ${MIN_PREFIX_LEXEME}
                                                           then ':*' else '' end, ' | ')
                 from unnest(to_tsvector(${language}::regconfig, ${query.query}))), '')) as any_word,
             plainto_tsquery(${language}::regconfig, ${query.query}) as all_words,
             phraseto_tsquery(${language}::regconfig, ${query.query}) as phrase,
             websearch_to_tsquery(${language}::regconfig, ${phrases}) as required
    )
    select c.id::text, c.document_id, d.name as document_name, c.heading, c.content,
           (ts_rank_cd(c.search, q.any_word, 32) * 0.6
             + case when c.search @@ q.all_words then 0.25 else 0 end
             + case when numnode(q.phrase) > 1 and c.search @@ q.phrase then 0.15 else 0 end)::float8 as score
      from q, knowledge_chunks c join knowledge_documents d on d.id = c.document_id
     where c.organisation_id = ${query.organisationId}
       and d.language = ${language} and d.status = 'ready'
       and (${ids}::text[] is null or c.document_id = any(${ids}::text[]))
       and c.search @@ q.any_word
       and (numnode(q.required) = 0 or c.search @@ q.required)
     order by score desc, c.id
     limit ${query.limit}`;
}

/** Whether knowledge_chunks has its embedding column (a vector type existed when migration 015 ran). */
export async function hasEmbeddingColumn(sql: Queryable): Promise<boolean> {
  const rows = await sql`select 1 from information_schema.columns
                          where table_schema = current_schema() and table_name = 'knowledge_chunks'
                            and column_name = 'embedding'`;
  return rows.length > 0;
}

/**
 * The chunks nearest to `embedding` by cosine distance, nearest first, at least `minSimilarity` alike. Chunks
 * embedded by a model of another size (the model was changed) are passed over rather than failing the search.
 */
export function nearestChunks(
  sql: Queryable,
  query: Omit<ChunkQuery, 'query' | 'phrases'> & { embedding: number[]; minSimilarity: number },
): Promise<ChunkHitRow[]> {
  const ids = query.documentIds ?? null;
  const vector = `[${query.embedding.join(',')}]`;
  return sql<ChunkHitRow[]>`
    select id::text, document_id, document_name, heading, content, score from (
      select c.id, c.document_id, d.name as document_name, c.heading, c.content,
             (1 - (c.embedding <=> ${vector}::vector))::float8 as score
        from knowledge_chunks c join knowledge_documents d on d.id = c.document_id
       where c.organisation_id = ${query.organisationId} and d.status = 'ready'
         and (${ids}::text[] is null or c.document_id = any(${ids}::text[]))
         and c.embedding is not null and vector_dims(c.embedding) = ${query.embedding.length}
       order by c.embedding <=> ${vector}::vector
       limit ${query.limit}) nearest
     where score >= ${query.minSimilarity}
     order by score desc`;
}
