/**
 * PUT /billing/country/{organisationId} (spec document 2): the supported list, currencies, expiry of pending
 * pay-as-you-go checkouts, the one-time sign-up credit of plan billing (once, however concurrent), and the 409 on a
 * move between India and elsewhere while plan billing holds money or a subscription.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walletReplay } from '../src/wallet/ledger-repository.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedMember, seedOrganisation, type SeededOrganisation } from './support/seed.ts';
import {
  DAY_MS,
  PLAN,
  keyWithout,
  paymentStatus,
  seedPayment,
  seedPlanGrant,
  seedSubscription,
  seedUsage,
  setBillingModel,
} from './support/billing.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(() => t?.close());

const put = (org: SeededOrganisation, billingCountry: unknown, key = org.key) =>
  t.call(key, {
    method: 'PUT',
    url: `/api/v1/billing/country/${org.organisationId}`,
    payload: { billingCountry },
  });

async function putOk(org: SeededOrganisation, billingCountry: string) {
  const res = await put(org, billingCountry);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

async function signupGrants(organisationId: string) {
  return t.db.sql<{ amount: string; expires_at: Date; created_at: Date }[]>`
    select amount, expires_at, created_at from wallet_grants
     where organisation_id = ${organisationId} and source = 'SIGNUP_CREDIT'`;
}

async function expectReplays(organisationId: string) {
  for (const wallet of await walletReplay(t.db.sql, [organisationId])) expect(wallet.stored).toBe(wallet.replayed);
}

describe('setting the billing country', () => {
  it('takes a supported code in any case; India pays in rupees, elsewhere US dollars', async () => {
    const org = await seedOrganisation(t.db.sql, 'Country');
    const india = await putOk(org, ' in ');
    expect(india).toMatchObject({
      billingCountry: 'IN',
      displayCurrency: 'INR',
      checkoutCurrency: 'INR',
      currency: 'USD',
      canMakeCalls: false,
    });
    expect(india).not.toHaveProperty('billingModel');
    const details = await t.call(org.key, { method: 'GET', url: `/api/v1/billing/details/${org.organisationId}` });
    expect(details.json().data.billingCountry).toBe('IN');
    // The organisation record shows it at once (its cache is told).
    const record = await t.call(org.key, { method: 'GET', url: `/api/v1/organisations/${org.organisationId}` });
    expect(record.json().data.billingCountry).toBe('IN');

    expect(await putOk(org, 'de')).toMatchObject({ billingCountry: 'DE', displayCurrency: 'USD', fxRate: 1 });
  });

  it('refuses a missing or unsupported country with 400 naming billingCountry', async () => {
    const org = await seedOrganisation(t.db.sql, 'Bad country');
    for (const value of ['XX', 'India', '', 'KP', 42]) {
      const res = await put(org, value);
      expect(res.statusCode, String(value)).toBe(400);
      expect(res.json().errors[0].field).toBe('billingCountry');
    }
    const missing = await t.call(org.key, {
      method: 'PUT',
      url: `/api/v1/billing/country/${org.organisationId}`,
      payload: {},
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0].field).toBe('billingCountry');
    const [row] = await t.db.sql`select billing_country from organisations where id = ${org.organisationId}`;
    expect(row!.billing_country).toBeNull();
  });

  it('needs wallet:write, an OWNER or ADMIN, and the own organisation', async () => {
    const org = await seedOrganisation(t.db.sql, 'Country rights');
    const other = await seedOrganisation(t.db.sql, 'Country other');
    expect((await put(org, 'US', await keyWithout(t.db.sql, org, 'wallet:write'))).statusCode).toBe(403);
    const editor = await seedMember(t.db.sql, org.organisationId, 'EDITOR', ['wallet:write', 'billing:read']);
    expect((await put(org, 'US', editor.key)).statusCode).toBe(403);
    expect((await put(org, 'US', other.key)).statusCode).toBe(403);
    const admin = await seedMember(t.db.sql, org.organisationId, 'ADMIN', ['wallet:write']);
    expect((await put(org, 'US', admin.key)).statusCode).toBe(200);
  });

  it('a different country expires pending pay-as-you-go checkouts; the same country changes nothing', async () => {
    const org = await seedOrganisation(t.db.sql, 'Checkouts');
    await putOk(org, 'US');
    const pending = await seedPayment(t.db.sql, org.organisationId, 'WALLET_TOPUP');
    const paid = await seedPayment(t.db.sql, org.organisationId, 'WALLET_TOPUP', 'PAID');
    const planCheckout = await seedPayment(t.db.sql, org.organisationId, 'PLAN_TOPUP');

    await putOk(org, 'us');
    expect(await paymentStatus(t.db.sql, pending)).toBe('PENDING');

    await putOk(org, 'GB');
    expect(await paymentStatus(t.db.sql, pending)).toBe('EXPIRED');
    expect(await paymentStatus(t.db.sql, paid)).toBe('PAID');
    expect(await paymentStatus(t.db.sql, planCheckout)).toBe('PENDING');
  });

  it('pay-as-you-go gets no sign-up credit', async () => {
    const org = await seedOrganisation(t.db.sql, 'No credit');
    await putOk(org, 'IN');
    expect(await signupGrants(org.organisationId)).toHaveLength(0);
  });
});

describe('plan billing', () => {
  it('the first setting adds the sign-up credit once: 100 rupees for 365 days', async () => {
    const org = await seedOrganisation(t.db.sql, 'Signup');
    await setBillingModel(t.db.sql, org.organisationId, 'WALLET');
    const first = await putOk(org, 'IN');
    expect(first).toMatchObject({ canMakeCalls: true, canSendMessage: true });
    await putOk(org, 'IN');
    const grants = await signupGrants(org.organisationId);
    expect(grants).toHaveLength(1);
    expect(Number(grants[0]!.amount)).toBe(10_000 * 10_000);
    const lifetime = grants[0]!.expires_at.getTime() - grants[0]!.created_at.getTime();
    expect(Math.abs(lifetime - 365 * DAY_MS)).toBeLessThan(60_000);

    const balance = await t.call(org.key, { method: 'GET', url: '/api/v1/billing/balance' });
    expect(balance.json().data).toMatchObject({
      balanceMinor: 10_000,
      currency: 'INR',
      topUpMinor: 10_000,
      grants: [{ source: 'SIGNUP_CREDIT', amountMinor: 10_000, remainingMinor: 10_000 }],
    });
    const history = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/wallet/${org.organisationId}/transactions`,
    });
    expect(history.json().data.transactions).toEqual([
      expect.objectContaining({ type: 'CREDIT', referenceType: 'SIGNUP_CREDIT', currency: 'INR', amountMinor: 10_000 }),
    ]);
    const [account] = await t.db
      .sql`select signup_credit_at from billing_accounts where organisation_id = ${org.organisationId}`;
    expect(account!.signup_credit_at).toBeInstanceOf(Date);
    await expectReplays(org.organisationId);
  });

  it('1 US dollar outside India; concurrent first settings give one credit', async () => {
    const org = await seedOrganisation(t.db.sql, 'Signup race');
    await setBillingModel(t.db.sql, org.organisationId, 'WALLET');
    const answers = await Promise.all(Array.from({ length: 6 }, () => put(org, 'US')));
    expect(answers.map((res) => res.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    const grants = await signupGrants(org.organisationId);
    expect(grants.map((grant) => Number(grant.amount))).toEqual([100 * 10_000]);
    await expectReplays(org.organisationId);
  });

  it('the sign-up credit settles unpaid usage of the plan wallet', async () => {
    const org = await seedOrganisation(t.db.sql, 'Signup settles');
    await setBillingModel(t.db.sql, org.organisationId, 'WALLET');
    const owed = await seedUsage(t.db.sql, org.organisationId, {
      wallet: 'PLAN_WALLET',
      currency: 'USD',
      totalE4: 55_000,
    });
    await putOk(org, 'US');
    const [usage] = await t.db.sql`select wallet_deducted from usage_records where id = ${owed.id}`;
    expect(usage!.wallet_deducted).toBe(true);
    const balance = await t.call(org.key, { method: 'GET', url: '/api/v1/billing/balance' });
    expect(balance.json().data.balanceMinor).toBe(100 - 5.5);
    await expectReplays(org.organisationId);
  });

  it('a move between India and elsewhere is refused while the plan wallet holds money or a subscription exists', async () => {
    const org = await seedOrganisation(t.db.sql, 'Move');
    await setBillingModel(t.db.sql, org.organisationId, 'WALLET');
    await putOk(org, 'IN');
    const held = await put(org, 'US');
    expect(held.statusCode, held.body).toBe(409);
    expect(held.json().message).toContain('plan wallet holds money');
    const [row] = await t.db.sql`select billing_country from organisations where id = ${org.organisationId}`;
    expect(row!.billing_country).toBe('IN');
    // Within India's side nothing changes currency: allowed while money is held (there is no other rupee country).

    const subscribed = await seedOrganisation(t.db.sql, 'Move subscribed');
    await setBillingModel(t.db.sql, subscribed.organisationId, 'WALLET');
    await putOk(subscribed, 'US');
    await t.db
      .sql`update billing_accounts set signup_credit_at = now() where organisation_id = ${subscribed.organisationId}`;
    // Spend the sign-up credit down to nothing: a subscription alone still refuses the move.
    await seedSubscription(t.db.sql, subscribed.organisationId, PLAN.starterUsd, { status: 'PENDING' });
    await seedUsage(t.db.sql, subscribed.organisationId, {
      wallet: 'PLAN_WALLET',
      currency: 'USD',
      totalE4: 1_000_000,
    });
    await t.db.sql.begin(async (tx) => {
      const { settleUnpaidUsage } = await import('../src/billing/settlement.ts');
      await settleUnpaidUsage(tx, subscribed.organisationId);
    });
    const refused = await put(subscribed, 'IN');
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().message).toContain('subscription exists');
    // Moving between two US dollar countries is not a currency change.
    expect((await put(subscribed, 'GB')).statusCode).toBe(200);

    await t.db
      .sql`update billing_subscriptions set status = 'CANCELLED' where organisation_id = ${subscribed.organisationId}`;
    expect((await put(subscribed, 'IN')).statusCode).toBe(200);

    // The emptied dollar plan wallet keeps its history; rupees go to a plan wallet of their own.
    await seedPlanGrant(t.db.sql, subscribed.organisationId, {
      amountMinor: 100_000,
      currency: 'INR',
      source: 'TOP_UP',
    });
    const balance = await t.call(subscribed.key, {
      method: 'GET',
      url: `/api/v1/billing/balance?organisationId=${subscribed.organisationId}`,
    });
    expect(balance.json().data).toMatchObject({ currency: 'INR', balanceMinor: 100_000, topUpMinor: 100_000 });
    const wallets = await t.db.sql<{ currency: string }[]>`select currency from ledger_accounts
      where organisation_id = ${subscribed.organisationId} and kind = 'PLAN_WALLET' order by currency`;
    expect(wallets.map((w) => w.currency)).toEqual(['INR', 'USD']);
    await expectReplays(subscribed.organisationId);
  });

  it('money in the plan wallet from a top-up also refuses the move', async () => {
    const org = await seedOrganisation(t.db.sql, 'Move top-up');
    await setBillingModel(t.db.sql, org.organisationId, 'WALLET');
    await t.db
      .sql`insert into billing_accounts (organisation_id, signup_credit_at) values (${org.organisationId}, now())
                   on conflict (organisation_id) do update set signup_credit_at = now()`;
    await putOk(org, 'US');
    expect(await signupGrants(org.organisationId)).toHaveLength(0);
    await seedPlanGrant(t.db.sql, org.organisationId, { amountMinor: 1_000, currency: 'USD', source: 'TOP_UP' });
    expect((await put(org, 'IN')).statusCode).toBe(409);
  });
});
