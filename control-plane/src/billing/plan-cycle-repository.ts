/** SQL of the plan-wallet job (plan-wallet-job.ts): subscriptions whose allowance is due, claimed once. */
import type { Queryable } from '../db/database.ts';

export interface DueAllowance {
  subscriptionId: string;
  organisationId: string;
  planCode: string;
  currency: string;
  allowanceE4: number;
  grantAt: Date;
}

/**
 * ACTIVE subscriptions whose next allowance is due at `at` within the period paid for, locked for the caller's transaction and skipped by any
 * other instance's pass (FOR UPDATE SKIP LOCKED): each allowance is granted by one process.
 */
export async function claimDueAllowances(tx: Queryable, at: Date, limit: number): Promise<DueAllowance[]> {
  const rows = await tx<
    { id: string; organisation_id: string; code: string; currency: string; allowance_e4: string; next_grant_at: Date }[]
  >`
    select s.id, s.organisation_id, p.code, p.currency, p.allowance_e4, s.next_grant_at
      from billing_subscriptions s join billing_plans p on p.id = s.plan_id
     where s.status = 'ACTIVE' and s.next_grant_at <= ${at} and s.next_grant_at < s.current_period_end
     order by s.next_grant_at
     limit ${limit}
       for update of s skip locked`;
  return rows.map((row) => ({
    subscriptionId: row.id,
    organisationId: row.organisation_id,
    planCode: row.code,
    currency: row.currency,
    allowanceE4: Number(row.allowance_e4),
    grantAt: row.next_grant_at,
  }));
}

/**
 * ACTIVE subscriptions whose paid period ended by `at` without a renewal become PAST_DUE: no allowance arrives for
 * a period nobody paid. Returns their ids.
 */
export async function lapseUnpaidPeriods(sql: Queryable, at: Date): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    update billing_subscriptions set status = 'PAST_DUE', updated_at = now()
     where status = 'ACTIVE' and current_period_end <= ${at}
    returning id`;
  return rows.map((row) => row.id);
}

export async function setNextGrantAt(tx: Queryable, subscriptionId: string, next: Date): Promise<void> {
  await tx`update billing_subscriptions set next_grant_at = ${next}, updated_at = now() where id = ${subscriptionId}`;
}

/** Organisations whose plan wallet holds money that lapsed by `at`, with the wallet's currency. */
export async function walletsWithLapsedGrants(
  sql: Queryable,
  at: Date,
  limit: number,
): Promise<{ organisationId: string; currency: string }[]> {
  const rows = await sql<{ organisation_id: string; currency: string }[]>`
    select distinct g.organisation_id, a.currency
      from wallet_grants g join ledger_accounts a on a.id = g.account_id
     where g.remaining > 0 and g.expires_at <= ${at}
     limit ${limit}`;
  return rows.map((row) => ({ organisationId: row.organisation_id, currency: row.currency }));
}
