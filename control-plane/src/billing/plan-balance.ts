/**
 * GET /billing/balance (spec document 1, Plan wallet balance): what the plan wallet can spend now, grant by grant
 * (earliest-expiring first, the order they are spent in), the subscription and any checkout not paid yet. Lapsed
 * grants are not counted even before the expiry sweep moves them out.
 */
import type { Queryable } from '../db/database.ts';
import { readWalletAccount, spendableGrants } from '../wallet/ledger-repository.ts';
import type { GrantSource } from '../wallet/ledger-types.ts';
import type { BillingModel } from './billing-account-repository.ts';
import { currencyOfCountry } from './countries.ts';
import { loadProfile, minorOfE4 } from './plan-catalogue.ts';
import {
  liveSubscription,
  pendingPlanCheckout,
  type ScheduledChange,
  type SubscriptionRow,
  type SubscriptionStatus,
} from './plan-repository.ts';
import type { Tier } from './rate-card.ts';

export interface SubscriptionView {
  id: string;
  status: SubscriptionStatus;
  planId: string;
  planCode: string;
  tier: Tier;
  interval: 'MONTHLY';
  currency: string;
  allowanceMinor: number;
  currentPeriodEnd: string;
  nextGrantAt: string;
  cancelAtPeriodEnd: boolean;
  graceUntil: string | null;
  checkoutUrl: string | null;
  scheduledChange: ScheduledChange | null;
  /** A renewal the payer must approve again (the mandate failed): the subscription is past due. */
  renewalNeedsApproval: boolean;
  /** A subscription set to end at period end can be kept by restarting it before then. */
  canRestart: boolean;
}

export function subscriptionView(subscription: SubscriptionRow): SubscriptionView {
  return {
    id: subscription.id,
    status: subscription.status,
    planId: subscription.plan.id,
    planCode: subscription.plan.code,
    tier: subscription.plan.tier,
    interval: subscription.plan.interval,
    currency: subscription.plan.currency,
    allowanceMinor: minorOfE4(subscription.plan.allowanceE4),
    currentPeriodEnd: subscription.currentPeriodEnd.toISOString(),
    nextGrantAt: subscription.nextGrantAt.toISOString(),
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    graceUntil: subscription.graceUntil?.toISOString() ?? null,
    checkoutUrl: subscription.checkoutUrl,
    scheduledChange: subscription.scheduledChange,
    renewalNeedsApproval: subscription.status === 'PAST_DUE',
    canRestart: subscription.status === 'ACTIVE' && subscription.cancelAtPeriodEnd,
  };
}

export interface GrantView {
  id: string;
  source: GrantSource;
  amountMinor: number;
  remainingMinor: number;
  expiresAt: string;
}

export interface PlanWalletBalance {
  organisationId: string;
  billingModel: BillingModel;
  balanceMinor: number;
  currency: string;
  /** Spendable plan allowance (PLAN_CYCLE grants). */
  planMinor: number;
  /** Spendable money paid in or given (TOP_UP and SIGNUP_CREDIT grants). */
  topUpMinor: number;
  grants: GrantView[];
  nextRefreshAt: string | null;
  subscription: SubscriptionView | null;
  pendingCheckout: { paymentId: string; kind: string; chargeMinor: number; currency: string; createdAt: string } | null;
}

export async function planWalletBalance(
  sql: Queryable,
  organisationId: string,
  at = new Date(),
): Promise<PlanWalletBalance> {
  const profile = await loadProfile(sql, organisationId);
  const [account, subscription, pending] = await Promise.all([
    readWalletAccount(sql, organisationId, 'PLAN_WALLET', currencyOfCountry(profile.billingCountry)),
    liveSubscription(sql, organisationId),
    pendingPlanCheckout(sql, organisationId),
  ]);
  const grants = account ? await spendableGrants(sql, account.id, at) : [];
  const sum = (list: typeof grants) => list.reduce((total, grant) => total + grant.remaining, 0);
  const plan = sum(grants.filter((grant) => grant.source === 'PLAN_CYCLE'));
  const other = sum(grants.filter((grant) => grant.source !== 'PLAN_CYCLE'));
  return {
    organisationId,
    billingModel: profile.billingModel,
    balanceMinor: minorOfE4(plan + other),
    currency: account?.currency ?? subscription?.plan.currency ?? currencyOfCountry(profile.billingCountry),
    planMinor: minorOfE4(plan),
    topUpMinor: minorOfE4(other),
    grants: grants.map((grant) => ({
      id: grant.id,
      source: grant.source,
      amountMinor: minorOfE4(grant.amount),
      remainingMinor: minorOfE4(grant.remaining),
      expiresAt: grant.expiresAt.toISOString(),
    })),
    nextRefreshAt: subscription && subscription.status !== 'PENDING' ? subscription.nextGrantAt.toISOString() : null,
    subscription: subscription ? subscriptionView(subscription) : null,
    pendingCheckout: pending
      ? {
          paymentId: pending.paymentId,
          kind: pending.kind,
          chargeMinor: pending.chargeMinor,
          currency: pending.currency,
          createdAt: pending.createdAt.toISOString(),
        }
      : null,
  };
}
