/** Plain-text tables with aligned columns, for reports read in a terminal or pasted into an issue. */

export type Align = 'left' | 'right';

/** Rows (the first is the header) padded to column widths, columns separated by two spaces. */
export function formatTable(rows: readonly (readonly string[])[], align: readonly Align[]): string {
  const columns = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, c) => Math.max(0, ...rows.map((r) => [...(r[c] ?? '')].length)));
  return rows
    .map((row) =>
      widths
        .map((width, c) => {
          const cell = row[c] ?? '';
          const pad = ' '.repeat(width - [...cell].length);
          return align[c] === 'right' ? pad + cell : cell + pad;
        })
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
