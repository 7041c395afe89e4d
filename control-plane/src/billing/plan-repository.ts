/** Plans and subscriptions of plan billing (migration 010: billing_plans, billing_subscriptions). The only SQL for them. */
import type { Queryable } from '../db/database.ts';
import type { Tier } from './rate-card-repository.ts';

export interface PlanRow {
  id: string;
  code: string;
  tier: Tier;
  interval: 'MONTHLY';
  currency: string;
  /** Minor units e4. */
  feeE4: number;
  taxInclusive: boolean;
  allowanceE4: number;
  concurrentCalls: number;
  callLimit: number | null;
  /** Minor units. */
  topUpPresets: number[];
  rail: string;
  isActive: boolean;
}

interface PlanColumns {
  id: string;
  code: string;
  tier: Tier;
  interval: 'MONTHLY';
  currency: string;
  fee_e4: string;
  tax_inclusive: boolean;
  allowance_e4: string;
  concurrent_calls: number;
  call_limit: number | null;
  top_up_presets: string[];
  rail: string;
  is_active: boolean;
}

const toPlan = (row: PlanColumns): PlanRow => ({
  id: row.id,
  code: row.code,
  tier: row.tier,
  interval: row.interval,
  currency: row.currency,
  feeE4: Number(row.fee_e4),
  taxInclusive: row.tax_inclusive,
  allowanceE4: Number(row.allowance_e4),
  concurrentCalls: row.concurrent_calls,
  callLimit: row.call_limit,
  topUpPresets: row.top_up_presets.map(Number),
  rail: row.rail,
  isActive: row.is_active,
});

/** Plans on sale in `currency`, cheapest first. */
export async function activePlans(sql: Queryable, currency: string): Promise<PlanRow[]> {
  const rows = await sql<PlanColumns[]>`
    select * from billing_plans where currency = ${currency} and is_active order by fee_e4, code`;
  return rows.map(toPlan);
}

export async function findPlan(sql: Queryable, planId: string): Promise<PlanRow | undefined> {
  const [row] = await sql<PlanColumns[]>`select * from billing_plans where id = ${planId}`;
  return row && toPlan(row);
}

export async function findPlanByCode(sql: Queryable, code: string): Promise<PlanRow | undefined> {
  const [row] = await sql<PlanColumns[]>`select * from billing_plans where code = ${code} and is_active`;
  return row && toPlan(row);
}

export type SubscriptionStatus = 'PENDING' | 'ACTIVE' | 'PAST_DUE' | 'CANCELLED';

/** A change decided now and applied later (billing_subscriptions.scheduled_change). */
export interface ScheduledChange {
  planId: string;
  planCode: string;
  effectiveAt: string;
  /** India upgrades: what the rest of the period costs now, paise with tax. */
  dueNowMinor: number | null;
  requestedAt: string;
}

export interface SubscriptionRow {
  id: string;
  organisationId: string;
  status: SubscriptionStatus;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  nextGrantAt: Date;
  cancelAtPeriodEnd: boolean;
  graceUntil: Date | null;
  scheduledChange: ScheduledChange | null;
  checkoutUrl: string | null;
  plan: PlanRow;
}

type SubscriptionColumns = PlanColumns & {
  subscription_id: string;
  organisation_id: string;
  status: SubscriptionStatus;
  current_period_start: Date;
  current_period_end: Date;
  next_grant_at: Date;
  cancel_at_period_end: boolean;
  grace_until: Date | null;
  scheduled_change: ScheduledChange | null;
  checkout_url: string | null;
};

const toSubscription = (row: SubscriptionColumns): SubscriptionRow => ({
  id: row.subscription_id,
  organisationId: row.organisation_id,
  status: row.status,
  currentPeriodStart: row.current_period_start,
  currentPeriodEnd: row.current_period_end,
  nextGrantAt: row.next_grant_at,
  cancelAtPeriodEnd: row.cancel_at_period_end,
  graceUntil: row.grace_until,
  scheduledChange: row.scheduled_change,
  checkoutUrl: row.checkout_url,
  plan: toPlan(row),
});

const SUBSCRIPTION_SELECT = (sql: Queryable) => sql`
  select p.*, s.id as subscription_id, s.organisation_id, s.status, s.current_period_start, s.current_period_end,
         s.next_grant_at, s.cancel_at_period_end, s.grace_until, s.scheduled_change, s.checkout_url
    from billing_subscriptions s join billing_plans p on p.id = s.plan_id`;

/** The organisation's subscription that is not cancelled (at most one). */
export async function liveSubscription(sql: Queryable, organisationId: string): Promise<SubscriptionRow | undefined> {
  const [row] = await sql<SubscriptionColumns[]>`
    ${SUBSCRIPTION_SELECT(sql)} where s.organisation_id = ${organisationId} and s.status <> 'CANCELLED'`;
  return row && toSubscription(row);
}

/** One subscription of the organisation, locked for the caller's transaction when `lock` is set. */
export async function findSubscription(
  sql: Queryable,
  organisationId: string,
  subscriptionId: string,
  lock = false,
): Promise<SubscriptionRow | undefined> {
  const [row] = await sql<SubscriptionColumns[]>`
    ${SUBSCRIPTION_SELECT(sql)} where s.id = ${subscriptionId} and s.organisation_id = ${organisationId}
    ${lock ? sql`for update of s` : sql``}`;
  return row && toSubscription(row);
}

export async function setScheduledChange(
  tx: Queryable,
  subscriptionId: string,
  change: ScheduledChange | null,
): Promise<void> {
  await tx`update billing_subscriptions set scheduled_change = ${change === null ? null : tx.json(change as never)},
             updated_at = now() where id = ${subscriptionId}`;
}

/** Moves the subscription onto another plan at once (an upgrade outside India); any scheduled change is dropped. */
export async function switchPlan(tx: Queryable, subscriptionId: string, planId: string): Promise<void> {
  await tx`update billing_subscriptions set plan_id = ${planId}, scheduled_change = null, updated_at = now()
            where id = ${subscriptionId}`;
}

/** A plan checkout the organisation started and has not paid yet (newest), for the plan wallet balance. */
export interface PendingCheckout {
  paymentId: string;
  kind: 'PLAN_TOPUP' | 'PLAN_SUBSCRIPTION';
  chargeMinor: number;
  currency: string;
  createdAt: Date;
}

export async function pendingPlanCheckout(
  sql: Queryable,
  organisationId: string,
): Promise<PendingCheckout | undefined> {
  const [row] = await sql<
    { id: string; kind: PendingCheckout['kind']; charge_minor: string; charge_currency: string; created_at: Date }[]
  >`
    select id, kind, charge_minor, charge_currency, created_at from payments
     where organisation_id = ${organisationId} and status = 'PENDING' and kind in ('PLAN_TOPUP', 'PLAN_SUBSCRIPTION')
     order by created_at desc, id desc limit 1`;
  return (
    row && {
      paymentId: row.id,
      kind: row.kind,
      chargeMinor: Number(row.charge_minor),
      currency: row.charge_currency,
      createdAt: row.created_at,
    }
  );
}

/** A subscription that starts ACTIVE now: its period and next allowance end `periodEnd`. */
export async function insertActiveSubscription(
  tx: Queryable,
  subscription: { id: string; organisationId: string; planId: string; periodStart: Date; periodEnd: Date },
): Promise<void> {
  await tx`insert into billing_subscriptions (id, organisation_id, plan_id, status, current_period_start,
                                              current_period_end, next_grant_at)
           values (${subscription.id}, ${subscription.organisationId}, ${subscription.planId}, 'ACTIVE',
                   ${subscription.periodStart}, ${subscription.periodEnd}, ${subscription.periodEnd})`;
}

/** A new paid period for a subscription that lapsed (PAST_DUE): ACTIVE again, on `planId`, any scheduled change done. */
export async function renewSubscription(
  tx: Queryable,
  renewal: { id: string; planId: string; periodStart: Date; periodEnd: Date },
): Promise<void> {
  await tx`update billing_subscriptions
              set status = 'ACTIVE', plan_id = ${renewal.planId}, current_period_start = ${renewal.periodStart},
                  current_period_end = ${renewal.periodEnd}, next_grant_at = ${renewal.periodEnd},
                  scheduled_change = null, grace_until = null, updated_at = now()
            where id = ${renewal.id}`;
}
