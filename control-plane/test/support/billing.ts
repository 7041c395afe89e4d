/** Rows of billing no route creates yet (plan billing, subscriptions, usage, payments), written by hand for tests. */
import type { Sql } from '../../src/db/database.ts';
import { newId } from '../../src/db/ids.ts';
import { post } from '../../src/wallet/ledger.ts';
import { insertUsage, type NewUsage } from '../../src/billing/usage-repository.ts';
import { CUSTOMER_SCOPES, type Scope } from '../../src/auth/scopes.ts';
import { insertApiKey } from '../../src/auth/api-key-repository.ts';
import type { SeededOrganisation } from './seed.ts';

export const DAY_MS = 86_400_000;
export const PLAN = {
  starterUsd: 'ba0000000000000000000001',
  proUsd: 'ba0000000000000000000002',
  starterInr: 'ba0000000000000000000003',
  proInr: 'ba0000000000000000000004',
};

export async function setBillingModel(sql: Sql, organisationId: string, model: 'WALLET' | 'LEGACY_USD') {
  await sql`insert into billing_accounts (organisation_id, billing_model) values (${organisationId}, ${model})
            on conflict (organisation_id) do update set billing_model = excluded.billing_model`;
}

export async function setCountry(sql: Sql, organisationId: string, country: string | null) {
  await sql`update organisations set billing_country = ${country} where id = ${organisationId}`;
}

/** A plan-wallet grant posted through the ledger; `amountMinor` in minor units (converted to e4). */
export async function seedPlanGrant(
  sql: Sql,
  organisationId: string,
  options: { amountMinor: number; currency?: string; source?: 'PLAN_CYCLE' | 'TOP_UP'; expiresAt?: Date },
) {
  await sql.begin(async (tx) => {
    const result = await post(tx, {
      organisationId,
      wallet: 'PLAN_WALLET',
      currency: options.currency ?? 'INR',
      type: 'CREDIT',
      amount: options.amountMinor * 10_000,
      counterparty: options.source === 'TOP_UP' ? 'payments' : 'plan_allowance',
      referenceType: options.source === 'TOP_UP' ? 'TOP_UP' : 'PLAN_CYCLE',
      description: 'Test grant',
      actor: 'test',
      idempotencyKey: `test-grant:${newId()}`,
      grant: {
        source: options.source ?? 'PLAN_CYCLE',
        expiresAt: options.expiresAt ?? new Date(Date.now() + 30 * DAY_MS),
      },
    });
    if (result.status !== 'posted') throw new Error(result.status);
  });
}

export async function seedSubscription(
  sql: Sql,
  organisationId: string,
  planId: string,
  options: { status?: string; periodStart?: Date; periodEnd?: Date } = {},
): Promise<string> {
  const id = newId();
  const start = options.periodStart ?? new Date(Date.now() - 10 * DAY_MS);
  const end = options.periodEnd ?? new Date(start.getTime() + 30 * DAY_MS);
  await sql`insert into billing_subscriptions (id, organisation_id, plan_id, status, current_period_start,
                                               current_period_end, next_grant_at)
            values (${id}, ${organisationId}, ${planId}, ${options.status ?? 'ACTIVE'}, ${start}, ${end}, ${end})`;
  return id;
}

export async function seedUsage(sql: Sql, organisationId: string, usage: Partial<NewUsage> = {}) {
  const record = await insertUsage(sql, {
    organisationId,
    voiceSessionId: null,
    roomName: 'room-1',
    callDirection: 'OUTBOUND',
    usageType: 'VOICE_CALL',
    durationSeconds: 61,
    billedSeconds: 66,
    messageCount: 0,
    rateE4: 50_000,
    totalE4: 60_000,
    currency: 'USD',
    wallet: 'WALLET',
    startTime: new Date(),
    endTime: new Date(),
    idempotencyKey: `usage:${newId()}`,
    ...usage,
  });
  return record!;
}

export async function seedPayment(
  sql: Sql,
  organisationId: string,
  kind: 'WALLET_TOPUP' | 'PLAN_TOPUP',
  status: 'PENDING' | 'PAID' = 'PENDING',
): Promise<string> {
  const id = newId();
  await sql`insert into payments (id, organisation_id, kind, status, gateway, charge_minor, charge_currency,
                                  credit_amount, credit_currency, billing_country)
            values (${id}, ${organisationId}, ${kind}, ${status}, 'test', 1000, 'USD', 1000, 'USD', 'US')`;
  return id;
}

export async function paymentStatus(sql: Sql, id: string): Promise<string> {
  const [row] = await sql<{ status: string }[]>`select status from payments where id = ${id}`;
  return row!.status;
}

/** A key of the organisation's owner with every customer scope except `without`. */
export async function keyWithout(sql: Sql, org: SeededOrganisation, without: Scope): Promise<string> {
  const scopes = CUSTOMER_SCOPES.filter((scope) => scope !== without);
  return (await insertApiKey(sql, { organisationId: org.organisationId, userId: org.ownerId, name: 'narrow', scopes }))
    .key;
}
