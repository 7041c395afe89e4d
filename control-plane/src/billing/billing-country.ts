/**
 * PUT /billing/country (spec document 2): the billing country decides the checkout currency, processor and tax
 * (India: rupees with 18% GST; elsewhere US dollars).
 *
 * - The same country again changes nothing.
 * - A different country expires the organisation's pending pay-as-you-go checkouts (priced for the old country).
 * - Plan billing: a move between India and elsewhere changes the plan wallet's currency, so it is refused (409)
 *   while the plan wallet holds money or a subscription exists.
 * - Plan billing: the first setting puts the one-time sign-up credit (100 rupees or 1 US dollar, spendable 365 days)
 *   in the plan wallet — posted with a fixed idempotency key and marked on the billing account in the same
 *   transaction, under the billing account's row lock, so concurrent requests give it once.
 */
import type { Queryable, Sql } from '../db/database.ts';
import { ApiError, badField, notFound } from '../errors.ts';
import { post } from '../wallet/ledger.ts';
import { readWalletAccount } from '../wallet/ledger-repository.ts';
import { WALLET_SCALE } from '../wallet/ledger-types.ts';
import {
  expirePendingWalletTopups,
  lockBillingProfile,
  markSignupCredit,
  setBillingCountry,
  type BillingProfile,
} from './billing-account-repository.ts';
import { billingStatus, type BillingStatus } from './billing-status.ts';
import { changesPlanCurrency, currencyOfCountry, supportedCountry, type BillingCurrency } from './countries.ts';
import { liveSubscription } from './plan-repository.ts';
import { settleUnpaidUsage } from './settlement.ts';

/** Spec document 3: the sign-up credit, in minor units of each currency (100 rupees, 1 US dollar). */
export const SIGNUP_CREDIT_MINOR: Record<BillingCurrency, number> = { INR: 10_000, USD: 100 };
/** How long the sign-up credit stays spendable. */
export const SIGNUP_CREDIT_DAYS = 365;
const DAY_MS = 86_400_000;

export type BillingCountryStatus = Omit<BillingStatus, 'billingModel'>;

export interface BillingCountryChange {
  status: BillingCountryStatus;
  changed: boolean;
  expiredCheckouts: number;
  signupCreditGranted: boolean;
}

export async function setOrganisationBillingCountry(
  sql: Sql,
  organisationId: string,
  requested: string,
  onOrganisationChanged: (organisationId: string) => Promise<void>,
  at = new Date(),
): Promise<BillingCountryChange> {
  const country = supportedCountry(requested);
  if (!country) throw badField('billingCountry', `${JSON.stringify(requested)} is not a supported billing country`);
  const outcome = await sql.begin(async (tx) => {
    const profile = await lockBillingProfile(tx, organisationId);
    if (!profile) throw notFound('Organisation');
    const changed = profile.billingCountry !== country;
    let expiredCheckouts = 0;
    if (changed) {
      if (profile.billingModel === 'WALLET' && changesPlanCurrency(profile.billingCountry, country)) {
        await refuseWhilePlanWalletInUse(tx, profile, country);
      }
      await setBillingCountry(tx, organisationId, country);
      expiredCheckouts = await expirePendingWalletTopups(tx, organisationId);
    }
    const signupCreditGranted = await grantSignupCredit(tx, profile, country, at);
    return { changed, expiredCheckouts, signupCreditGranted };
  });
  if (outcome.changed) await onOrganisationChanged(organisationId);
  const { billingModel: _model, ...status } = await billingStatus(sql, organisationId, at);
  return { status, ...outcome };
}

async function refuseWhilePlanWalletInUse(tx: Queryable, profile: BillingProfile, country: string) {
  const wallet = await readWalletAccount(
    tx,
    profile.organisationId,
    'PLAN_WALLET',
    currencyOfCountry(profile.billingCountry!),
  );
  const subscription = await liveSubscription(tx, profile.organisationId);
  if ((wallet && wallet.balance > 0) || subscription) {
    const holds = subscription ? 'a subscription exists' : 'the plan wallet holds money';
    throw new ApiError(
      'conflict',
      `The billing country cannot move from ${profile.billingCountry} to ${country} while ${holds}: ` +
        `plan billing runs in ${currencyOfCountry(profile.billingCountry)} and would change to ${currencyOfCountry(country)}`,
    );
  }
}

/** The one-time sign-up credit of plan billing; false when not due (pay-as-you-go, or given before). */
async function grantSignupCredit(tx: Queryable, profile: BillingProfile, country: string, at: Date): Promise<boolean> {
  if (profile.billingModel !== 'WALLET' || profile.signupCreditAt !== null) return false;
  const currency = currencyOfCountry(country);
  const result = await post(tx, {
    organisationId: profile.organisationId,
    wallet: 'PLAN_WALLET',
    currency,
    type: 'CREDIT',
    amount: SIGNUP_CREDIT_MINOR[currency] * WALLET_SCALE.PLAN_WALLET,
    counterparty: 'promotions',
    referenceType: 'SIGNUP_CREDIT',
    description: `Sign-up credit (${currency === 'INR' ? '100 rupees' : '1 US dollar'})`,
    actor: 'billing country',
    idempotencyKey: `signup-credit:${profile.organisationId}`,
    grant: { source: 'SIGNUP_CREDIT', expiresAt: new Date(at.getTime() + SIGNUP_CREDIT_DAYS * DAY_MS) },
    at,
  });
  await markSignupCredit(tx, profile.organisationId, at);
  if (result.status !== 'posted') return false;
  await settleUnpaidUsage(tx, profile.organisationId);
  return true;
}
