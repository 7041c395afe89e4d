/**
 * Plan billing's clock (billing/plan-wallet-job.ts): the allowance arrives every 30 days, once, and the previous
 * one lapses as the next arrives; lapsed top-ups leave the wallet; instances running the job together grant once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/db/ids.ts';
import { ALLOWANCE_PERIOD_MS, PlanWalletJob } from '../src/billing/plan-wallet-job.ts';
import { activatePlan } from '../src/billing/subscriptions.ts';
import { post } from '../src/wallet/ledger.ts';
import { listGrants, readWalletAccount, walletReplay } from '../src/wallet/ledger-repository.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { seedOrganisation } from './support/seed.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 60_000);
afterAll(async () => db?.close());

/** The seeded Starter plan in rupees: 2,499 rupees of allowance (249,900 paise, ×10^4 in the plan wallet). */
const STARTER_INR = 'ba0000000000000000000003';
const ALLOWANCE_E4 = 2_499_000_000;

async function subscribe(organisationId: string, nextGrantAt: Date, paidPeriods = 1): Promise<string> {
  const id = newId();
  await db.sql`insert into billing_subscriptions (id, organisation_id, plan_id, status, current_period_start,
                 current_period_end, next_grant_at)
               values (${id}, ${organisationId}, ${STARTER_INR}, 'ACTIVE', ${nextGrantAt},
                       ${new Date(nextGrantAt.getTime() + paidPeriods * ALLOWANCE_PERIOD_MS)}, ${nextGrantAt})`;
  return id;
}

async function planGrants(organisationId: string) {
  const account = await readWalletAccount(db.sql, organisationId, 'PLAN_WALLET');
  return account ? listGrants(db.sql, account.id) : [];
}

describe('plan wallet job', () => {
  it('grants the allowance once per 30 days of a paid period, the previous one lapsing as the next arrives', async () => {
    const org = await seedOrganisation(db.sql);
    const start = new Date(Date.now() - 60_000);
    // Two periods paid at once (as an invoiced customer might): two allowances, 30 days apart.
    const subscriptionId = await subscribe(org.organisationId, start, 2);
    const job = new PlanWalletJob(db.sql);

    expect((await job.runOnce()).allowancesGranted).toBeGreaterThanOrEqual(1);
    expect((await planGrants(org.organisationId)).map((g) => [g.source, g.remaining])).toEqual([
      ['PLAN_CYCLE', ALLOWANCE_E4],
    ]);
    // A second pass in the same period grants nothing more.
    await job.runOnce();
    expect(await planGrants(org.organisationId)).toHaveLength(1);

    // Spend some, then let 30 days pass: what was left lapses, a fresh allowance arrives.
    const spent = await db.sql.begin((tx) =>
      post(tx, {
        organisationId: org.organisationId,
        wallet: 'PLAN_WALLET',
        currency: 'INR',
        type: 'DEBIT',
        amount: -1_000_000,
        counterparty: 'revenue',
        referenceType: 'VOICE_CALL',
        description: 'a call',
        actor: 'test',
        idempotencyKey: `k:${newId()}`,
      }),
    );
    expect(spent.status).toBe('posted');
    await job.runOnce(new Date(start.getTime() + ALLOWANCE_PERIOD_MS + 1_000));
    const grants = await planGrants(org.organisationId);
    expect(grants.map((g) => [g.source, g.remaining])).toEqual([['PLAN_CYCLE', ALLOWANCE_E4]]);
    expect(grants[0]!.expiresAt.getTime()).toBe(start.getTime() + 2 * ALLOWANCE_PERIOD_MS);
    const [expired] = await db.sql<{ amount: string }[]>`
      select e.amount from ledger_transactions t join ledger_entries e on e.transaction_id = t.id and e.balance_after is not null
       where t.organisation_id = ${org.organisationId} and t.reference_type = 'GRANT_EXPIRY'`;
    expect(Number(expired!.amount)).toBe(-(ALLOWANCE_E4 - 1_000_000));

    // The paid periods end with nobody paying: PAST_DUE, no allowance for the unpaid period, the last one lapses.
    const unpaid = new Date(start.getTime() + 2 * ALLOWANCE_PERIOD_MS + 1_000);
    const pass = await job.runOnce(unpaid);
    expect(pass.periodsLapsed).toBeGreaterThanOrEqual(1);
    const [subscription] = await db.sql<{ status: string }[]>`
      select status from billing_subscriptions where id = ${subscriptionId}`;
    expect(subscription!.status).toBe('PAST_DUE');
    expect(await planGrants(org.organisationId)).toEqual([]);
    expect((await readWalletAccount(db.sql, org.organisationId, 'PLAN_WALLET'))?.balance).toBe(0);

    // Paying again renews the same subscription: ACTIVE, a new period, its allowance at once.
    await db.sql`update organisations set billing_country = 'IN' where id = ${org.organisationId}`;
    const renewed = await db.sql.begin((tx) =>
      activatePlan(tx, {
        organisationId: org.organisationId,
        plan: { code: 'pro_monthly_inr' },
        actor: 'test',
        at: unpaid,
      }),
    );
    expect(renewed.subscriptionId).toBe(subscriptionId);
    const [after] = await db.sql<{ status: string; code: string }[]>`
      select s.status, p.code from billing_subscriptions s join billing_plans p on p.id = s.plan_id where s.id = ${subscriptionId}`;
    expect(after).toEqual({ status: 'ACTIVE', code: 'pro_monthly_inr' });
    expect((await readWalletAccount(db.sql, org.organisationId, 'PLAN_WALLET'))?.balance).toBe(renewed.allowanceE4);
    for (const wallet of await walletReplay(db.sql, [org.organisationId])) expect(wallet.stored).toBe(wallet.replayed);
  });

  it('two instances passing together grant each allowance once', async () => {
    const orgs = await Promise.all(Array.from({ length: 6 }, () => seedOrganisation(db.sql)));
    for (const org of orgs) await subscribe(org.organisationId, new Date(Date.now() - 1_000));
    await Promise.all([new PlanWalletJob(db.sql).runOnce(), new PlanWalletJob(db.sql).runOnce()]);
    for (const org of orgs) expect(await planGrants(org.organisationId)).toHaveLength(1);
  });

  it('moves a lapsed top-up out of an idle wallet', async () => {
    const org = await seedOrganisation(db.sql);
    await db.sql.begin((tx) =>
      post(tx, {
        organisationId: org.organisationId,
        wallet: 'PLAN_WALLET',
        currency: 'USD',
        type: 'CREDIT',
        amount: 10_000_000,
        counterparty: 'payments',
        referenceType: 'TOP_UP',
        description: 'Top-up',
        actor: 'test',
        idempotencyKey: `k:${newId()}`,
        grant: { source: 'TOP_UP', expiresAt: new Date(Date.now() + 1_000) },
      }),
    );
    const result = await new PlanWalletJob(db.sql).runOnce(new Date(Date.now() + 5_000));
    expect(result.walletsExpired).toBeGreaterThanOrEqual(1);
    expect((await readWalletAccount(db.sql, org.organisationId, 'PLAN_WALLET'))?.balance).toBe(0);
  });
});
