/**
 * The full-text indexes' pending lists (docs/architecture.md §14). Postgres adds a GIN index's new entries to a
 * pending list, cheap to write, which every search then reads whole until autovacuum merges it — and embedded
 * PGlite has no autovacuum. After 10,000 chunks that list was about 400 pages: most of each search's time. So a
 * writer merges it before committing: one sorted bulk merge (about 0.5 s for 10,000 chunks) instead of a search
 * tax until the next vacuum. Writing entries straight into the index (fastupdate off) cost 13 s for the same chunks.
 */
import type { Queryable } from '../db/database.ts';

export type SearchIndex = 'knowledge_chunks_search' | 'catalogue_products_search';

/** Merges the index's pending entries into it (the caller owns the index: it ran the migrations). */
export async function mergePendingEntries(sql: Queryable, index: SearchIndex): Promise<void> {
  await sql`select gin_clean_pending_list(${index}::regclass)`;
}
