/**
 * Putting an organisation on plan billing (docs/architecture.md §10): the subscription starts ACTIVE, the billing
 * model becomes WALLET, and the first allowance is in the plan wallet in the same transaction, so calls can be
 * placed at once; the plan-wallet job grants the next ones every 30 days. Suspension stops calls whatever the
 * wallet holds.
 */
import type { Queryable } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { post } from '../wallet/ledger.ts';
import { currencyOfCountry } from './countries.ts';
import { ALLOWANCE_PERIOD_MS } from './plan-wallet-job.ts';
import {
  findPlanByCode,
  insertActiveSubscription,
  liveSubscriptionId,
  lockBillingAccount,
  setBillingModel,
  setSuspension,
  type LockedBillingAccount,
} from './subscription-repository.ts';

export interface Activation {
  subscriptionId: string;
  planCode: string;
  currency: string;
  allowanceE4: number;
  periodEnd: Date;
}

/** Starts an ACTIVE subscription to the plan `planCode` for the organisation, with its first allowance. */
export async function activatePlan(
  tx: Queryable,
  request: { organisationId: string; planCode: string; actor: string; at?: Date },
): Promise<Activation> {
  const at = request.at ?? new Date();
  const account = await requireAccount(tx, request.organisationId);
  if (!account.billingCountry) {
    throw new ApiError(
      'invalid_state',
      'Set the billing country first (PUT /billing/country): it decides the plan currency',
    );
  }
  const plan = await findPlanByCode(tx, request.planCode);
  if (!plan) throw new ApiError('not_found', `No active plan ${request.planCode}`);
  const currency = currencyOfCountry(account.billingCountry);
  if (plan.currency !== currency) {
    throw new ApiError(
      'conflict',
      `Plan ${plan.code} is sold in ${plan.currency}; an organisation billed in ${account.billingCountry} pays in ${currency}`,
    );
  }
  if (await liveSubscriptionId(tx, request.organisationId)) {
    throw new ApiError('conflict', 'The organisation already has a subscription: change it instead');
  }
  const periodEnd = new Date(at.getTime() + ALLOWANCE_PERIOD_MS);
  const subscriptionId = await insertActiveSubscription(tx, {
    organisationId: request.organisationId,
    planId: plan.id,
    periodStart: at,
    periodEnd,
  });
  await setBillingModel(tx, request.organisationId, 'WALLET');
  await post(tx, {
    organisationId: request.organisationId,
    wallet: 'PLAN_WALLET',
    currency,
    type: 'CREDIT',
    amount: plan.allowanceE4,
    counterparty: 'plan_allowance',
    referenceType: 'PLAN_CYCLE',
    referenceId: subscriptionId,
    description: `Plan allowance (${plan.code}), first period`,
    actor: request.actor,
    idempotencyKey: `plan-cycle:${subscriptionId}:${at.toISOString()}`,
    grant: { source: 'PLAN_CYCLE', expiresAt: periodEnd },
    at,
  });
  return { subscriptionId, planCode: plan.code, currency, allowanceE4: plan.allowanceE4, periodEnd };
}

/** Suspends (with a reason shown in 402 refusals) or, with `reason` null, resumes the organisation's calling. */
export async function setSuspended(tx: Queryable, organisationId: string, reason: string | null): Promise<void> {
  await requireAccount(tx, organisationId);
  await setSuspension(tx, organisationId, reason);
}

async function requireAccount(tx: Queryable, organisationId: string): Promise<LockedBillingAccount> {
  const account = await lockBillingAccount(tx, organisationId);
  if (!account) throw new ApiError('not_found', 'Organisation not found');
  return account;
}
