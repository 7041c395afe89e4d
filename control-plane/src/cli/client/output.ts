/**
 * What the client prints: with --json the answer's data as one JSON document (for scripts and jq), otherwise a
 * table of the columns a person reads first, sized to its contents. Progress and notices go to standard error so
 * that standard output stays the result alone.
 */

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

/** Cells longer than this are cut with an ellipsis so one long overview cannot wrap the whole table. */
const MAX_CELL = 60;

export function printJson(data: unknown): void {
  process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
}

export function printTable<T>(rows: readonly T[], columns: readonly Column<T>[], empty = '(none)'): void {
  if (rows.length === 0) {
    process.stdout.write(`${empty}\n`);
    return;
  }
  const cells = rows.map((row) => columns.map((column) => cell(column.value(row))));
  const widths = columns.map((column, i) => Math.max(column.header.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [line(columns.map((c) => c.header)), ...cells.map(line)];
  process.stdout.write(`${out.join('\n')}\n`);
}

/** Label/value lines for one resource. */
export function printFields(fields: readonly [string, unknown][]): void {
  const width = Math.max(...fields.map(([label]) => label.length));
  for (const [label, value] of fields) process.stdout.write(`${label.padEnd(width)}  ${cell(value, Infinity)}\n`);
}

export function notice(line: string): void {
  process.stderr.write(`${line}\n`);
}

function cell(value: unknown, max = MAX_CELL): string {
  const text =
    value === null || value === undefined
      ? '-'
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value).replace(/\s+/g, ' ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
