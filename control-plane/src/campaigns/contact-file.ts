/**
 * A contacts file (CSV or XLSX, read with exceljs) turned into contact rows: the first row names the columns; the
 * mapping says which column is the phone, which the name, and which become variables (default: every other one).
 * Cells are read as text, so a number keeps its leading + or 0.
 */
import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { badField } from '../errors.ts';
import type { ContactInput } from './types.ts';
import type { ColumnMapping } from './upload-repository.ts';

/** Data rows one file may hold: ten batches of the largest bench campaign, and a bound on the job's memory. */
export const MAX_FILE_ROWS = 100_000;
/** Columns that are taken for the phone, then the name, when the mapping names none (case-insensitive). */
const PHONE_HEADERS = ['phone', 'phone number', 'phonenumber', 'mobile', 'number', 'msisdn', 'telephone'];
const NAME_HEADERS = ['name', 'full name', 'fullname', 'contact name', 'first name'];

export class ContactFileError extends Error {
  override name = 'ContactFileError';
}

export interface ContactFile {
  rows: ContactInput[];
  columns: { phone: string; name: string | null; variables: string[] };
}

export async function readContactFile(
  format: 'csv' | 'xlsx',
  content: Buffer,
  mapping: ColumnMapping,
): Promise<ContactFile> {
  const table = format === 'csv' ? await readCsv(content) : await readXlsx(content);
  const [header, ...data] = table;
  if (!header || header.every((cell) => !cell))
    throw new ContactFileError('the file is empty: its first row must name the columns');
  if (data.length > MAX_FILE_ROWS)
    throw new ContactFileError(`the file has ${data.length} rows; at most ${MAX_FILE_ROWS} are read`);
  const names = header.map((cell) => cell.trim());
  const find = (wanted: string | null, defaults: readonly string[], what: string): number => {
    if (wanted) {
      const at = names.findIndex((n) => n.toLowerCase() === wanted.toLowerCase());
      if (at < 0)
        throw new ContactFileError(`the ${what} column "${wanted}" is not in the file (columns: ${names.join(', ')})`);
      return at;
    }
    return names.findIndex((n) => defaults.includes(n.toLowerCase()));
  };
  const phoneAt = find(mapping.phoneColumn, PHONE_HEADERS, 'phone');
  if (phoneAt < 0)
    throw new ContactFileError(`no phone column: name one with phoneColumn (columns: ${names.join(', ')})`);
  const nameAt = find(mapping.nameColumn, NAME_HEADERS, 'name');
  const variableAt = (mapping.variableColumns ?? names.filter((_, i) => i !== phoneAt && i !== nameAt && names[i])).map(
    (column) => find(column, [], 'variable'),
  );
  const rows = data
    .filter((cells) => cells.some((cell) => cell.trim()))
    .map((cells) => {
      const variables: Record<string, string> = {};
      for (const at of variableAt) if (cells[at]?.trim()) variables[names[at]!] = cells[at]!.trim();
      return {
        phone: cells[phoneAt] ?? '',
        name: nameAt >= 0 ? cells[nameAt]?.trim() || null : null,
        variables,
      };
    });
  return {
    rows,
    columns: {
      phone: names[phoneAt]!,
      name: nameAt >= 0 ? names[nameAt]! : null,
      variables: variableAt.map((i) => names[i]!),
    },
  };
}

async function readCsv(content: Buffer): Promise<string[][]> {
  const workbook = new ExcelJS.Workbook();
  // Cells stay text: the default map turns "+14155550100" into a number and drops its +.
  const sheet = await workbook.csv.read(Readable.from(content), { map: (value: unknown) => value } as never);
  return sheetCells(sheet);
}

async function readXlsx(content: Buffer): Promise<string[][]> {
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(content as unknown as ArrayBuffer);
  } catch (error) {
    throw new ContactFileError(
      `the file is not an XLSX workbook (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw new ContactFileError('the workbook has no sheet');
  return sheetCells(sheet);
}

function sheetCells(sheet: ExcelJS.Worksheet): string[][] {
  const rows: string[][] = [];
  sheet.eachRow({ includeEmpty: true }, (row, number) => {
    const cells: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell, column) => {
      cells[column - 1] = cell.text ?? '';
    });
    rows[number - 1] = Array.from(cells, (c) => c ?? '');
  });
  return Array.from(rows, (r) => r ?? []);
}

/** The upload's format from its content type; 400 naming the header otherwise. */
export function formatOf(contentType: string | undefined): 'csv' | 'xlsx' {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/csv') return 'csv';
  if (type === 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet') return 'xlsx';
  throw badField(
    'headers.content-type',
    'must be text/csv or application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  );
}
