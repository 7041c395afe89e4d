/**
 * GET /billing/status (spec document 1, Billing status): whether the organisation can place calls and send chat
 * replies, its pay-as-you-go wallet and rates, and what its billing country decides (currencies). For plan billing
 * canMakeCalls and canSendMessage come from the plan wallet, while balance, isLowBalance and rates stay the
 * pay-as-you-go figures (spec document 2).
 */
import type { Queryable } from '../db/database.ts';
import { notFound } from '../errors.ts';
import { MINOR_PER_MAJOR } from '../wallet/money.ts';
import type { BillingModel, BillingProfile } from './billing-account-repository.ts';
import { billingConfig, DEFAULT_LOW_BALANCE_THRESHOLD_MINOR } from './billing-config.ts';
import { decideCallPermission } from './call-permission.ts';
import { readCallPermissionFacts, type CallPermissionFacts } from './call-permission-repository.ts';
import { currencyOfCountry, type BillingCurrency } from './countries.ts';
import { loadProfile } from './plan-catalogue.ts';

export interface BillingStatus {
  canMakeCalls: boolean;
  canSendMessage: boolean;
  isActive: boolean;
  isSuspended: boolean;
  /** The pay-as-you-go wallet, US dollars (0 before it exists). */
  balance: number;
  isLowBalance: boolean;
  ratePerMinute: number;
  ratePerMessage: number;
  /** The currency of balance and the rates: US dollars. */
  currency: 'USD';
  billingCountry: string | null;
  /** The currency a dashboard shows prices in: the checkout currency. */
  displayCurrency: BillingCurrency;
  /** US dollars to displayCurrency: 1 for USD; null for rupees (the live rate is quoted by POST /billing/topup-quote). */
  fxRate: number | null;
  fxSource: 'fixed' | null;
  checkoutCurrency: BillingCurrency;
  hasPaid: boolean;
  minTopUpAmount: number;
  topUpQuickAmounts: number[];
  billingModel: BillingModel;
}

export async function billingStatus(sql: Queryable, organisationId: string, at = new Date()): Promise<BillingStatus> {
  const profile = await loadProfile(sql, organisationId);
  const facts = await readCallPermissionFacts(sql, organisationId, at);
  if (!facts) throw notFound('Organisation');
  return statusOf(sql, profile, facts, at);
}

async function statusOf(
  sql: Queryable,
  profile: BillingProfile,
  facts: CallPermissionFacts,
  at: Date,
): Promise<BillingStatus> {
  const config = await billingConfig(sql, profile, at);
  const balanceMinor = facts.walletBalanceMinor ?? 0;
  const threshold = profile.lowBalanceThresholdMinor ?? DEFAULT_LOW_BALANCE_THRESHOLD_MINOR;
  const currency = currencyOfCountry(profile.billingCountry);
  return {
    canMakeCalls: decideCallPermission(facts).allowed,
    canSendMessage: canSendMessage(facts),
    isActive: profile.isActive,
    isSuspended: profile.isSuspended,
    balance: balanceMinor / MINOR_PER_MAJOR,
    isLowBalance: balanceMinor < threshold,
    ratePerMinute: config.ratePerMinute,
    ratePerMessage: config.ratePerMessage,
    currency: 'USD',
    billingCountry: profile.billingCountry,
    displayCurrency: currency,
    fxRate: currency === 'USD' ? 1 : null,
    fxSource: currency === 'USD' ? 'fixed' : null,
    checkoutCurrency: currency,
    hasPaid: facts.walletHasPaid,
    minTopUpAmount: config.minTopUpAmount,
    topUpQuickAmounts: config.topUpQuickAmounts,
    billingModel: profile.billingModel,
  };
}

/**
 * A chat reply costs a fraction of a cent, so any money to spend will do (no 1.00 minimum as for calls); the other
 * conditions are those of calls.
 */
function canSendMessage(facts: CallPermissionFacts): boolean {
  if (!facts.isActive || facts.isSuspended || facts.hasUnpaidUsage) return false;
  return facts.billingModel === 'WALLET' ? (facts.planSpendableE4 ?? 0) > 0 : (facts.walletBalanceMinor ?? 0) > 0;
}
