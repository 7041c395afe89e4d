/**
 * What call admission reads under the organisation's billing-row lock (billing/call-admission.ts): the limits of its
 * active plan and the count of its live calls.
 */
import type { Queryable } from '../db/database.ts';

/** The limits of the organisation's ACTIVE plan; nulls without one. Read under the billing row's lock. */
export async function activePlanLimits(tx: Queryable, organisationId: string): Promise<PlanLimits> {
  const [plan] = await tx<{ concurrent_calls: number; call_limit: number | null; current_period_start: Date }[]>`
    select p.concurrent_calls, p.call_limit, s.current_period_start
      from billing_subscriptions s join billing_plans p on p.id = s.plan_id
     where s.organisation_id = ${organisationId} and s.status = 'ACTIVE'`;
  return {
    planConcurrentCalls: plan?.concurrent_calls ?? null,
    callsPerCycle: plan?.call_limit == null ? null : { limit: plan.call_limit, since: plan.current_period_start },
  };
}

export interface PlanLimits {
  /** The ACTIVE plan's concurrentCalls; null without one. */
  planConcurrentCalls: number | null;
  /** The ACTIVE plan's calls per cycle (billing_plans.call_limit) and the cycle's start; null: no such limit. */
  callsPerCycle: { limit: number; since: Date } | null;
}

/** Calls the organisation placed (queued, live or completed) since `since`: what a plan's call limit counts. */
export async function countPlacedCallsSince(tx: Queryable, organisationId: string, since: Date): Promise<number> {
  const [row] = await tx<{ placed: number }[]>`
    select count(*)::int as placed from call_records
     where organisation_id = ${organisationId} and created_at >= ${since}
       and call_status in ('QUEUED', 'INITIATED', 'RINGING', 'IN_PROGRESS', 'COMPLETED')`;
  return row!.placed;
}

/**
 * The organisation's calls that hold a line: INITIATED, RINGING, IN_PROGRESS, and QUEUED ones (being dispatched
 * right now) created within `queuedWithinMs` — an older QUEUED call was left by a process that died mid-placement.
 */
export async function countLiveCalls(tx: Queryable, organisationId: string, queuedWithinMs: number): Promise<number> {
  const [row] = await tx<{ live: number }[]>`
    select count(*)::int as live from call_records
     where organisation_id = ${organisationId} and ended_at is null
       and call_status in ('QUEUED', 'INITIATED', 'RINGING', 'IN_PROGRESS')
       and (call_status <> 'QUEUED' or created_at > now() - make_interval(secs => ${queuedWithinMs / 1000}))`;
  return row!.live;
}
