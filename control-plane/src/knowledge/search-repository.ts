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
/**
 * Chunks matching in at least this share of the scope are found sooner by reading chunks until enough match (about
 * 500 read for 100 found, 2 µs each) than through the GIN index, whose lists are then long (1–5 ms measured).
 */
export const READ_SHARE = 0.2;
/**
 * Candidates ranked per search at most: ranking reads each candidate's vector (10–15 µs a chunk natively), so this
 * bounds a search's cost whatever the knowledge base's size. Those holding all the picking words come first.
 */
export const MAX_RANKED_CANDIDATES = 100;

export interface SearchScope {
  language: string;
  documentIds: string[];
}

/** One text search configuration's ready documents, and the query's stemmed words with their chunk counts. */
export interface ScopeWords extends SearchScope {
  /** The documents' chunks in all. */
  chunks: number;
  /** The chunks of every organisation, as the statistics last counted them (-1 or 0 when never counted). */
  tableChunks: number;
  words: { lexeme: string; chunks: number }[];
}

/**
 * The ready documents the query covers, grouped by their text search configuration (almost always one group), each
 * with the query's stemmed words and how many chunks of those documents hold each (or, long ones, a word it
 * begins). One statement, so a search costs two round trips in all. A group the query has no words for (all stop
 * words in its language) is left out.
 */
export async function scopeWords(
  sql: Queryable,
  query: { organisationId: string; documentIds: string[] | undefined; query: string },
): Promise<ScopeWords[]> {
  // A subquery per word (not a join), so each is one range lookup of the primary key, whatever the statistics say.
  const rows = await sql<
    { language: string; ids: string[]; total: number; table_chunks: number; lexeme: string; chunks: number }[]
  >`
    with scopes as (
      select language, array_agg(id) as ids, coalesce(sum(chunk_count), 0)::int as total from knowledge_documents
       where organisation_id = ${query.organisationId} and status = 'ready'
         and (${query.documentIds ?? null}::text[] is null or id = any(${query.documentIds ?? null}::text[]))
       group by language
    )
    select s.language, s.ids::text[] as ids, s.total, t.lexeme,
           (select reltuples from pg_class where oid = 'knowledge_chunks'::regclass)::float8 as table_chunks,
           (select coalesce(sum(l.chunks), 0)::int from knowledge_lexemes l
             where l.document_id = any(s.ids)
               and l.lexeme >= t.lexeme collate "C" and l.lexeme < (t.lexeme || chr(1114111)) collate "C"
               and (length(t.lexeme) >= ${MIN_PREFIX_LEXEME} or l.lexeme = t.lexeme collate "C")) as chunks
      from scopes s,
           lateral (select distinct lexeme from unnest(to_tsvector(s.language::regconfig, ${query.query}))) t
     order by s.language`;
  const scopes = new Map<string, ScopeWords>();
  for (const row of rows) {
    const scope = scopes.get(row.language) ?? {
      language: row.language,
      documentIds: row.ids,
      chunks: row.total,
      tableChunks: row.table_chunks,
      words: [],
    };
    scope.words.push({ lexeme: row.lexeme, chunks: row.chunks });
    scopes.set(row.language, scope);
  }
  return [...scopes.values()];
}

/** A tsquery of stemmed words joined by `|` or `&`, the longer ones as prefixes ('' when there are none). */
export function wordsQuery(lexemes: readonly string[], join: '|' | '&'): string {
  return lexemes
    .map((l) => `'${l.replace(/\\/g, '\\\\').replace(/'/g, "''")}'${l.length >= MIN_PREFIX_LEXEME ? ':*' : ''}`)
    .join(` ${join} `);
}

/**
 * How candidates are picked. `rare`: every chunk holding one of the rare words, through the GIN index (a few hundred
 * at most, each read once), those holding all of them first. `common` (no word is rare): the first 100 chunks
 * holding every word, then the first 100 holding the least common one — each found through the index, or, when
 * most chunks match (READ_SHARE), by reading the scope's chunks until enough do.
 */
export type Picking = { kind: 'rare' } | { kind: 'common'; readForAll: boolean; readForLeast: boolean };

export interface ChunkSearch extends ChunkQuery {
  allWords: string[];
  /** The tsquery that picks candidates: the rare words, or the least common one (wordsQuery). */
  retrieve: string;
  /** Candidates holding all of these come first: the rare words, or (common) every word. */
  retrieveAll: string;
  picking: Picking;
  /**
   * The scope is most of the table (one organisation's installation): its chunks are told by a filter on the few
   * found, not by a bitmap of the whole scope from the document index (most of the rare words' candidate step).
   * Among many organisations the index keeps a word common elsewhere from being read everywhere.
   */
  scopeIsMostChunks: boolean;
}

/**
 * The best chunks of one scope, best first. How each list is found is fixed by the statement's shape, chosen from
 * the word counts: prepared statements run on generic plans, which never see the words (docs/architecture.md §14).
 */
export function searchChunks(sql: Queryable, scope: SearchScope, query: ChunkSearch): Promise<ChunkHitRow[]> {
  const phrases = query.phrases.map((p) => `"${p.replace(/"/g, ' ')}"`).join(' ');
  const required = phrases
    ? sql`and c.search @@ websearch_to_tsquery(${scope.language}::regconfig, ${phrases})`
    : sql``;
  // A cast column is one no index serves: the planner cannot pick the document index then.
  const inScope = query.scopeIsMostChunks
    ? sql`c.document_id::text = any(${scope.documentIds}::text[])`
    : sql`c.document_id = any(${scope.documentIds}::bpchar[])`;
  // ts_match_vq is @@ written as a function, which no index serves: a filter on chunks found another way.
  const holds = (tsquery: string, indexed: boolean) =>
    indexed ? sql`c.search @@ ${tsquery}::tsquery` : sql`ts_match_vq(c.search, ${tsquery}::tsquery)`;
  const { picking } = query;
  // Rare: the few chunks holding a rare word, each read once, those holding all of them first. Common: chunks
  // holding every word, then others holding the least common one — a plain limit, so the second list is not read
  // at all when the first fills it.
  const candidates =
    picking.kind === 'rare'
      ? sql`select c.id, c.search from knowledge_chunks c
             where ${inScope} and ${holds(query.retrieve, true)} ${required}
             order by case when ${holds(query.retrieveAll, false)} then 0 else 1 end, c.id
             limit ${MAX_RANKED_CANDIDATES}`
      : sql`select id, search from (
              (select c.id, c.search from knowledge_chunks c
                where ${inScope} and ${holds(query.retrieveAll, !picking.readForAll)} ${required}
                limit ${MAX_RANKED_CANDIDATES})
              union all
              (select c.id, c.search from knowledge_chunks c
                where ${inScope} and ${holds(query.retrieve, !picking.readForLeast)}
                  and not ${holds(query.retrieveAll, false)} ${required}
                limit ${MAX_RANKED_CANDIDATES})) picked
            limit ${MAX_RANKED_CANDIDATES}`;
  // The candidates bring their vectors, so ranking reads no chunk again; only the results are fetched whole.
  return sql<ChunkHitRow[]>`
    with candidates as (${candidates}),
    q as (
      select ${wordsQuery(query.allWords, '|')}::tsquery as any_word,
             plainto_tsquery(${scope.language}::regconfig, ${query.query}) as all_words,
             phraseto_tsquery(${scope.language}::regconfig, ${query.query}) as phrase
    ),
    ranked as (
      select k.id,
             (ts_rank_cd(k.search, q.any_word, 32) * 0.6
               + case when k.search @@ q.all_words then 0.25 else 0 end
               + case when numnode(q.phrase) > 1 and k.search @@ q.phrase then 0.15 else 0 end)::float8 as score
        from candidates k, q
       order by score desc, k.id
       limit ${query.limit}
    )
    select c.id::text, c.document_id, d.name as document_name, c.heading, c.content, r.score
      from ranked r join knowledge_chunks c on c.id = r.id
      join knowledge_documents d on d.id = c.document_id
     order by r.score desc, c.id`;
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
