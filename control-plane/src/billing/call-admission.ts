/**
 * Admitting a call (issue 14, item 3): `assertMayCall` refuses (402, saying why) an organisation that may not call
 * at all (billing/call-permission.ts: below the minimum balance, suspended, unpaid usage); `admitCall` then keeps
 * a plan's calls per cycle (billing_plans.call_limit) and, above all, concurrency: an organisation never has more calls live than its plan's concurrentCalls
 * (billing_plans.concurrent_calls of its ACTIVE subscription), or PARLEY_DEFAULT_CONCURRENT_CALLS on pay-as-you-go.
 *
 * Race-free across control planes: the caller runs `admitCall` in the transaction that then creates the call record
 * (status QUEUED, or INITIATED later). The organisation's billing_accounts row is locked first, so a second
 * placement of the same organisation, on any instance, waits until the first has committed its record (or rolled
 * back) and counts it. Over the limit is a 402 — spec document 3 lists "plan call limit reached" under 402, and it is
 * a limit of what the plan pays for, not a rate: a 429 would tell the client to retry the same request shortly.
 */
import type { Queryable } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { lockBillingProfile } from './billing-account-repository.ts';
import { activePlanLimits, countLiveCalls, countPlacedCallsSince } from './call-admission-repository.ts';
import { callPermission } from './call-permission.ts';

/** Concurrent calls of a pay-as-you-go organisation when PARLEY_DEFAULT_CONCURRENT_CALLS is unset: the PRO plan's. */
export const DEFAULT_CONCURRENT_CALLS = 10;

/**
 * How long a call may stay QUEUED (recorded, being handed to an engine and the carrier) and still hold a line, ms:
 * the engine's dispatch timeout (10 s) and the carrier's create-call request, with room. A QUEUED call older than
 * this was left by a process that died mid-placement and must not block the organisation for ever.
 */
export const QUEUED_HOLDS_LINE_MS = 2 * 60_000;

export interface AdmissionLimits {
  /** Concurrent calls of an organisation without an ACTIVE plan (PARLEY_DEFAULT_CONCURRENT_CALLS). */
  defaultConcurrentCalls: number;
}

/** 402 with the reason unless the organisation may place a call now (checked before anything is recorded). */
export async function assertMayCall(sql: Queryable, organisationId: string): Promise<void> {
  const permission = await callPermission(sql, organisationId);
  if (!permission.allowed) throw new ApiError('payment_required', permission.message);
}

/**
 * Locks the organisation's billing row for the caller's transaction and refuses (402) when its live calls already
 * fill its concurrent-call limit. Call before inserting the call record, in the same transaction.
 */
export async function admitCall(tx: Queryable, organisationId: string, limits: AdmissionLimits): Promise<void> {
  // The one lock of an organisation's billing (billing-account-repository.ts): placements of one organisation, on any
  // instance, are admitted one after another.
  await lockBillingProfile(tx, organisationId);
  const { planConcurrentCalls, callsPerCycle } = await activePlanLimits(tx, organisationId);
  if (callsPerCycle) {
    const placed = await countPlacedCallsSince(tx, organisationId, callsPerCycle.since);
    if (placed >= callsPerCycle.limit)
      throw new ApiError(
        'payment_required',
        `Plan call limit reached: the plan allows ${callsPerCycle.limit} calls per billing cycle and ${placed} were placed ` +
          `since ${callsPerCycle.since.toISOString()}. Move to a larger plan, or wait for the next cycle`,
      );
  }
  const limit = planConcurrentCalls ?? limits.defaultConcurrentCalls;
  const live = await countLiveCalls(tx, organisationId, QUEUED_HOLDS_LINE_MS);
  if (live >= limit) {
    const whose = planConcurrentCalls === null ? 'the pay-as-you-go limit' : "the plan's limit";
    throw new ApiError(
      'payment_required',
      `Plan call limit reached: ${live} calls are in progress and ${whose} is ${limit} at once. ` +
        'Wait for a call to end, or move to a plan with more concurrent calls',
    );
  }
}

/**
 * How many more calls the organisation may have live now, read without the lock: a dialler's estimate of how many
 * calls to try this pass. Each call is still admitted by `admitCall` under the lock, which alone is exact.
 */
export async function freeLines(sql: Queryable, organisationId: string, limits: AdmissionLimits): Promise<number> {
  const { planConcurrentCalls } = await activePlanLimits(sql, organisationId);
  const live = await countLiveCalls(sql, organisationId, QUEUED_HOLDS_LINE_MS);
  return Math.max(0, (planConcurrentCalls ?? limits.defaultConcurrentCalls) - live);
}
