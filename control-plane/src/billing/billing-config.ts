/**
 * Pay-as-you-go billing config (spec document 1, Billing config; USD): the organisation's own prices where an
 * operator set them on its billing account, else the rate card's Starter USD lines — one source of prices.
 */
import type { Queryable } from '../db/database.ts';
import { notFound } from '../errors.ts';
import type { BillingProfile } from './billing-account-repository.ts';
import { E4, rateLineAt } from './rate-card.ts';

/** Below this balance (cents) the wallet is shown as low, unless the billing account sets its own threshold. */
export const DEFAULT_LOW_BALANCE_THRESHOLD_MINOR = 500;
/** The smallest pay-as-you-go top-up, in US cents (the quote's `minimumTopUp`). */
export const MIN_TOP_UP_MINOR = 1_000;
/** Top-up amounts a dashboard offers as one-click buttons, in US dollars. */
export const TOP_UP_QUICK_AMOUNTS: readonly number[] = [10, 25, 50, 100];

const CENTS_PER_DOLLAR = 100;

export interface BillingConfig {
  /** US dollars per minute of AI phone call. */
  ratePerMinute: number;
  /** US dollars per AI chat reply. */
  ratePerMessage: number;
  /** US dollars. */
  lowBalanceThreshold: number;
  /** US dollars. */
  minTopUpAmount: number;
  /** US dollars. */
  topUpQuickAmounts: number[];
  isActive: boolean;
}

/** US cents e4 as US dollars: 50000 → 0.05. */
export const dollarsOfCentsE4 = (centsE4: number): number => centsE4 / E4 / CENTS_PER_DOLLAR;

export async function billingConfig(sql: Queryable, profile: BillingProfile, at = new Date()): Promise<BillingConfig> {
  const [minuteE4, messageE4] = await Promise.all([
    profile.ratePerMinuteE4 ?? starterUsdPrice(sql, 'ai_phone_call_minute', at),
    profile.ratePerMessageE4 ?? starterUsdPrice(sql, 'ai_web_chat_reply', at),
  ]);
  return {
    ratePerMinute: dollarsOfCentsE4(minuteE4),
    ratePerMessage: dollarsOfCentsE4(messageE4),
    lowBalanceThreshold: (profile.lowBalanceThresholdMinor ?? DEFAULT_LOW_BALANCE_THRESHOLD_MINOR) / CENTS_PER_DOLLAR,
    minTopUpAmount: MIN_TOP_UP_MINOR / CENTS_PER_DOLLAR,
    topUpQuickAmounts: [...TOP_UP_QUICK_AMOUNTS],
    isActive: profile.isActive && !profile.isSuspended,
  };
}

async function starterUsdPrice(
  sql: Queryable,
  key: 'ai_phone_call_minute' | 'ai_web_chat_reply',
  at: Date,
): Promise<number> {
  const line = await rateLineAt(sql, { key, currency: 'USD', tier: 'STARTER', at });
  // The rate card is seeded by migration 010; a card without the line is an installation not configured for billing.
  if (!line) throw notFound(`Billing config (the rate card has no Starter USD ${key} price)`);
  return line.priceE4;
}
