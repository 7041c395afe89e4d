/**
 * Knowledge documents, their uploaded sources, processing jobs and chunks (migration 015_knowledge). A job is leased
 * with a token, like the post-call analysis jobs: every write checks the lease is still ours, so a runner whose
 * lease lapsed (and whose job another runner took) writes nothing.
 */
import type { Queryable, Sql } from '../db/database.ts';
import { CHUNK_INSERT_BATCH } from './limits.ts';
import type { Chunk } from './chunker.ts';
import { mergePendingEntries } from './search-index-repository.ts';

export interface DocumentRow {
  id: string;
  organisation_id: string;
  name: string;
  description: string | null;
  status: 'processing' | 'ready' | 'error';
  error: string | null;
  source_type: 'text' | 'file' | 'mixed';
  file_count: number;
  chunk_count: number | null;
  language: string;
  created_at: Date;
  updated_at: Date;
}

export interface SourceInput {
  fileName: string;
  kind: string;
  content: Uint8Array;
}

const DOCUMENT_COLUMNS = `id, organisation_id, name, description, status, error, source_type, file_count, chunk_count,
  language, created_at, updated_at`;

/** The document, its sources and its job, in one transaction: all stored, or nothing. */
export function insertDocument(
  sql: Sql,
  document: Pick<DocumentRow, 'id' | 'organisation_id' | 'name' | 'description' | 'source_type' | 'language'>,
  sources: SourceInput[],
): Promise<DocumentRow> {
  return sql.begin(async (tx) => {
    const [row] = await tx<DocumentRow[]>`
      insert into knowledge_documents (id, organisation_id, name, description, source_type, file_count, language)
      values (${document.id}, ${document.organisation_id}, ${document.name}, ${document.description},
              ${document.source_type}, ${sources.filter((s) => s.kind !== 'text').length}, ${document.language})
      returning ${tx.unsafe(DOCUMENT_COLUMNS)}`;
    for (const [position, source] of sources.entries()) {
      await tx`insert into knowledge_sources (document_id, position, file_name, kind, content)
               values (${document.id}, ${position}, ${source.fileName}, ${source.kind}, ${Buffer.from(source.content)})`;
    }
    await tx`insert into knowledge_jobs (document_id) values (${document.id})`;
    return row!;
  }) as Promise<DocumentRow>;
}

export function listDocuments(sql: Queryable, organisationId: string): Promise<DocumentRow[]> {
  return sql<DocumentRow[]>`select ${sql.unsafe(DOCUMENT_COLUMNS)} from knowledge_documents
                            where organisation_id = ${organisationId} order by created_at desc, id desc`;
}

export async function findDocument(
  sql: Queryable,
  organisationId: string,
  id: string,
): Promise<DocumentRow | undefined> {
  const [row] = await sql<DocumentRow[]>`select ${sql.unsafe(DOCUMENT_COLUMNS)} from knowledge_documents
                                         where organisation_id = ${organisationId} and id = ${id}`;
  return row;
}

/** Removes the document with its chunks, sources and job (cascade); false when it is not the organisation's. */
export async function deleteDocument(sql: Queryable, organisationId: string, id: string): Promise<boolean> {
  const rows = await sql`delete from knowledge_documents where organisation_id = ${organisationId} and id = ${id}
                         returning id`;
  return rows.length > 0;
}

export interface ClaimedKnowledgeJob {
  document_id: string;
  attempts: number;
  lease_token: string;
}

/** Leases up to `limit` due jobs for `leaseSeconds` under `token`. */
export function claimDueKnowledgeJobs(
  sql: Queryable,
  lease: { token: string; leaseSeconds: number; limit: number },
): Promise<ClaimedKnowledgeJob[]> {
  return sql<ClaimedKnowledgeJob[]>`
    update knowledge_jobs
       set next_attempt_at = now() + make_interval(secs => ${lease.leaseSeconds}),
           attempts = attempts + 1, lease_token = ${lease.token}
     where document_id in (select document_id from knowledge_jobs
                            where status = 'pending' and next_attempt_at <= now()
                            order by next_attempt_at limit ${lease.limit}
                            for update skip locked)
    returning document_id, attempts, lease_token`;
}

export interface StoredSource {
  file_name: string;
  kind: string;
  content: Uint8Array;
}

export function loadSources(sql: Queryable, documentId: string): Promise<StoredSource[]> {
  return sql<StoredSource[]>`select file_name, kind, content from knowledge_sources
                             where document_id = ${documentId} order by position`;
}

export async function documentLanguage(sql: Queryable, documentId: string): Promise<string | undefined> {
  const [row] = await sql<{ language: string }[]>`select language from knowledge_documents where id = ${documentId}`;
  return row?.language;
}

/**
 * Writes the chunks and marks the document ready and the job done, all only while the lease is ours (false when it
 * was lost). Chunks an earlier, interrupted attempt left are replaced; the sources are no longer needed.
 */
export function saveChunks(
  sql: Sql,
  job: ClaimedKnowledgeJob,
  chunks: Chunk[],
  embeddings?: (number[] | null)[],
): Promise<boolean> {
  return sql.begin(async (tx) => {
    const held = await tx`update knowledge_jobs set status = 'done', last_error = null, lease_token = null
                           where document_id = ${job.document_id} and lease_token = ${job.lease_token}
                           returning document_id`;
    if (held.length === 0) return false;
    const [document] = await tx<{ organisation_id: string; language: string }[]>`
      select organisation_id, language from knowledge_documents where id = ${job.document_id} for update`;
    if (!document) return true;
    await tx`delete from knowledge_chunks where document_id = ${job.document_id}`;
    for (let start = 0; start < chunks.length; start += CHUNK_INSERT_BATCH) {
      const batch = chunks.slice(start, start + CHUNK_INSERT_BATCH);
      const positions = batch.map((_, i) => start + i);
      const headings = batch.map((c) => c.heading);
      const contents = batch.map((c) => c.content);
      const config = document.language;
      await tx`
        insert into knowledge_chunks (document_id, organisation_id, position, heading, content, search)
        select ${job.document_id}, ${document.organisation_id}, position, heading, content,
               setweight(to_tsvector(${config}::regconfig, heading), 'A') ||
               setweight(to_tsvector(${config}::regconfig, content), 'B')
          from unnest(${positions}::int[], ${headings}::text[], ${contents}::text[]) as c(position, heading, content)`;
      const vectors = embeddings?.slice(start, start + CHUNK_INSERT_BATCH);
      if (vectors?.some((v) => v !== null)) {
        await tx`
          update knowledge_chunks k set embedding = e.embedding::vector
            from unnest(${positions}::int[], ${vectors.map((v) => (v ? `[${v.join(',')}]` : null))}::text[])
                 as e(position, embedding)
           where k.document_id = ${job.document_id} and k.position = e.position and e.embedding is not null`;
      }
    }
    await tx`delete from knowledge_lexemes where document_id = ${job.document_id}`;
    await tx`insert into knowledge_lexemes (document_id, lexeme, chunks)
             select ${job.document_id}, word, ndoc
               from ts_stat(format('select search from knowledge_chunks where document_id = %L', ${job.document_id}::text))`;
    await mergePendingEntries(tx, 'knowledge_chunks_search');
    await tx`update knowledge_documents set status = 'ready', error = null, chunk_count = ${chunks.length},
               updated_at = now() where id = ${job.document_id}`;
    await tx`delete from knowledge_sources where document_id = ${job.document_id}`;
    return true;
  }) as Promise<boolean>;
}

/**
 * A failed attempt: retried after `retryInSeconds`, or, when `final`, the document's status becomes error with the
 * message; false when the lease was lost.
 */
export function failKnowledgeJob(
  sql: Sql,
  job: ClaimedKnowledgeJob,
  failure: { message: string; final: boolean; retryInSeconds: number },
): Promise<boolean> {
  return sql.begin(async (tx) => {
    const held = await tx`update knowledge_jobs
         set status = ${failure.final ? 'failed' : 'pending'}, last_error = ${failure.message}, lease_token = null,
             next_attempt_at = now() + make_interval(secs => ${failure.retryInSeconds})
       where document_id = ${job.document_id} and lease_token = ${job.lease_token} returning document_id`;
    if (held.length === 0) return false;
    if (failure.final) {
      await tx`update knowledge_documents set status = 'error', error = ${failure.message}, updated_at = now()
                where id = ${job.document_id}`;
      await tx`delete from knowledge_sources where document_id = ${job.document_id}`;
    }
    return true;
  }) as Promise<boolean>;
}

/** How many chunks a document has (tests, and the deletion check). */
export async function countChunks(sql: Queryable, documentId: string): Promise<number> {
  const [row] = await sql<
    { n: number }[]
  >`select count(*)::int as n from knowledge_chunks where document_id = ${documentId}`;
  return row!.n;
}

/**
 * Knowledge processing lag (docs/architecture.md §19): documents due and not leased, and how long the oldest has
 * been due, seconds (0 when none). The predicate is claimDueKnowledgeJobs' own.
 */
export async function knowledgeJobsLag(sql: Queryable): Promise<{ backlog: number; lagSeconds: number }> {
  const [row] = await sql<{ backlog: number; lag_seconds: number }[]>`
    select count(*)::int as backlog,
           coalesce(extract(epoch from now() - min(next_attempt_at)), 0)::float8 as lag_seconds
      from knowledge_jobs where status = 'pending' and next_attempt_at <= now()`;
  return { backlog: row!.backlog, lagSeconds: row!.lag_seconds };
}
