/**
 * Changing a subscription's plan (spec document 2, GET /billing/subscriptions/{id}/change-quote and the change).
 *
 * India (rupees): an upgrade pays the fee difference for the rest of the current period now (`dueNow`, paise, 18%
 * GST included) and the new plan starts at period end; a downgrade costs nothing now and starts at period end.
 * Elsewhere (US dollars): `dueNow` is null — an upgrade is immediate (the processor prorates its charge), a
 * downgrade starts at renewal. The quote creates nothing; the change records the scheduled change, or switches the
 * plan at once for an immediate upgrade.
 */
import type { Queryable, Sql } from '../db/database.ts';
import { ApiError, badField, notFound } from '../errors.ts';
import { taxOn, type BillingCurrency } from './countries.ts';
import { minorOfE4 } from './plan-catalogue.ts';
import { subscriptionView, type SubscriptionView } from './plan-balance.ts';
import {
  findPlan,
  findSubscription,
  setScheduledChange,
  switchPlan,
  type PlanRow,
  type SubscriptionRow,
} from './plan-repository.ts';

export interface ChangeQuote {
  subscriptionId: string;
  currentPlan: { planId: string; code: string; tier: string; feeMinor: number };
  newPlan: { planId: string; code: string; tier: string; feeMinor: number };
  direction: 'UPGRADE' | 'DOWNGRADE';
  /** IMMEDIATE: the plan changes now; PERIOD_END: at the end of the current period (the renewal). */
  effective: 'IMMEDIATE' | 'PERIOD_END';
  effectiveAt: string;
  currency: string;
  /** India: what is charged now, paise with tax (0 for a downgrade). Elsewhere null: the processor prorates. */
  dueNow: number | null;
  /** India upgrades: the prorated difference before tax, and the tax, paise. Null elsewhere. */
  subtotalMinor: number | null;
  taxMinor: number | null;
}

export interface ChangeResult {
  quote: ChangeQuote;
  subscription: SubscriptionView;
}

export async function quoteChange(
  sql: Queryable,
  organisationId: string,
  subscriptionId: string,
  planId: string,
  at = new Date(),
): Promise<ChangeQuote> {
  const subscription = await findSubscription(sql, organisationId, subscriptionId);
  const target = await findPlan(sql, planId);
  return quote(checked(subscription, target), at);
}

/** Applies the change the quote describes, in one transaction with the subscription row locked. */
export function changePlan(
  sql: Sql,
  organisationId: string,
  subscriptionId: string,
  planId: string,
  at = new Date(),
): Promise<ChangeResult> {
  return sql.begin(async (tx) => {
    const subscription = await findSubscription(tx, organisationId, subscriptionId, true);
    const target = await findPlan(tx, planId);
    const checkedChange = checked(subscription, target);
    const changeQuote = quote(checkedChange, at);
    if (changeQuote.effective === 'IMMEDIATE') {
      await switchPlan(tx, subscriptionId, planId);
    } else {
      await setScheduledChange(tx, subscriptionId, {
        planId: target!.id,
        planCode: target!.code,
        effectiveAt: changeQuote.effectiveAt,
        dueNowMinor: changeQuote.dueNow,
        requestedAt: at.toISOString(),
      });
    }
    const updated = await findSubscription(tx, organisationId, subscriptionId);
    return { quote: changeQuote, subscription: subscriptionView(updated!) };
  });
}

function checked(
  subscription: SubscriptionRow | undefined,
  target: PlanRow | undefined,
): { subscription: SubscriptionRow; target: PlanRow } {
  if (!subscription) throw notFound('Subscription');
  if (subscription.status !== 'ACTIVE') {
    throw new ApiError(
      'conflict',
      `The subscription is ${subscription.status}: only an ACTIVE subscription changes plan`,
    );
  }
  if (!target || !target.isActive) throw badField('planId', 'is not a plan on sale');
  if (target.currency !== subscription.plan.currency) {
    throw badField(
      'planId',
      `is a ${target.currency} plan; this subscription is billed in ${subscription.plan.currency}`,
    );
  }
  if (target.id === subscription.plan.id) throw badField('planId', 'is the current plan');
  return { subscription, target };
}

function quote({ subscription, target }: { subscription: SubscriptionRow; target: PlanRow }, at: Date): ChangeQuote {
  const current = subscription.plan;
  const upgrade = target.feeE4 > current.feeE4;
  const india = current.currency === 'INR';
  const periodEnd = subscription.currentPeriodEnd.toISOString();
  const summary = (plan: PlanRow) => ({
    planId: plan.id,
    code: plan.code,
    tier: plan.tier,
    feeMinor: minorOfE4(plan.feeE4),
  });
  const base = {
    subscriptionId: subscription.id,
    currentPlan: summary(current),
    newPlan: summary(target),
    direction: upgrade ? ('UPGRADE' as const) : ('DOWNGRADE' as const),
    currency: current.currency,
  };
  if (!india) {
    return upgrade
      ? {
          ...base,
          effective: 'IMMEDIATE',
          effectiveAt: at.toISOString(),
          dueNow: null,
          subtotalMinor: null,
          taxMinor: null,
        }
      : { ...base, effective: 'PERIOD_END', effectiveAt: periodEnd, dueNow: null, subtotalMinor: null, taxMinor: null };
  }
  if (!upgrade)
    return { ...base, effective: 'PERIOD_END', effectiveAt: periodEnd, dueNow: 0, subtotalMinor: 0, taxMinor: 0 };
  const subtotalMinor = proratedDifferenceMinor(subscription, target, at);
  const taxMinor = taxOn(subtotalMinor, current.currency as BillingCurrency);
  return {
    ...base,
    effective: 'PERIOD_END',
    effectiveAt: periodEnd,
    dueNow: subtotalMinor + taxMinor,
    subtotalMinor,
    taxMinor,
  };
}

/** The fee difference for the part of the period still to run, whole minor units rounded up. */
function proratedDifferenceMinor(subscription: SubscriptionRow, target: PlanRow, at: Date): number {
  const start = subscription.currentPeriodStart.getTime();
  const end = subscription.currentPeriodEnd.getTime();
  const remaining = Math.min(Math.max(end - at.getTime(), 0), end - start);
  if (end <= start || remaining === 0) return 0;
  const differenceE4 = target.feeE4 - subscription.plan.feeE4;
  return Math.ceil(minorOfE4(differenceE4) * (remaining / (end - start)));
}
