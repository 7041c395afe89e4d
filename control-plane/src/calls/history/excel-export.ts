/**
 * The call history as an Excel workbook, written with exceljs's streaming WorkbookWriter: each row is committed to
 * the zip stream as it is read, so 10,000 calls never sit in memory as a workbook.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { recordingLink } from '../recording-link.ts';
import type { HistoryRow } from './history-repository.ts';

interface Column {
  header: string;
  key: string;
  width: number;
  style?: Partial<ExcelJS.Style>;
  value(row: HistoryRow, publicUrl: string): ExcelJS.CellValue;
}

const TIME_STYLE: Partial<ExcelJS.Style> = { numFmt: 'yyyy-mm-dd hh:mm:ss' };

function overviewOf(row: HistoryRow): {
  score?: unknown;
  classification?: unknown;
  user_sentiment?: unknown;
  summary?: unknown;
} {
  return (row.overview ?? {}) as never;
}

const text = (value: unknown): string =>
  typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value);

export const EXPORT_COLUMNS: readonly Column[] = [
  { header: 'Call ID', key: 'roomName', width: 28, value: (r) => r.room_name },
  { header: 'Session ID', key: 'id', width: 26, value: (r) => r.id },
  { header: 'Started (UTC)', key: 'createdAt', width: 20, style: TIME_STYLE, value: (r) => r.created_at },
  { header: 'Ended (UTC)', key: 'endedAt', width: 20, style: TIME_STYLE, value: (r) => r.ended_at },
  { header: 'Name', key: 'participantName', width: 24, value: (r) => r.participant_name },
  { header: 'Phone', key: 'phoneNumber', width: 18, value: (r) => r.phone_number ?? '' },
  { header: 'Direction', key: 'callDirection', width: 11, value: (r) => r.call_direction },
  { header: 'Call type', key: 'callType', width: 10, value: (r) => r.call_type },
  { header: 'Agent', key: 'agentName', width: 24, value: (r) => r.agent_name },
  { header: 'Status', key: 'callStatus', width: 13, value: (r) => r.call_status ?? '' },
  { header: 'Outcome', key: 'callOutcome', width: 12, value: (r) => r.call_outcome ?? '' },
  {
    header: 'Duration (s)',
    key: 'duration',
    width: 12,
    value: (r) => (r.call_duration === null ? null : Math.round(r.call_duration / 1000)),
  },
  {
    header: 'Score',
    key: 'score',
    width: 7,
    value: (r) => (typeof overviewOf(r).score === 'number' ? (overviewOf(r).score as number) : null),
  },
  { header: 'Classification', key: 'classification', width: 14, value: (r) => text(overviewOf(r).classification) },
  { header: 'Sentiment', key: 'sentiment', width: 11, value: (r) => text(overviewOf(r).user_sentiment) },
  {
    header: 'Summary',
    key: 'summary',
    width: 60,
    value: (r) =>
      Array.isArray(overviewOf(r).summary) ? (overviewOf(r).summary as unknown[]).map(text).join('\n') : '',
  },
  { header: 'Campaign ID', key: 'campaignId', width: 26, value: (r) => r.campaign_id ?? '' },
  { header: 'Recording', key: 'recordingUrl', width: 40, value: (r, base) => recordingLink(base, r.recording_url) },
  {
    header: 'Custom variables',
    key: 'customVariables',
    width: 40,
    value: (r) => (Object.keys(r.custom_variables).length ? JSON.stringify(r.custom_variables) : ''),
  },
];

/** Writes the workbook to `out`, one row per call; resolves when the last byte is handed to the stream. */
export async function writeCallWorkbook(
  out: Writable,
  batches: AsyncIterable<HistoryRow[]>,
  publicUrl: string,
): Promise<number> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet('Calls', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = EXPORT_COLUMNS.map(({ header, key, width, style }) => ({
    header,
    key,
    width,
    ...(style ? { style } : {}),
  }));
  sheet.getRow(1).font = { bold: true };
  sheet.getRow(1).commit();
  let rows = 0;
  for await (const batch of batches) {
    for (const call of batch) {
      sheet.addRow(EXPORT_COLUMNS.map((column) => column.value(call, publicUrl))).commit();
      rows += 1;
    }
    // The client reads slower than Postgres answers: wait for it rather than buffer the whole file.
    if (out.writableNeedDrain) await once(out, 'drain');
  }
  sheet.commit();
  await workbook.commit();
  return rows;
}
