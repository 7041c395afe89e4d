/**
 * The results CSV (spec document 2, results export): UTF-8 with a byte order mark (so spreadsheets read accents),
 * CRLF line ends, RFC 4180 quoting, and exactly the spec's columns in its order.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { ResultsConfig } from '@parley/engine/protocol';
import { recordingLink } from '../recording-link.ts';
import { zonedDateTime } from '../time-zone.ts';
import { callStatusLabel, SOURCE_LABELS, useCaseLabel, UNLABELLED } from './labels.ts';
import type { ResultCallRow } from './results-repository.ts';

export const BOM = '\uFEFF';

type Field = ResultsConfig['fields'][number];

export interface CsvContext {
  fields: readonly Field[];
  outcomeLabels: ReadonlyMap<string, string>;
  timezone: string | null;
  publicUrl: string;
}

export function csvHeader(fields: readonly Field[]): string[] {
  return [
    'Called on',
    'Caller',
    'Phone',
    'Source',
    'Use case',
    'Outcome',
    ...fields.map((f) => f.label),
    'Minutes',
    'Call status',
    'Actions',
    'Call score',
    'Classification',
    'Sentiment',
    'They said',
    'Original quote',
    'Summary',
    'Recording',
  ];
}

function detail(field: Field, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (field.type === 'yes_no') {
    if (typeof value === 'boolean') return value ? 'Yes' : 'No';
    if (typeof value === 'string' && /^(yes|true)$/i.test(value)) return 'Yes';
    if (typeof value === 'string' && /^(no|false)$/i.test(value)) return 'No';
  }
  if (Array.isArray(value)) return value.map(String).join(', ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

const text = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';

export function csvCells(row: ResultCallRow, context: CsvContext): string[] {
  const overview = (row.overview ?? {}) as {
    score?: unknown;
    classification?: unknown;
    user_sentiment?: unknown;
    summary?: unknown;
    result?: { quote?: unknown; quote_en?: unknown };
  };
  const captured = row.agent_result?.captured ?? {};
  return [
    zonedDateTime(row.started_at, context.timezone),
    row.participant_name,
    row.phone_number ?? '',
    SOURCE_LABELS[row.source] ?? row.source,
    row.use_case_key === UNLABELLED ? '' : useCaseLabel(row.use_case_key),
    context.outcomeLabels.get(row.outcome) ?? row.outcome,
    ...context.fields.map((f) => detail(f, captured[f.key])),
    row.call_duration === null ? '' : (row.call_duration / 60_000).toFixed(2),
    callStatusLabel(row.outcome_class, row.call_status),
    row.actions?.tracking ?? '',
    text(overview.score),
    text(overview.classification),
    text(overview.user_sentiment),
    text(overview.result?.quote_en),
    text(overview.result?.quote),
    Array.isArray(overview.summary) ? overview.summary.map(text).join('\n') : '',
    recordingLink(context.publicUrl, row.recording_url),
  ];
}

/**
 * One CSV field. A value a spreadsheet would run as a formula (=, @, a tab or CR first; + or - first unless it is
 * a plain number or phone number) gets an apostrophe in front, the OWASP advice for CSV injection.
 */
export function csvField(value: string): string {
  const safe =
    /^[=@\t\r]/.test(value) || (/^[+-]/.test(value) && !/^[+-][\d\s().-]*$/.test(value)) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const csvLine = (cells: readonly string[]): string => `${cells.map(csvField).join(',')}\r\n`;

/** Writes the whole file to `out` and ends it; resolves with the number of calls written. */
export async function writeResultsCsv(
  out: Writable,
  batches: AsyncIterable<ResultCallRow[]>,
  context: CsvContext,
): Promise<number> {
  let rows = 0;
  const write = async (chunk: string) => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
  await write(BOM + csvLine(csvHeader(context.fields)));
  for await (const batch of batches) {
    await write(batch.map((row) => csvLine(csvCells(row, context))).join(''));
    rows += batch.length;
  }
  out.end();
  return rows;
}
