/** Money as the wallet keeps it: integer minor units (docs/architecture.md §7, habit 6), never floating dollars. */

/** Minor units per major unit of the wallet currencies (USD cents, INR paise). */
export const MINOR_PER_MAJOR = 100;

/**
 * A dollar amount as minor units: `10`, `5.5`, `5.00` → 1000, 550, 500. Undefined for anything else (negative,
 * more than two decimals, not a number): money is never rounded silently.
 */
export function parseDollars(text: string): number | undefined {
  const match = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * MINOR_PER_MAJOR + Number((match[2] ?? '').padEnd(2, '0'));
}

/** Minor units as a dollar amount with two decimals: 1000 → "10.00". */
export function formatDollars(minor: number): string {
  return (minor / MINOR_PER_MAJOR).toFixed(2);
}
