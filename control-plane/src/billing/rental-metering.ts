/**
 * Metering number rentals (docs/architecture.md §10): a managed number is paid a month ahead from the organisation's
 * plan wallet, one usage record (NUMBER_RENTAL) and one debit per period, keyed `number_rental:<rentalId>:<period
 * start>` so that a period is charged once however often the rent or the rental job retries it. Unlike a call, a
 * period the wallet cannot pay is not recorded as owed: the number is not renewed (telephony/number-rental-job.ts
 * gives the wallet a grace period, then gives the number back).
 */
import type { Queryable } from '../db/database.ts';
import { post } from '../wallet/ledger.ts';
import { readWalletAccount, spendableGrants } from '../wallet/ledger-repository.ts';
import { readBillingProfile } from './billing-account-repository.ts';
import { currencyOfCountry } from './countries.ts';
import { liveSubscription } from './plan-repository.ts';
import { ALLOWANCE_PERIOD_MS } from './plan-wallet-job.ts';
import { chargeE4, rateLineAt } from './rate-card.ts';
import { walletUnitsOf } from './settlement.ts';
import { insertUsage, markUsagePaid, type UsageRecord } from './usage-repository.ts';

/** The rate-card line a rented number is priced by. */
export const RENTAL_RATE_LINE = 'number_rental_month';
/** A rental period: the rate card's "month", counted as plan periods are (30 days, plan-wallet-job.ts). */
export const RENTAL_PERIOD_MS = ALLOWANCE_PERIOD_MS;

export type RentalTerms =
  | { payable: true; currency: string; priceE4: number }
  /** Why the organisation cannot pay for a rented number: what the API says. */
  | { payable: false; reason: 'not_plan_billing' | 'no_plan' | 'unpriced'; message: string };

/** What a month of a rented number costs the organisation now, from its plan's tier on the rate card. */
export async function rentalTerms(sql: Queryable, organisationId: string, at: Date): Promise<RentalTerms> {
  const profile = await readBillingProfile(sql, organisationId);
  if (!profile || profile.billingModel !== 'WALLET') {
    return {
      payable: false,
      reason: 'not_plan_billing',
      message: 'Rented numbers are paid from a plan wallet: this organisation is on pay-as-you-go billing',
    };
  }
  const subscription = await liveSubscription(sql, organisationId);
  if (!subscription || subscription.status === 'PENDING') {
    return { payable: false, reason: 'no_plan', message: 'Rented numbers need an active plan: subscribe to one first' };
  }
  const currency = currencyOfCountry(profile.billingCountry);
  const line = await rateLineAt(sql, { key: RENTAL_RATE_LINE, currency, tier: subscription.plan.tier, at });
  if (!line) {
    return {
      payable: false,
      reason: 'unpriced',
      message: `The rate card has no number rental price in ${currency} for the ${subscription.plan.tier} tier`,
    };
  }
  return { payable: true, currency, priceE4: chargeE4(line, 1, 'PLAN_WALLET') };
}

/** What the organisation's plan wallet can spend now, minor units e4: the pre-check before a number is rented. */
export async function spendablePlanWalletE4(
  sql: Queryable,
  organisationId: string,
  currency: string,
  at: Date,
): Promise<number> {
  const account = await readWalletAccount(sql, organisationId, 'PLAN_WALLET', currency);
  if (!account) return 0;
  const grants = await spendableGrants(sql, account.id, at);
  return grants.reduce((total, grant) => total + grant.remaining, 0);
}

export interface RentalPeriod {
  organisationId: string;
  rentalId: string;
  currency: string;
  priceE4: number;
  start: Date;
  end: Date;
  /** Who asked: the customer's rent, or the rental job's renewal. */
  actor: string;
  description: string;
}

export type RentalCharge =
  | { status: 'paid'; usage: UsageRecord }
  /** The period was charged before (a retry): nothing changed. */
  | { status: 'duplicate' }
  /** The plan wallet cannot pay it: nothing was written. */
  | { status: 'insufficient_funds'; spendable: number };

/** Charges one period in the caller's transaction: the debit and its usage record, or nothing at all. */
export async function chargeRentalPeriod(tx: Queryable, period: RentalPeriod): Promise<RentalCharge> {
  const key = `number_rental:${period.rentalId}:${period.start.toISOString()}`;
  const amount = walletUnitsOf({ totalE4: period.priceE4, wallet: 'PLAN_WALLET' });
  let transactionId: string | null = null;
  if (amount > 0) {
    const posted = await post(tx, {
      organisationId: period.organisationId,
      wallet: 'PLAN_WALLET',
      currency: period.currency,
      type: 'DEBIT',
      amount: -amount,
      counterparty: 'revenue',
      referenceType: 'NUMBER_RENTAL',
      referenceId: period.rentalId,
      description: period.description,
      actor: period.actor,
      idempotencyKey: key,
    });
    if (posted.status === 'insufficient_funds') return { status: 'insufficient_funds', spendable: posted.spendable };
    if (posted.status === 'duplicate') return { status: 'duplicate' };
    transactionId = posted.transaction.id;
  }
  const usage = await insertUsage(tx, {
    organisationId: period.organisationId,
    voiceSessionId: null,
    roomName: null,
    callDirection: null,
    usageType: 'NUMBER_RENTAL',
    durationSeconds: 0,
    billedSeconds: 0,
    messageCount: 0,
    rateE4: period.priceE4,
    totalE4: period.priceE4,
    currency: period.currency,
    wallet: 'PLAN_WALLET',
    startTime: period.start,
    endTime: period.end,
    idempotencyKey: key,
  });
  if (!usage) return { status: 'duplicate' };
  await markUsagePaid(tx, usage.id, transactionId);
  return { status: 'paid', usage: { ...usage, walletDeducted: true, transactionId } };
}
