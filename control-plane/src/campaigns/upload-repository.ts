/** SQL of contact uploads: queued by the route, leased by the upload job FOR UPDATE SKIP LOCKED, finished once. */
import type { Queryable, Sql } from '../db/database.ts';

export interface ColumnMapping {
  phoneColumn: string | null;
  nameColumn: string | null;
  /** null: every other column becomes a variable. */
  variableColumns: string[] | null;
}

export interface UploadRow {
  id: string;
  campaign_id: string;
  organisation_id: string;
  file_name: string;
  format: 'csv' | 'xlsx';
  mapping: ColumnMapping;
  status: 'PENDING' | 'PROCESSING' | 'DONE' | 'FAILED';
  result: Record<string, unknown> | null;
  error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

const COLUMNS =
  'id, campaign_id, organisation_id, file_name, format, mapping, status, result, error, created_at, finished_at';

export async function insertUpload(
  sql: Queryable,
  upload: {
    id: string;
    campaignId: string;
    organisationId: string;
    fileName: string;
    format: 'csv' | 'xlsx';
    content: Buffer;
    mapping: ColumnMapping;
  },
): Promise<void> {
  await sql`insert into campaign_uploads (id, campaign_id, organisation_id, file_name, format, content, mapping)
    values (${upload.id}, ${upload.campaignId}, ${upload.organisationId}, ${upload.fileName}, ${upload.format},
            ${upload.content}, ${(sql as Sql).json(upload.mapping as never)})`;
}

export async function findUpload(sql: Queryable, campaignId: string, id: string): Promise<UploadRow | undefined> {
  const [row] = await sql.unsafe<UploadRow[]>(
    `select ${COLUMNS} from campaign_uploads where id = $1 and campaign_id = $2`,
    [id, campaignId],
  );
  return row;
}

/**
 * Takes the oldest waiting upload — PENDING, or PROCESSING under a lease older than `staleMs` (its instance
 * died) — and marks it PROCESSING; answers it with its bytes.
 */
export async function claimUpload(
  sql: Queryable,
  staleMs: number,
): Promise<(UploadRow & { content: Buffer }) | undefined> {
  const [row] = await sql.unsafe<(UploadRow & { content: Buffer })[]>(
    `update campaign_uploads set status = 'PROCESSING', leased_at = now()
      where id = (select id from campaign_uploads
                   where status = 'PENDING'
                      or (status = 'PROCESSING' and leased_at < now() - make_interval(secs => $1))
                   order by created_at limit 1 for update skip locked)
      returning ${COLUMNS}, content`,
    [staleMs / 1000],
  );
  return row;
}

/** Finishes an upload (its bytes are dropped) and stamps the campaign's file fields. */
export async function finishUpload(
  sql: Queryable,
  upload: UploadRow,
  outcome: { status: 'DONE'; result: Record<string, unknown> } | { status: 'FAILED'; error: string },
): Promise<void> {
  await sql`update campaign_uploads
               set status = ${outcome.status}, content = null, finished_at = now(),
                   result = ${outcome.status === 'DONE' ? (sql as Sql).json(outcome.result as never) : null},
                   error = ${outcome.status === 'FAILED' ? outcome.error : null}
             where id = ${upload.id}`;
  if (outcome.status === 'DONE')
    await sql`update campaigns set uploaded_file_name = ${upload.file_name}, uploaded_at = now(), updated_at = now()
               where id = ${upload.campaign_id}`;
}
