/**
 * Putting an organisation on plan billing (docs/architecture.md §10): the subscription starts ACTIVE for a paid
 * period of 30 days, the billing model becomes WALLET, and the period's allowance is in the plan wallet in the same
 * transaction, so calls can be placed at once. A period that ends unpaid turns the subscription PAST_DUE (the
 * plan-wallet job); paying again renews it here. Suspension stops calls whatever the
 * wallet holds.
 */
import type { Queryable } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { ApiError, notFound } from '../errors.ts';
import { post } from '../wallet/ledger.ts';
import {
  lockBillingProfile,
  setBillingModel,
  setSuspension,
  type BillingProfile,
} from './billing-account-repository.ts';
import { currencyOfCountry } from './countries.ts';
import { ALLOWANCE_PERIOD_MS } from './plan-wallet-job.ts';
import {
  findPlan,
  findPlanByCode,
  insertActiveSubscription,
  liveSubscription,
  renewSubscription,
} from './plan-repository.ts';

export interface Activation {
  subscriptionId: string;
  /** The posting of the first allowance. */
  allowanceTransactionId: string;
  planCode: string;
  currency: string;
  allowanceE4: number;
  periodEnd: Date;
}

/** A plan named by its code (operators) or its id (the checkout). */
export type PlanSelector = { code: string } | { id: string };

/** Starts an ACTIVE subscription to the plan for the organisation, with its first allowance. */
export async function activatePlan(
  tx: Queryable,
  request: { organisationId: string; plan: PlanSelector; actor: string; at?: Date },
): Promise<Activation> {
  const at = request.at ?? new Date();
  const account = await requireAccount(tx, request.organisationId);
  if (!account.billingCountry) {
    throw new ApiError(
      'invalid_state',
      'Set the billing country first (PUT /billing/country): it decides the plan currency',
    );
  }
  const plan =
    'code' in request.plan ? await findPlanByCode(tx, request.plan.code) : await findPlan(tx, request.plan.id);
  if (!plan?.isActive)
    throw new ApiError('not_found', `No active plan ${'code' in request.plan ? request.plan.code : request.plan.id}`);
  const currency = currencyOfCountry(account.billingCountry);
  if (plan.currency !== currency) {
    throw new ApiError(
      'conflict',
      `Plan ${plan.code} is sold in ${plan.currency}; an organisation billed in ${account.billingCountry} pays in ${currency}`,
    );
  }
  const live = await liveSubscription(tx, request.organisationId);
  if (live?.status === 'ACTIVE') {
    throw new ApiError('conflict', 'The organisation already has a subscription: change it instead');
  }
  const periodEnd = new Date(at.getTime() + ALLOWANCE_PERIOD_MS);
  // A lapsed subscription is renewed (a new paid period, on the plan chosen now); otherwise a new one starts.
  const subscriptionId = live?.id ?? newId();
  if (live) {
    await renewSubscription(tx, { id: live.id, planId: plan.id, periodStart: at, periodEnd });
  } else {
    await insertActiveSubscription(tx, {
      id: subscriptionId,
      organisationId: request.organisationId,
      planId: plan.id,
      periodStart: at,
      periodEnd,
    });
  }
  await setBillingModel(tx, request.organisationId, 'WALLET');
  const allowance = await post(tx, {
    organisationId: request.organisationId,
    wallet: 'PLAN_WALLET',
    currency,
    type: 'CREDIT',
    amount: plan.allowanceE4,
    counterparty: 'plan_allowance',
    referenceType: 'PLAN_CYCLE',
    referenceId: subscriptionId,
    description: `Plan allowance (${plan.code}), ${live ? 'renewed' : 'first'} period`,
    actor: request.actor,
    idempotencyKey: `plan-cycle:${subscriptionId}:${at.toISOString()}`,
    grant: { source: 'PLAN_CYCLE', expiresAt: periodEnd },
    at,
  });
  if (allowance.status === 'insufficient_funds') throw new Error('a credit cannot lack funds');
  return {
    subscriptionId,
    allowanceTransactionId: allowance.transaction.id,
    planCode: plan.code,
    currency,
    allowanceE4: plan.allowanceE4,
    periodEnd,
  };
}

/** Suspends (with a reason shown in 402 refusals) or, with `reason` null, resumes the organisation's calling. */
export async function setSuspended(tx: Queryable, organisationId: string, reason: string | null): Promise<void> {
  await requireAccount(tx, organisationId);
  await setSuspension(tx, organisationId, reason);
}

async function requireAccount(tx: Queryable, organisationId: string): Promise<BillingProfile> {
  const account = await lockBillingProfile(tx, organisationId);
  if (!account) throw notFound('Organisation');
  return account;
}
