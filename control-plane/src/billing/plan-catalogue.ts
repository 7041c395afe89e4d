/**
 * What plan billing sells, as spec document 1 shows it: plans (Plan) in the organisation's currency, and the rate
 * card (Rate-card line) at the tier of its paid plan. Amounts are minor units with up to 4 decimals.
 */
import type { Queryable } from '../db/database.ts';
import { ApiError, notFound } from '../errors.ts';
import { readBillingProfile, type BillingModel, type BillingProfile } from './billing-account-repository.ts';
import { currencyOfCountry, taxOn, type BillingCurrency } from './countries.ts';
import { activePlans, liveSubscription, type PlanRow, type SubscriptionRow } from './plan-repository.ts';
import { E4, rateCardAt, rateLineAt, type RateLine, type Tier } from './rate-card.ts';

/** The product the plans and the rate card are for. */
export const PRODUCT = 'voice_agents';
/** How plan fees are collected: a standing mandate the processor charges each cycle. */
export const COLLECTION_MODE = 'MANDATE';
/** The payment rail of each currency (what the plans' rows say; used when no plan is on sale). */
const RAIL: Record<BillingCurrency, string> = { INR: 'upi_card', USD: 'card' };

/** Minor units e4 as minor units with up to 4 decimals: 2499000000 → 249900. */
export const minorOfE4 = (e4: number): number => e4 / E4;

export interface PlanView {
  planId: string;
  code: string;
  tier: Tier;
  interval: 'MONTHLY';
  currency: string;
  feeMinor: number;
  perMonthMinor: number;
  chargeMinor: number;
  taxMinor: number;
  taxInclusive: boolean;
  allowanceMinor: number;
  perMinuteMinor: number | null;
  minutesIncluded: number | null;
  concurrentCalls: number;
  topUpPresets: number[];
  rail: string;
  collectionMode: typeof COLLECTION_MODE;
}

/** The plan as shown, with its tax and the AI call price of its tier (minutes its allowance buys). */
export function planView(plan: PlanRow, minuteLine: RateLine | undefined): PlanView {
  const currency = plan.currency as BillingCurrency;
  const feeMinor = minorOfE4(plan.feeE4);
  // Tax on whole minor units: what the payer is charged is always a whole number of paise or cents.
  const fee = Math.ceil(feeMinor);
  const taxMinor = plan.taxInclusive
    ? fee - Math.floor((fee * 10_000) / (10_000 + taxOn(10_000, currency)))
    : taxOn(fee, currency);
  return {
    planId: plan.id,
    code: plan.code,
    tier: plan.tier,
    interval: plan.interval,
    currency: plan.currency,
    feeMinor,
    perMonthMinor: feeMinor,
    chargeMinor: plan.taxInclusive ? fee : fee + taxMinor,
    taxMinor,
    taxInclusive: plan.taxInclusive,
    allowanceMinor: minorOfE4(plan.allowanceE4),
    perMinuteMinor: minuteLine ? minorOfE4(minuteLine.priceE4) : null,
    minutesIncluded: minuteLine && minuteLine.priceE4 > 0 ? Math.floor(plan.allowanceE4 / minuteLine.priceE4) : null,
    concurrentCalls: plan.concurrentCalls,
    topUpPresets: plan.topUpPresets,
    rail: plan.rail,
    collectionMode: COLLECTION_MODE,
  };
}

export async function loadProfile(sql: Queryable, organisationId: string): Promise<BillingProfile> {
  const profile = await readBillingProfile(sql, organisationId);
  if (!profile) throw notFound('Organisation');
  return profile;
}

/** A subscription that was paid for (a pending one is not yet the organisation's plan). */
export const isPaid = (subscription: SubscriptionRow | undefined): subscription is SubscriptionRow =>
  subscription !== undefined && (subscription.status === 'ACTIVE' || subscription.status === 'PAST_DUE');

export interface PlanListing {
  organisationId: string;
  billingCountry: string;
  currency: BillingCurrency;
  rail: string;
  product: string;
  billingModel: BillingModel;
  canSubscribe: boolean;
  plans: PlanView[];
}

/** GET /billing/plans: the plans on sale in the organisation's currency (400 before a billing country is set). */
export async function listPlans(sql: Queryable, organisationId: string, at = new Date()): Promise<PlanListing> {
  const profile = await loadProfile(sql, organisationId);
  if (!profile.billingCountry) {
    // A state to change first, not a malformed request: invalid_state (400), naming the field to set.
    const message = 'is not set: set it with PUT /billing/country/{organisationId} first';
    throw new ApiError('invalid_state', `billingCountry ${message}`, {
      fields: [{ field: 'billingCountry', message }],
    });
  }
  const currency = currencyOfCountry(profile.billingCountry);
  const plans = await activePlans(sql, currency);
  const lines = new Map<Tier, RateLine | undefined>();
  for (const tier of new Set(plans.map((plan) => plan.tier))) {
    lines.set(tier, await rateLineAt(sql, { key: 'ai_phone_call_minute', currency, tier, at }));
  }
  return {
    organisationId,
    billingCountry: profile.billingCountry,
    currency,
    rail: plans[0]?.rail ?? RAIL[currency],
    product: PRODUCT,
    billingModel: profile.billingModel,
    // Pay-as-you-go organisations paying in US dollars stay on their wallet; plans are for plan billing and India.
    canSubscribe: !(profile.billingModel === 'LEGACY_USD' && currency === 'USD'),
    plans: plans.map((plan) => planView(plan, lines.get(plan.tier))),
  };
}

export interface RateLineView {
  key: RateLine['key'];
  label: string;
  unit: RateLine['unit'];
  priceMinor: number;
  currency: string;
  tier: Tier;
  pulseSeconds: number;
  minimumSeconds: number;
  managedOnly: boolean;
  effectiveFrom: string;
}

export interface RateCardView {
  organisationId: string;
  product: string;
  currency: BillingCurrency;
  tier: Tier;
  effectiveAt: string;
  lines: RateLineView[];
}

export const rateLineView = (line: RateLine): RateLineView => ({
  key: line.key,
  label: line.label,
  unit: line.unit,
  priceMinor: minorOfE4(line.priceE4),
  currency: line.currency,
  tier: line.tier,
  pulseSeconds: line.pulseSeconds,
  minimumSeconds: line.minimumSeconds,
  managedOnly: line.managedOnly,
  effectiveFrom: line.effectiveFrom.toISOString(),
});

/** GET /billing/rate-card: prices at `at` in the organisation's currency (USD before a country is set), at its tier. */
export async function rateCardFor(
  sql: Queryable,
  organisationId: string,
  at: Date,
  /** Prices in this currency whatever the billing country (managed numbers are priced in rupees). */
  currencyShown?: BillingCurrency,
): Promise<RateCardView> {
  const profile = await loadProfile(sql, organisationId);
  const subscription = await liveSubscription(sql, organisationId);
  const tier: Tier = isPaid(subscription) ? subscription.plan.tier : 'STARTER';
  const currency = currencyShown ?? currencyOfCountry(profile.billingCountry);
  const lines = await rateCardAt(sql, { currency, tier, at });
  return {
    organisationId,
    product: PRODUCT,
    currency,
    tier,
    effectiveAt: at.toISOString(),
    lines: lines.map(rateLineView),
  };
}
