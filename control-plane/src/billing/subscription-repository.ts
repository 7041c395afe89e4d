/** SQL of subscriptions and the billing account's model and suspension (migration 010). */
import type { Queryable } from '../db/database.ts';
import { newId } from '../db/ids.ts';

export type BillingModel = 'LEGACY_USD' | 'WALLET';

export interface LockedBillingAccount {
  organisationId: string;
  billingModel: BillingModel;
  isSuspended: boolean;
  billingCountry: string | null;
}

/**
 * The organisation's billing account, created with the defaults when it has none, locked for the caller's
 * transaction: changes of model, plan and suspension of one organisation happen one after another.
 */
export async function lockBillingAccount(
  tx: Queryable,
  organisationId: string,
): Promise<LockedBillingAccount | undefined> {
  await tx`insert into billing_accounts (organisation_id)
           select id from organisations where id = ${organisationId} and deleted_at is null
           on conflict do nothing`;
  const [row] = await tx<{ billing_model: BillingModel; is_suspended: boolean; billing_country: string | null }[]>`
    select b.billing_model, b.is_suspended, o.billing_country
      from billing_accounts b join organisations o on o.id = b.organisation_id
     where b.organisation_id = ${organisationId} and o.deleted_at is null
       for update of b`;
  return (
    row && {
      organisationId,
      billingModel: row.billing_model,
      isSuspended: row.is_suspended,
      billingCountry: row.billing_country,
    }
  );
}

export async function setBillingModel(tx: Queryable, organisationId: string, model: BillingModel): Promise<void> {
  await tx`update billing_accounts set billing_model = ${model}, updated_at = now() where organisation_id = ${organisationId}`;
}

export async function setSuspension(tx: Queryable, organisationId: string, reason: string | null): Promise<void> {
  await tx`update billing_accounts set is_suspended = ${reason !== null}, suspended_reason = ${reason}, updated_at = now()
           where organisation_id = ${organisationId}`;
}

export interface PlanRow {
  id: string;
  code: string;
  tier: 'STARTER' | 'PRO';
  currency: string;
  allowanceE4: number;
}

export async function findPlanByCode(sql: Queryable, code: string): Promise<PlanRow | undefined> {
  const [row] = await sql<
    { id: string; code: string; tier: 'STARTER' | 'PRO'; currency: string; allowance_e4: string }[]
  >`
    select id, code, tier, currency, allowance_e4 from billing_plans where code = ${code} and is_active`;
  return (
    row && { id: row.id, code: row.code, tier: row.tier, currency: row.currency, allowanceE4: Number(row.allowance_e4) }
  );
}

/** The subscription that is not CANCELLED (at most one per organisation: a unique index). */
export async function liveSubscriptionId(
  tx: Queryable,
  organisationId: string,
): Promise<{ id: string; planId: string } | undefined> {
  const [row] = await tx<{ id: string; plan_id: string }[]>`
    select id, plan_id from billing_subscriptions where organisation_id = ${organisationId} and status <> 'CANCELLED'`;
  return row && { id: row.id, planId: row.plan_id };
}

export async function insertActiveSubscription(
  tx: Queryable,
  subscription: { organisationId: string; planId: string; periodStart: Date; periodEnd: Date },
): Promise<string> {
  const id = newId();
  await tx`insert into billing_subscriptions (id, organisation_id, plan_id, status, current_period_start,
                                              current_period_end, next_grant_at)
           values (${id}, ${subscription.organisationId}, ${subscription.planId}, 'ACTIVE', ${subscription.periodStart},
                   ${subscription.periodEnd}, ${subscription.periodEnd})`;
  return id;
}
