/** The rate card's table (migration 010, rate_card_lines). The only SQL for it; the arithmetic is in rate-card.ts. */
import type { Queryable } from '../db/database.ts';

export type RateLineKey = 'ai_phone_call_minute' | 'ai_web_chat_reply' | 'number_rental_month' | 'phone_line_minute';
export const RATE_LINE_KEYS: readonly RateLineKey[] = [
  'ai_phone_call_minute',
  'ai_web_chat_reply',
  'number_rental_month',
  'phone_line_minute',
];
export type RateUnit = 'MINUTE' | 'REPLY' | 'MONTH';
export type Tier = 'STARTER' | 'PRO';

/** One price of the rate card (spec document 1, Rate-card line), in minor units with 4 decimals. */
export interface RateLine {
  id: string;
  key: RateLineKey;
  label: string;
  unit: RateUnit;
  /** Price per unit in minor units e4 (1/10000 of a cent or paisa). */
  priceE4: number;
  currency: string;
  tier: Tier;
  pulseSeconds: number;
  minimumSeconds: number;
  managedOnly: boolean;
  effectiveFrom: Date;
}

interface RateLineColumns {
  id: string;
  key: RateLineKey;
  label: string;
  unit: RateUnit;
  price_e4: string;
  currency: string;
  tier: Tier;
  pulse_seconds: number;
  minimum_seconds: number;
  managed_only: boolean;
  effective_from: Date;
}

const toRateLine = (row: RateLineColumns): RateLine => ({
  id: row.id,
  key: row.key,
  label: row.label,
  unit: row.unit,
  priceE4: Number(row.price_e4),
  currency: row.currency,
  tier: row.tier,
  pulseSeconds: row.pulse_seconds,
  minimumSeconds: row.minimum_seconds,
  managedOnly: row.managed_only,
  effectiveFrom: row.effective_from,
});

/**
 * The lines of one currency and tier in force at `at`: for each key, the line with the latest effective_from not
 * after `at` (a new price is a new row, so older rows stay for the records they priced).
 */
export async function rateLinesAt(
  sql: Queryable,
  selector: { currency: string; tier: Tier; at: Date; key?: RateLineKey },
): Promise<RateLine[]> {
  const rows = await sql<RateLineColumns[]>`
    select distinct on (key) id, key, label, unit, price_e4, currency, tier, pulse_seconds, minimum_seconds,
           managed_only, effective_from
      from rate_card_lines
     where currency = ${selector.currency} and tier = ${selector.tier} and effective_from <= ${selector.at}
       ${selector.key ? sql`and key = ${selector.key}` : sql``}
     order by key, effective_from desc`;
  return rows.map(toRateLine);
}
