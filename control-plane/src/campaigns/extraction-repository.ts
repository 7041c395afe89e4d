/** SQL of data extraction: the fields a campaign call's contact wants filled, and where the values go. */
import type { Queryable, Sql } from '../db/database.ts';
import type { ExtractionFields } from './data-extraction.ts';

/** The dataExtractionSchema fields of the campaign whose contact the call is; null when there are none. */
export async function extractionFieldsOfCall(sql: Queryable, callId: string): Promise<ExtractionFields | null> {
  const [row] = await sql<{ schema: { fields?: ExtractionFields } | null }[]>`
    select c.data_extraction_schema as schema
      from campaign_contacts cc join campaigns c on c.id = cc.campaign_id
     where cc.call_id = ${callId}`;
  const fields = row?.schema?.fields;
  return fields?.length ? fields : null;
}

/** The values extracted from the call, on its contact (the contact's latest call's values win). */
export async function saveExtraction(sql: Queryable, callId: string, values: Record<string, unknown>): Promise<void> {
  await sql`update campaign_contacts set extracted_data = ${(sql as Sql).json(values as never)}, updated_at = now()
             where call_id = ${callId}`;
}
