/**
 * A SIP configuration's prices (rental, surcharges) are stored as integer minor units ×10⁴ of the organisation's
 * billing currency, like the rate card (docs/architecture.md §7.6), and shown in major units like `ratePerMinute`:
 * 0.015 per minute is 1.5 cents, stored 15 000.
 */

/** Minor units ×10⁴ per major unit: 100 minor units, each ×10⁴. */
const MINOR_E4_PER_MAJOR = 1_000_000;

export function majorOfMinorE4(stored: string | number): number {
  return Number(stored) / MINOR_E4_PER_MAJOR;
}

/** The stored form of a major amount; undefined when it has more precision than ×10⁻⁴ of a minor unit. */
export function minorE4OfMajor(amount: number): number | undefined {
  const scaled = Math.round(amount * MINOR_E4_PER_MAJOR);
  return Math.abs(scaled - amount * MINOR_E4_PER_MAJOR) < 1e-6 && Number.isSafeInteger(scaled) ? scaled : undefined;
}
