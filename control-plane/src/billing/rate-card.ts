/**
 * The rate card (spec document 1, Rate-card line): the one source of prices — for metering calls and replies, for
 * the pay-as-you-go rate shown in billing config and status, and for the telephony overview. Prices are minor units
 * with 4 decimals (e4); a charge is rounded up to a whole unit of the wallet that pays it, never silently down.
 */
import type { Queryable } from '../db/database.ts';
import { WALLET_SCALE, type WalletKind } from '../wallet/ledger-types.ts';
import { rateLinesAt, type RateLine, type RateLineKey, type Tier } from './rate-card-repository.ts';

export { RATE_LINE_KEYS, type RateLine, type RateLineKey, type RateUnit, type Tier } from './rate-card-repository.ts';

/** Minor units e4 per minor unit. */
export const E4 = 10_000;
const SECONDS_PER_MINUTE = 60;

/** The line of `key` in force at `at` (default now) for the currency and tier; undefined when the card has none. */
export async function rateLineAt(
  sql: Queryable,
  selector: { key: RateLineKey; currency: string; tier: Tier; at?: Date },
): Promise<RateLine | undefined> {
  const [line] = await rateLinesAt(sql, { ...selector, at: selector.at ?? new Date() });
  return line;
}

/** Every line of the card in force at `at` for the currency and tier, in the card's key order. */
export function rateCardAt(sql: Queryable, selector: { currency: string; tier: Tier; at: Date }): Promise<RateLine[]> {
  return rateLinesAt(sql, selector);
}

/**
 * Seconds a call is billed for: nothing for a call that never connected (0 s), else the duration rounded up to a
 * whole number of pulses and never less than the minimum. 61 s at a 6 s pulse → 66 s; 2 s with a 6 s minimum → 6 s.
 */
export function billedSeconds(durationSeconds: number, pulseSeconds: number, minimumSeconds: number): number {
  if (!Number.isFinite(durationSeconds) || durationSeconds <= 0) return 0;
  if (!Number.isInteger(pulseSeconds) || pulseSeconds < 1) throw new RangeError(`pulse of ${pulseSeconds} s`);
  const pulsed = Math.ceil(durationSeconds / pulseSeconds) * pulseSeconds;
  return Math.max(pulsed, minimumSeconds);
}

/**
 * What `quantity` of a line costs, in minor units e4, rounded up to a whole unit of the paying wallet (a cent for
 * the pay-as-you-go WALLET, 1/10000 of a minor unit for the PLAN_WALLET), so the result is always postable.
 * `quantity` is billed seconds for a MINUTE line (priced pro rata), a count for REPLY and MONTH lines.
 */
export function chargeE4(line: Pick<RateLine, 'unit' | 'priceE4'>, quantity: number, wallet: WalletKind): number {
  if (!Number.isInteger(quantity) || quantity < 0) throw new RangeError(`quantity ${quantity} is not a whole count`);
  const step = E4 / WALLET_SCALE[wallet];
  const perUnit = line.unit === 'MINUTE' ? SECONDS_PER_MINUTE : 1;
  // Integer arithmetic: price e4 × seconds stays far below 2^53 for any real call.
  const numerator = line.priceE4 * quantity;
  return Math.ceil(numerator / (perUnit * step)) * step;
}
