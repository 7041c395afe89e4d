/**
 * A campaign's contacts as CSV (UTF-8 with a byte order mark), with their call status and the values extracted
 * from their calls (dataExtractionSchema, one column per field, in its order): the "exported with the contacts"
 * of data extraction. Columns: Phone, Name, Status, Attempts, Last outcome, Failure reason, Call ID, one per
 * extraction field, Variables (JSON). Read in pages, written as they come.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Queryable } from '../db/database.ts';
import { BOM, csvLine } from '../calls/results/csv-export.ts';
import { listContacts } from './contact-repository.ts';
import type { ExtractionFields } from './data-extraction.ts';

/** Contacts read per page of the export. */
const EXPORT_PAGE = 1_000;

export async function writeContactsCsv(
  out: Writable,
  sql: Queryable,
  campaignId: string,
  fields: ExtractionFields,
): Promise<number> {
  const write = async (chunk: string) => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
  await write(
    BOM +
      csvLine([
        'Phone',
        'Name',
        'Status',
        'Attempts',
        'Last outcome',
        'Failure reason',
        'Call ID',
        ...fields.map((f) => f.label),
        'Variables',
      ]),
  );
  let written = 0;
  for (let offset = 0; ; offset += EXPORT_PAGE) {
    const { rows } = await listContacts(sql, campaignId, { limit: EXPORT_PAGE, offset });
    await write(
      rows
        .map((r) =>
          csvLine([
            r.phone,
            r.name ?? '',
            r.status,
            String(r.attempts),
            r.last_outcome ?? '',
            r.failure_reason ?? '',
            r.room_name ?? '',
            ...fields.map((f) => cell(r.extracted_data?.[f.key])),
            Object.keys(r.variables).length ? JSON.stringify(r.variables) : '',
          ]),
        )
        .join(''),
    );
    written += rows.length;
    if (rows.length < EXPORT_PAGE) break;
  }
  out.end();
  return written;
}

function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return String(value);
}
