/**
 * Full-text search over knowledge chunks (docs/architecture.md §14). A question is matched loosely and ranked
 * strictly: a chunk is a candidate when it holds one of the question's rare words (stemmed by the document's
 * language, the longer ones also as prefixes: "reserv" finds "reservations") — or, when every word is common, all
 * of them — and candidates rank by cover density (ts_rank_cd over all the question's words, close together), then
 * higher when they hold every word, and higher again when they hold them as the phrase asked. So "what time do you
 * open on Sundays" finds the paragraph with "Sunday" and "opening" although it never says "time", and a word found
 * in most chunks never makes every chunk a candidate to rank. Quoted words ("gift card") must appear as that phrase.
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
/**
 * A word in more chunks than this is common: it ranks, but does not pick candidates. Small knowledge bases (an
 * agent's usual few hundred chunks) have no common words, so nothing changes for them.
 */
export const COMMON_WORD_CHUNKS = 100;
/** A word in more chunks than this is everywhere: reading chunks finds enough holding it sooner than the index. */
export const EVERYWHERE_WORD_CHUNKS = 2_000;
/**
 * Candidates ranked per search at most: ranking reads each candidate's vector (about 50 µs a chunk), so this bounds
 * a search's cost whatever the knowledge base's size. Those holding all the picking words come first.
 */
export const MAX_RANKED_CANDIDATES = 100;

export interface SearchScope {
  language: string;
  documentIds: string[];
}

/** The ready documents the query covers, grouped by their text search configuration (almost always one group). */
export async function searchScopes(
  sql: Queryable,
  query: { organisationId: string; documentIds: string[] | undefined },
): Promise<SearchScope[]> {
  const rows = await sql<{ language: string; ids: string[] }[]>`
    select language, array_agg(id::text) as ids from knowledge_documents
     where organisation_id = ${query.organisationId} and status = 'ready'
       and (${query.documentIds ?? null}::text[] is null or id = any(${query.documentIds ?? null}::text[]))
     group by language`;
  return rows.map((row) => ({ language: row.language, documentIds: row.ids }));
}

/** The query's stemmed words, each with how many chunks of the scope hold it (or, long ones, a word it begins). */
export function wordCounts(sql: Queryable, scope: SearchScope, query: string) {
  // A subquery per word (not a join), so each is one range lookup of the primary key, whatever the statistics say.
  return sql<{ lexeme: string; chunks: number }[]>`
    select t.lexeme,
           (select coalesce(sum(l.chunks), 0)::int from knowledge_lexemes l
             where l.document_id = any(${scope.documentIds}::bpchar[])
               and l.lexeme >= t.lexeme collate "C" and l.lexeme < (t.lexeme || chr(1114111)) collate "C"
               and (length(t.lexeme) >= ${MIN_PREFIX_LEXEME} or l.lexeme = t.lexeme collate "C")) as chunks
      from (select distinct lexeme from unnest(to_tsvector(${scope.language}::regconfig, ${query}))) t`;
}

/** A tsquery of stemmed words joined by `|` or `&`, the longer ones as prefixes ('' when there are none). */
export function wordsQuery(lexemes: readonly string[], join: '|' | '&'): string {
  return lexemes
    .map((l) => `'${l.replace(/\\/g, '\\\\').replace(/'/g, "''")}'${l.length >= MIN_PREFIX_LEXEME ? ':*' : ''}`)
    .join(` ${join} `);
}

/** The best chunks of one scope, best first; `retrieve` is the tsquery that picks candidates (wordsQuery). */
export function searchChunks(
  sql: Queryable,
  scope: SearchScope,
  query: ChunkQuery & {
    allWords: string[];
    /** Picks candidates through the index: the rare words, or the least common one. */
    retrieve: string;
    /** Candidates holding all of these come first (checked on the candidates, not through the index). */
    retrieveAll: string;
    /**
     * Every word is in most chunks: reading chunks until enough match is cheaper than the index's long lists (the
     * predicate is then written so the planner cannot use the index).
     */
    scan: boolean;
  },
): Promise<ChunkHitRow[]> {
  const phrases = query.phrases.map((p) => `"${p.replace(/"/g, ' ')}"`).join(' ');
  return sql<ChunkHitRow[]>`
    with q as (
      select ${wordsQuery(query.allWords, '|')}::tsquery as any_word,
             ${query.retrieve}::tsquery as retrieve,
             ${query.retrieveAll}::tsquery as retrieve_all,
             plainto_tsquery(${scope.language}::regconfig, ${query.query}) as all_words,
             phraseto_tsquery(${scope.language}::regconfig, ${query.query}) as phrase,
             websearch_to_tsquery(${scope.language}::regconfig, ${phrases}) as required
    ),
    picked as (
      (select c.id, 0 as tier from knowledge_chunks c, q
        where c.document_id = any(${scope.documentIds}::bpchar[])
          and ${query.scan ? sql`(c.search || ''::tsvector)` : sql`c.search`} @@ q.retrieve
          and (c.search || ''::tsvector) @@ q.retrieve_all
          and (numnode(q.required) = 0 or c.search @@ q.required)
        limit ${MAX_RANKED_CANDIDATES})
      union all
      (select c.id, 1 as tier from knowledge_chunks c, q
        where c.document_id = any(${scope.documentIds}::bpchar[])
          and ${query.scan ? sql`(c.search || ''::tsvector)` : sql`c.search`} @@ q.retrieve
          and (numnode(q.required) = 0 or c.search @@ q.required)
        limit ${MAX_RANKED_CANDIDATES})
    ),
    candidates as (
      select id from picked group by id order by min(tier), id limit ${MAX_RANKED_CANDIDATES}
    )
    select c.id::text, c.document_id, d.name as document_name, c.heading, c.content,
           (ts_rank_cd(c.search, q.any_word, 32) * 0.6
             + case when c.search @@ q.all_words then 0.25 else 0 end
             + case when numnode(q.phrase) > 1 and c.search @@ q.phrase then 0.15 else 0 end)::float8 as score
      from candidates k join knowledge_chunks c on c.id = k.id
      join knowledge_documents d on d.id = c.document_id, q
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
