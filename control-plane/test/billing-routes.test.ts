/**
 * The wallet and billing reads of spec document 2 (GET /wallet…, GET /billing…) and plan changes, on a real
 * database through the app: shapes, scopes, other organisations, each 400 named, paging, and the rate card.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/db/ids.ts';
import { billedSeconds, chargeE4, rateLineAt } from '../src/billing/rate-card.ts';
import { callPermission } from '../src/billing/call-permission.ts';
import { post } from '../src/wallet/ledger.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedMember, seedOrganisation, seedWallet, type SeededOrganisation } from './support/seed.ts';
import {
  DAY_MS,
  PLAN,
  keyWithout,
  seedPlanGrant,
  seedSubscription,
  seedUsage,
  setBillingModel,
  setCountry,
} from './support/billing.ts';

let t: TestApp;
let other: SeededOrganisation;
beforeAll(async () => {
  t = await startTestApp();
  other = await seedOrganisation(t.db.sql, 'Other');
}, 60_000);
afterAll(() => t?.close());

const get = (key: string, url: string, query?: Record<string, string>) =>
  t.call(key, { method: 'GET', url: `/api/v1${url}`, query });

async function ok200(key: string, url: string, query?: Record<string, string>) {
  const res = await get(key, url, query);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

async function expect400(key: string, url: string, query: Record<string, string>, field: string) {
  const res = await get(key, url, query);
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
}

describe('rate card arithmetic', () => {
  it('bills whole pulses with a minimum, nothing for a call that never connected', () => {
    expect(billedSeconds(0, 6, 6)).toBe(0);
    expect(billedSeconds(2, 6, 6)).toBe(6);
    expect(billedSeconds(61, 6, 6)).toBe(66);
    expect(billedSeconds(60, 60, 60)).toBe(60);
    expect(billedSeconds(61, 60, 60)).toBe(120);
    expect(billedSeconds(3, 1, 0)).toBe(3);
  });

  it('charges pro rata per minute, rounded up to a whole unit of the paying wallet', () => {
    const minute = { unit: 'MINUTE' as const, priceE4: 50_000 };
    expect(chargeE4(minute, 60, 'WALLET')).toBe(50_000);
    // 66 s at 5 cents a minute = 5.5 cents: the pay-as-you-go wallet pays 6 cents, the plan wallet exactly 5.5.
    expect(chargeE4(minute, 66, 'WALLET')).toBe(60_000);
    expect(chargeE4(minute, 66, 'PLAN_WALLET')).toBe(55_000);
    expect(chargeE4(minute, 0, 'WALLET')).toBe(0);
    expect(chargeE4({ unit: 'REPLY', priceE4: 5_000 }, 3, 'WALLET')).toBe(20_000);
    expect(chargeE4({ unit: 'REPLY', priceE4: 5_000 }, 3, 'PLAN_WALLET')).toBe(15_000);
    expect(() => chargeE4(minute, 1.5, 'WALLET')).toThrow(RangeError);
  });

  it('finds the line in force at a date', async () => {
    const now = await rateLineAt(t.db.sql, { key: 'ai_phone_call_minute', currency: 'USD', tier: 'STARTER' });
    expect(now).toMatchObject({ priceE4: 50_000, pulseSeconds: 6, minimumSeconds: 6, unit: 'MINUTE' });
    const before = await rateLineAt(t.db.sql, {
      key: 'ai_phone_call_minute',
      currency: 'USD',
      tier: 'STARTER',
      at: new Date('2025-06-01T00:00:00Z'),
    });
    expect(before).toBeUndefined();
  });
});

describe('GET /wallet/{organisationId}', () => {
  it('answers the balance in dollars, 404 before a wallet exists', async () => {
    const org = await seedOrganisation(t.db.sql, 'Wallet');
    expect((await get(org.key, `/wallet/${org.organisationId}`)).statusCode).toBe(404);
    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 1_234, hasPaid: true });
    expect(await ok200(org.key, `/wallet/${org.organisationId}`)).toEqual({
      balance: 12.34,
      currency: 'USD',
      hasPaid: true,
    });
  });

  it('needs wallet:read, and the own organisation', async () => {
    const org = await seedOrganisation(t.db.sql, 'Wallet scope');
    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 100 });
    const narrow = await keyWithout(t.db.sql, org, 'wallet:read');
    for (const url of ['', '/transactions', '/check-balance?amount=1']) {
      const res = await t.call(narrow, { method: 'GET', url: `/api/v1/wallet/${org.organisationId}${url}` });
      expect(res.statusCode, url).toBe(403);
      const foreign = await t.call(other.key, { method: 'GET', url: `/api/v1/wallet/${org.organisationId}${url}` });
      expect(foreign.statusCode, url).toBe(403);
      expect(foreign.body).not.toContain('"balance"');
    }
  });
});

describe('GET /wallet/{organisationId}/transactions', () => {
  let org: SeededOrganisation;
  beforeAll(async () => {
    org = await seedOrganisation(t.db.sql, 'History');
    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 1_000 });
    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 750 });
    await t.db.sql.begin((tx) =>
      post(tx, {
        organisationId: org.organisationId,
        wallet: 'WALLET',
        currency: 'USD',
        type: 'DEBIT',
        amount: -250,
        counterparty: 'revenue',
        referenceType: 'VOICE_CALL',
        referenceId: 'call-1',
        description: 'Call',
        actor: 'test',
        idempotencyKey: `debit:${newId()}`,
      }),
    );
    await seedPlanGrant(t.db.sql, org.organisationId, { amountMinor: 123.4567, currency: 'INR' });
  });

  it('lists both wallets newest first, plan-wallet lines in minor units with 0 in the dollar fields', async () => {
    const data = await ok200(org.key, `/wallet/${org.organisationId}/transactions`);
    expect(data.pagination).toEqual({ page: 1, limit: 20, total: 4, totalPages: 1 });
    const [planLine, debit, adjustDown, adjustUp] = data.transactions;
    expect(planLine).toMatchObject({
      type: 'CREDIT',
      amount: 0,
      balanceAfter: 0,
      unit: 'MINOR',
      currency: 'INR',
      amountMinor: 123.4567,
      balanceMinorAfter: 123.4567,
      referenceType: 'PLAN_CYCLE',
    });
    expect(debit).toEqual({
      id: expect.any(String),
      type: 'DEBIT',
      amount: -2.5,
      balanceAfter: 5,
      referenceType: 'VOICE_CALL',
      referenceId: 'call-1',
      description: 'Call',
      createdAt: expect.any(String),
    });
    expect(adjustDown).toMatchObject({ type: 'ADJUSTMENT', amount: -2.5, balanceAfter: 7.5 });
    expect(adjustUp).toMatchObject({ type: 'ADJUSTMENT', amount: 10, balanceAfter: 10 });
    const times = data.transactions.map((line: { createdAt: string }) => Date.parse(line.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('filters by type and dates, pages, and clamps limit to 1..100', async () => {
    const url = `/wallet/${org.organisationId}/transactions`;
    const debits = await ok200(org.key, url, { type: 'DEBIT' });
    expect(debits.transactions.map((line: { type: string }) => line.type)).toEqual(['DEBIT']);
    const today = new Date().toISOString().slice(0, 10);
    expect((await ok200(org.key, url, { startDate: today, endDate: today })).pagination.total).toBe(4);
    expect((await ok200(org.key, url, { endDate: '2020-01-01' })).pagination.total).toBe(0);
    expect((await ok200(org.key, url, { startDate: '2999-01-01T00:00:00Z' })).pagination.total).toBe(0);

    const second = await ok200(org.key, url, { page: '2', limit: '3' });
    expect(second.transactions).toHaveLength(1);
    expect(second.pagination).toEqual({ page: 2, limit: 3, total: 4, totalPages: 2 });
    expect((await ok200(org.key, url, { limit: '1000' })).pagination.limit).toBe(100);
    const one = await ok200(org.key, url, { limit: '0' });
    expect(one.pagination).toMatchObject({ limit: 1, totalPages: 4 });
    expect(one.transactions).toHaveLength(1);
  });

  it('shows postings made in one database transaction in the order they were made', async () => {
    const same = await seedOrganisation(t.db.sql, 'Same transaction');
    const usd = (amount: number) => ({
      organisationId: same.organisationId,
      wallet: 'WALLET' as const,
      currency: 'USD',
      type: amount > 0 ? ('CREDIT' as const) : ('DEBIT' as const),
      amount,
      counterparty: amount > 0 ? ('payments' as const) : ('revenue' as const),
      referenceType: amount > 0 ? 'TOP_UP' : 'VOICE_CALL',
      description: 'Same transaction',
      actor: 'test',
      idempotencyKey: `same:${newId()}`,
    });
    await t.db.sql.begin(async (tx) => {
      await post(tx, usd(1_000));
      for (let i = 0; i < 5; i++) await post(tx, usd(-100));
    });
    const data = await ok200(same.key, `/wallet/${same.organisationId}/transactions`);
    expect(data.transactions.map((line: { balanceAfter: number }) => line.balanceAfter)).toEqual([5, 6, 7, 8, 9, 10]);
  });

  it('refuses a bad type, date or page with 400 naming the field', async () => {
    const url = `/wallet/${org.organisationId}/transactions`;
    await expect400(org.key, url, { type: 'GIFT' }, 'type');
    await expect400(org.key, url, { startDate: 'yesterday-ish' }, 'startDate');
    await expect400(org.key, url, { endDate: '2026-13-45' }, 'endDate');
    await expect400(org.key, url, { page: '0' }, 'page');
    await expect400(org.key, url, { limit: 'many' }, 'limit');
  });
});

describe('GET /wallet/{organisationId}/check-balance', () => {
  it('compares with the wallet, false without one', async () => {
    const org = await seedOrganisation(t.db.sql, 'Check');
    const url = `/wallet/${org.organisationId}/check-balance`;
    expect(await ok200(org.key, url, { amount: '1' })).toEqual({ hasEnoughBalance: false, requiredAmount: 1 });
    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 500 });
    expect(await ok200(org.key, url, { amount: '5' })).toEqual({ hasEnoughBalance: true, requiredAmount: 5 });
    expect(await ok200(org.key, url, { amount: '5.01' })).toEqual({ hasEnoughBalance: false, requiredAmount: 5.01 });
    expect((await ok200(org.key, url, { amount: '4.999' })).hasEnoughBalance).toBe(true);
    await expect400(org.key, url, {}, 'amount');
    await expect400(org.key, url, { amount: '0' }, 'amount');
    await expect400(org.key, url, { amount: '-3' }, 'amount');
    await expect400(org.key, url, { amount: 'lots' }, 'amount');
  });
});

describe('GET /billing/details, /billing/config, /billing/status', () => {
  it('shows the billing identity', async () => {
    const org = await seedOrganisation(t.db.sql, 'Identity');
    await t.db
      .sql`update organisations set billing_country = 'in', company_name = 'Acme Pvt', gstin = '29ABCDE1234F1Z5',
                   city = 'Bengaluru', mobile = '+919800000000' where id = ${org.organisationId}`;
    expect(await ok200(org.key, `/billing/details/${org.organisationId}`)).toEqual({
      billingCountry: 'IN',
      companyName: 'Acme Pvt',
      companyRegistrationNumber: null,
      addressLine1: null,
      addressLine2: null,
      city: 'Bengaluru',
      state: null,
      postalCode: null,
      gstin: '29ABCDE1234F1Z5',
      mobile: '+919800000000',
    });
  });

  it('needs billing:read and the own organisation on every billing read', async () => {
    const org = await seedOrganisation(t.db.sql, 'Billing scope');
    const narrow = await keyWithout(t.db.sql, org, 'billing:read');
    const subscription = await seedSubscription(t.db.sql, org.organisationId, PLAN.starterUsd);
    const id = org.organisationId;
    const urls = [
      `/billing/details/${id}`,
      `/billing/config/${id}`,
      `/billing/status/${id}`,
      `/billing/usage/${id}`,
      `/billing/usage/${id}/details`,
      `/billing/plans`,
      `/billing/rate-card`,
      `/billing/balance`,
      `/billing/subscriptions/${subscription}/change-quote?planId=${PLAN.proUsd}`,
    ];
    for (const url of urls) {
      expect((await t.call(narrow, { method: 'GET', url: `/api/v1${url}` })).statusCode, url).toBe(403);
    }
    for (const url of urls.slice(0, 5)) {
      expect((await t.call(other.key, { method: 'GET', url: `/api/v1${url}` })).statusCode, url).toBe(403);
    }
    for (const url of ['/billing/plans', '/billing/rate-card', '/billing/balance']) {
      const res = await get(other.key, url, { organisationId: id });
      expect(res.statusCode, url).toBe(403);
    }
    // Another organisation's subscription is not found for this key.
    const quote = await get(other.key, `/billing/subscriptions/${subscription}/change-quote`, { planId: PLAN.proUsd });
    expect(quote.statusCode).toBe(404);
  });

  it('config: rate card prices by default, the billing account’s own where set', async () => {
    const org = await seedOrganisation(t.db.sql, 'Config');
    expect(await ok200(org.key, `/billing/config/${org.organisationId}`)).toEqual({
      ratePerMinute: 0.05,
      ratePerMessage: 0.005,
      lowBalanceThreshold: 5,
      minTopUpAmount: 10,
      topUpQuickAmounts: [10, 25, 50, 100],
      isActive: true,
    });
    await t.db
      .sql`insert into billing_accounts (organisation_id, rate_per_minute_e4, low_balance_threshold_minor, is_suspended)
                   values (${org.organisationId}, 80000, 200, true)`;
    expect(await ok200(org.key, `/billing/config/${org.organisationId}`)).toMatchObject({
      ratePerMinute: 0.08,
      ratePerMessage: 0.005,
      lowBalanceThreshold: 2,
      isActive: false,
    });
  });

  it('status: every field; calls need 1.00, no unpaid usage and no suspension', async () => {
    const org = await seedOrganisation(t.db.sql, 'Status');
    const url = `/billing/status/${org.organisationId}`;
    expect(await ok200(org.key, url)).toEqual({
      canMakeCalls: false,
      canSendMessage: false,
      isActive: true,
      isSuspended: false,
      balance: 0,
      isLowBalance: true,
      ratePerMinute: 0.05,
      ratePerMessage: 0.005,
      currency: 'USD',
      billingCountry: null,
      displayCurrency: 'USD',
      fxRate: 1,
      fxSource: 'fixed',
      checkoutCurrency: 'USD',
      hasPaid: false,
      minTopUpAmount: 10,
      topUpQuickAmounts: [10, 25, 50, 100],
      billingModel: 'LEGACY_USD',
    });
    expect(await callPermission(t.db.sql, org.organisationId)).toMatchObject({
      allowed: false,
      reason: 'insufficient_balance',
    });

    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 99 });
    expect(await ok200(org.key, url)).toMatchObject({ canMakeCalls: false, canSendMessage: true, balance: 0.99 });
    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 100, hasPaid: true });
    expect(await ok200(org.key, url)).toMatchObject({ canMakeCalls: true, isLowBalance: true, hasPaid: true });
    expect(await callPermission(t.db.sql, org.organisationId)).toEqual({ allowed: true });
    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 600, hasPaid: true });
    expect(await ok200(org.key, url)).toMatchObject({ canMakeCalls: true, isLowBalance: false });

    await seedUsage(t.db.sql, org.organisationId);
    expect(await ok200(org.key, url)).toMatchObject({ canMakeCalls: false, canSendMessage: false });
    expect(await callPermission(t.db.sql, org.organisationId)).toMatchObject({ reason: 'unpaid_usage' });
    await t.db.sql`update usage_records set wallet_deducted = true where organisation_id = ${org.organisationId}`;

    await t.db.sql`insert into billing_accounts (organisation_id, is_suspended, suspended_reason)
                   values (${org.organisationId}, true, 'chargeback') on conflict (organisation_id)
                   do update set is_suspended = true, suspended_reason = 'chargeback'`;
    expect(await ok200(org.key, url)).toMatchObject({ canMakeCalls: false, isSuspended: true });
    const refusal = await callPermission(t.db.sql, org.organisationId);
    expect(refusal).toMatchObject({ allowed: false, reason: 'suspended' });
    expect(refusal.allowed || refusal.message).toContain('chargeback');
  });

  it('status on plan billing: calls from the plan wallet, balance and rates still pay-as-you-go', async () => {
    const org = await seedOrganisation(t.db.sql, 'Plan status');
    await setBillingModel(t.db.sql, org.organisationId, 'WALLET');
    await setCountry(t.db.sql, org.organisationId, 'IN');
    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 5_000 });
    const url = `/billing/status/${org.organisationId}`;
    expect(await ok200(org.key, url)).toMatchObject({
      canMakeCalls: false,
      canSendMessage: false,
      balance: 50,
      billingModel: 'WALLET',
      displayCurrency: 'INR',
      checkoutCurrency: 'INR',
      fxRate: null,
      billingCountry: 'IN',
    });
    // A lapsed grant is not money to spend, even before the sweep moves it out.
    await seedPlanGrant(t.db.sql, org.organisationId, { amountMinor: 500, expiresAt: new Date(Date.now() + 1_000) });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await ok200(org.key, url)).toMatchObject({ canMakeCalls: false });
    await seedPlanGrant(t.db.sql, org.organisationId, { amountMinor: 100 });
    expect(await ok200(org.key, url)).toMatchObject({ canMakeCalls: true, canSendMessage: true, balance: 50 });
  });
});

describe('GET /billing/usage', () => {
  let org: SeededOrganisation;
  beforeAll(async () => {
    org = await seedOrganisation(t.db.sql, 'Usage');
    await seedUsage(t.db.sql, org.organisationId, { durationSeconds: 61, billedSeconds: 66, totalE4: 60_000 });
    await seedUsage(t.db.sql, org.organisationId, { durationSeconds: 30, billedSeconds: 30, totalE4: 30_000 });
    // A call's recording has the call's duration: it is not talk time counted again.
    await seedUsage(t.db.sql, org.organisationId, {
      usageType: 'RECORDING',
      durationSeconds: 30,
      billedSeconds: 0,
      rateE4: 0,
      totalE4: 0,
    });
    await seedUsage(t.db.sql, org.organisationId, {
      usageType: 'CHATBOT_MESSAGE',
      callDirection: null,
      durationSeconds: 0,
      billedSeconds: 0,
      messageCount: 3,
      rateE4: 5_000,
      totalE4: 20_000,
    });
    await t.db.sql`update usage_records set billed = false
                   where organisation_id = ${org.organisationId} and usage_type = 'CHATBOT_MESSAGE'`;
    // Plan-wallet usage is another currency: not summed with the pay-as-you-go wallet's.
    await seedUsage(t.db.sql, org.organisationId, { wallet: 'PLAN_WALLET', currency: 'INR', totalE4: 350_000 });
  });

  it('totals by type, in major units, over both dates or all time', async () => {
    const url = `/billing/usage/${org.organisationId}`;
    expect(await ok200(org.key, url)).toEqual({
      periodStart: null,
      periodEnd: null,
      totalDurationSeconds: 91,
      totalDurationMinutes: 1.52,
      totalAmount: 0.11,
      totalCalls: 2,
      currency: 'USD',
      byUsageType: {
        CHATBOT_MESSAGE: { count: 1, durationSeconds: 0, amount: 0.02 },
        RECORDING: { count: 1, durationSeconds: 30, amount: 0 },
        VOICE_CALL: { count: 2, durationSeconds: 91, amount: 0.09 },
      },
    });
    const today = new Date().toISOString().slice(0, 10);
    const ranged = await ok200(org.key, url, { startDate: today, endDate: today });
    expect(ranged).toMatchObject({ totalCalls: 2, periodStart: `${today}T00:00:00.000Z` });
    const before = await ok200(org.key, url, { startDate: '2020-01-01', endDate: '2020-12-31' });
    expect(before).toMatchObject({ totalCalls: 0, totalAmount: 0, byUsageType: {} });
  });

  it('refuses one end of the range alone and bad dates, naming the field', async () => {
    const url = `/billing/usage/${org.organisationId}`;
    await expect400(org.key, url, { startDate: '2026-01-01' }, 'endDate');
    await expect400(org.key, url, { endDate: '2026-01-01' }, 'startDate');
    await expect400(org.key, url, { startDate: 'soon', endDate: '2026-01-01' }, 'startDate');
  });

  it('details: records newest first with filters, paging and named 400s', async () => {
    const url = `/billing/usage/${org.organisationId}/details`;
    const all = await ok200(org.key, url);
    expect(all.pagination).toEqual({ page: 1, limit: 20, total: 5, totalPages: 1 });
    const call = all.records.find((r: { totalAmount: number }) => r.totalAmount === 0.06);
    expect(call).toEqual({
      id: expect.any(String),
      organisationId: org.organisationId,
      voiceSessionId: null,
      roomName: 'room-1',
      callDirection: 'OUTBOUND',
      usageType: 'VOICE_CALL',
      durationSeconds: 61,
      billedSeconds: 66,
      messageCount: 0,
      ratePerMinute: 0.05,
      totalAmount: 0.06,
      currency: 'USD',
      startTime: expect.any(String),
      endTime: expect.any(String),
      billed: true,
      walletDeducted: false,
      createdAt: expect.any(String),
    });
    const chats = await ok200(org.key, url, { usageType: 'CHATBOT_MESSAGE' });
    expect(chats.records.map((r: { messageCount: number }) => r.messageCount)).toEqual([3]);
    expect((await ok200(org.key, url, { billed: 'false' })).pagination.total).toBe(1);
    expect((await ok200(org.key, url, { billed: 'true' })).pagination.total).toBe(4);
    const paged = await ok200(org.key, url, { limit: '500', page: '1' });
    expect(paged.pagination.limit).toBe(100);
    expect((await ok200(org.key, url, { limit: '-5' })).records).toHaveLength(1);
    await expect400(org.key, url, { usageType: 'FAX' }, 'usageType');
    await expect400(org.key, url, { billed: 'maybe' }, 'billed');
    await expect400(org.key, url, { startDate: 'x' }, 'startDate');
    await expect400(org.key, url, { page: '-1' }, 'page');
  });
});

describe('plans, rate card, plan wallet balance', () => {
  it('plans: 400 before a billing country; rupee plans with GST for India; canSubscribe', async () => {
    const org = await seedOrganisation(t.db.sql, 'Plans');
    await expect400(org.key, '/billing/plans', {}, 'billingCountry');
    await setCountry(t.db.sql, org.organisationId, 'IN');
    const india = await ok200(org.key, '/billing/plans', { organisationId: org.organisationId });
    expect(india).toMatchObject({
      organisationId: org.organisationId,
      billingCountry: 'IN',
      currency: 'INR',
      rail: 'upi_card',
      billingModel: 'LEGACY_USD',
      canSubscribe: true,
    });
    expect(india.plans.map((plan: { code: string }) => plan.code)).toEqual(['starter_monthly_inr', 'pro_monthly_inr']);
    expect(india.plans[0]).toEqual({
      planId: PLAN.starterInr,
      code: 'starter_monthly_inr',
      tier: 'STARTER',
      interval: 'MONTHLY',
      currency: 'INR',
      feeMinor: 249_900,
      perMonthMinor: 249_900,
      chargeMinor: 294_882,
      taxMinor: 44_982,
      taxInclusive: false,
      allowanceMinor: 249_900,
      perMinuteMinor: 350,
      minutesIncluded: 714,
      concurrentCalls: 2,
      topUpPresets: [100_000, 250_000, 500_000],
      rail: 'upi_card',
      collectionMode: 'MANDATE',
    });
    await setCountry(t.db.sql, org.organisationId, 'US');
    const us = await ok200(org.key, '/billing/plans');
    expect(us).toMatchObject({ currency: 'USD', canSubscribe: false, rail: 'card' });
    expect(us.plans[1]).toMatchObject({ code: 'pro_monthly_usd', taxMinor: 0, chargeMinor: 9_900, perMinuteMinor: 4 });
    await setBillingModel(t.db.sql, org.organisationId, 'WALLET');
    expect((await ok200(org.key, '/billing/plans')).canSubscribe).toBe(true);
  });

  it('rate card: USD Starter without a country, the paid plan’s tier, prices in force at `at`', async () => {
    const org = await seedOrganisation(t.db.sql, 'Rates');
    const card = await ok200(org.key, '/billing/rate-card');
    expect(card).toMatchObject({ organisationId: org.organisationId, currency: 'USD', tier: 'STARTER' });
    expect(card.lines).toHaveLength(4);
    expect(card.lines.find((line: { key: string }) => line.key === 'ai_phone_call_minute')).toEqual({
      key: 'ai_phone_call_minute',
      label: 'AI phone call, per minute',
      unit: 'MINUTE',
      priceMinor: 5,
      currency: 'USD',
      tier: 'STARTER',
      pulseSeconds: 6,
      minimumSeconds: 6,
      managedOnly: false,
      effectiveFrom: '2026-01-01T00:00:00.000Z',
    });

    await setCountry(t.db.sql, org.organisationId, 'IN');
    await seedSubscription(t.db.sql, org.organisationId, PLAN.proInr, { status: 'PENDING' });
    expect(await ok200(org.key, '/billing/rate-card')).toMatchObject({ currency: 'INR', tier: 'STARTER' });
    await t.db.sql`update billing_subscriptions set status = 'ACTIVE' where organisation_id = ${org.organisationId}`;
    const pro = await ok200(org.key, '/billing/rate-card');
    expect(pro).toMatchObject({ currency: 'INR', tier: 'PRO' });
    expect(pro.lines.find((line: { key: string }) => line.key === 'ai_phone_call_minute').priceMinor).toBe(280);

    // A new price from a later date: `at` before it shows the old one, after it the new one.
    await t.db.sql`insert into rate_card_lines (id, key, label, unit, price_e4, currency, tier, pulse_seconds,
                                                minimum_seconds, effective_from)
                   values (${newId()}, 'ai_phone_call_minute', 'AI phone call, per minute', 'MINUTE', 3000000, 'INR',
                           'PRO', 6, 6, '2030-01-01T00:00:00Z')`;
    const priceAt = async (at: string) =>
      (await ok200(org.key, '/billing/rate-card', { at })).lines.find(
        (line: { key: string }) => line.key === 'ai_phone_call_minute',
      ).priceMinor;
    expect(await priceAt('2029-12-31T23:59:59Z')).toBe(280);
    expect(await priceAt('2030-01-01')).toBe(300);
    expect((await ok200(org.key, '/billing/rate-card', { at: 'March 3, 2031' })).effectiveAt).toBe(
      new Date('March 3, 2031').toISOString(),
    );
    expect((await ok200(org.key, '/billing/rate-card', { at: '2025-01-01' })).lines).toEqual([]);
    await expect400(org.key, '/billing/rate-card', { at: 'someday' }, 'at');
  });

  it('balance: spendable grants earliest-expiring first, the subscription and a pending checkout', async () => {
    const org = await seedOrganisation(t.db.sql, 'Balance');
    await setBillingModel(t.db.sql, org.organisationId, 'WALLET');
    await setCountry(t.db.sql, org.organisationId, 'IN');
    const empty = await ok200(org.key, '/billing/balance');
    expect(empty).toEqual({
      organisationId: org.organisationId,
      billingModel: 'WALLET',
      balanceMinor: 0,
      currency: 'INR',
      planMinor: 0,
      topUpMinor: 0,
      grants: [],
      nextRefreshAt: null,
      subscription: null,
      pendingCheckout: null,
    });
    await seedPlanGrant(t.db.sql, org.organisationId, {
      amountMinor: 1_000.5,
      source: 'TOP_UP',
      expiresAt: new Date(Date.now() + 300 * DAY_MS),
    });
    await seedPlanGrant(t.db.sql, org.organisationId, { amountMinor: 249_900 });
    const subscription = await seedSubscription(t.db.sql, org.organisationId, PLAN.starterInr);
    await t.db.sql`insert into payments (id, organisation_id, kind, status, gateway, charge_minor, charge_currency,
                                         credit_amount, credit_currency, billing_country)
                   values (${newId()}, ${org.organisationId}, 'PLAN_TOPUP', 'PENDING', 'test', 118000, 'INR',
                           1000000000, 'INR', 'IN')`;
    const data = await ok200(org.key, '/billing/balance');
    expect(data).toMatchObject({ balanceMinor: 250_900.5, planMinor: 249_900, topUpMinor: 1_000.5, currency: 'INR' });
    expect(data.grants.map((grant: { source: string }) => grant.source)).toEqual(['PLAN_CYCLE', 'TOP_UP']);
    expect(data.grants[1]).toMatchObject({ amountMinor: 1_000.5, remainingMinor: 1_000.5 });
    expect(data.subscription).toMatchObject({
      id: subscription,
      status: 'ACTIVE',
      planId: PLAN.starterInr,
      planCode: 'starter_monthly_inr',
      tier: 'STARTER',
      interval: 'MONTHLY',
      currency: 'INR',
      allowanceMinor: 249_900,
      cancelAtPeriodEnd: false,
      graceUntil: null,
      checkoutUrl: null,
      scheduledChange: null,
      renewalNeedsApproval: false,
      canRestart: false,
    });
    expect(data.nextRefreshAt).toBe(data.subscription.nextGrantAt);
    expect(data.pendingCheckout).toMatchObject({ kind: 'PLAN_TOPUP', chargeMinor: 118_000, currency: 'INR' });
  });
});

describe('changing a subscription plan', () => {
  const start = new Date(Date.now() - 15 * DAY_MS);
  const end = new Date(start.getTime() + 30 * DAY_MS);

  async function subscribed(country: string, planId: string) {
    const org = await seedOrganisation(t.db.sql, `Change ${country}`);
    await setBillingModel(t.db.sql, org.organisationId, 'WALLET');
    await setCountry(t.db.sql, org.organisationId, country);
    const id = await seedSubscription(t.db.sql, org.organisationId, planId, { periodStart: start, periodEnd: end });
    return { org, id };
  }

  it('India: an upgrade pays the rest of the period now with GST and starts at period end', async () => {
    const { org, id } = await subscribed('IN', PLAN.starterInr);
    const quote = await ok200(org.key, `/billing/subscriptions/${id}/change-quote`, { planId: PLAN.proInr });
    // (799.90 − 249.90 rupees) for about half the period, then 18% on top.
    expect(quote).toMatchObject({
      subscriptionId: id,
      direction: 'UPGRADE',
      effective: 'PERIOD_END',
      effectiveAt: end.toISOString(),
      currency: 'INR',
      currentPlan: { planId: PLAN.starterInr, code: 'starter_monthly_inr', feeMinor: 249_900 },
      newPlan: { planId: PLAN.proInr, tier: 'PRO', feeMinor: 799_900 },
    });
    expect(quote.subtotalMinor).toBeGreaterThan(274_990);
    expect(quote.subtotalMinor).toBeLessThan(275_010);
    expect(quote.taxMinor).toBe(Math.ceil(quote.subtotalMinor * 0.18));
    expect(quote.dueNow).toBe(quote.subtotalMinor + quote.taxMinor);
    // The quote creates nothing.
    expect((await ok200(org.key, '/billing/balance')).subscription.scheduledChange).toBeNull();

    const res = await t.call(org.key, {
      method: 'POST',
      url: `/api/v1/billing/subscriptions/${id}/change`,
      payload: { planId: PLAN.proInr },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { subscription, quote: applied } = res.json().data;
    expect(applied.effective).toBe('PERIOD_END');
    expect(subscription).toMatchObject({
      planId: PLAN.starterInr,
      scheduledChange: { planId: PLAN.proInr, planCode: 'pro_monthly_inr', effectiveAt: end.toISOString() },
    });
    expect(subscription.scheduledChange.dueNowMinor).toBe(applied.dueNow);
  });

  it('India: a downgrade costs nothing now and starts at period end', async () => {
    const { org, id } = await subscribed('IN', PLAN.proInr);
    const quote = await ok200(org.key, `/billing/subscriptions/${id}/change-quote`, { planId: PLAN.starterInr });
    expect(quote).toMatchObject({ direction: 'DOWNGRADE', effective: 'PERIOD_END', dueNow: 0 });
  });

  it('elsewhere: an upgrade switches now (dueNow null), a downgrade waits for renewal', async () => {
    const { org, id } = await subscribed('US', PLAN.starterUsd);
    const quote = await ok200(org.key, `/billing/subscriptions/${id}/change-quote`, { planId: PLAN.proUsd });
    expect(quote).toMatchObject({ direction: 'UPGRADE', effective: 'IMMEDIATE', dueNow: null, taxMinor: null });
    const up = await t.call(org.key, {
      method: 'POST',
      url: `/api/v1/billing/subscriptions/${id}/change`,
      payload: { planId: PLAN.proUsd },
    });
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json().data.subscription).toMatchObject({ planId: PLAN.proUsd, tier: 'PRO', scheduledChange: null });

    const down = await t.call(org.key, {
      method: 'POST',
      url: `/api/v1/billing/subscriptions/${id}/change`,
      payload: { planId: PLAN.starterUsd },
    });
    expect(down.statusCode, down.body).toBe(200);
    expect(down.json().data.quote).toMatchObject({ direction: 'DOWNGRADE', effective: 'PERIOD_END', dueNow: null });
    expect(down.json().data.subscription).toMatchObject({
      planId: PLAN.proUsd,
      scheduledChange: { planId: PLAN.starterUsd, effectiveAt: end.toISOString() },
    });
  });

  it('refuses the current plan, another currency, a missing or inactive subscription, and non-managers', async () => {
    const { org, id } = await subscribed('US', PLAN.starterUsd);
    const quoteUrl = `/billing/subscriptions/${id}/change-quote`;
    await expect400(org.key, quoteUrl, { planId: PLAN.starterUsd }, 'planId');
    await expect400(org.key, quoteUrl, { planId: PLAN.proInr }, 'planId');
    await expect400(org.key, quoteUrl, { planId: newId() }, 'planId');
    await expect400(org.key, quoteUrl, {}, 'planId');
    expect(
      (await get(org.key, `/billing/subscriptions/${newId()}/change-quote`, { planId: PLAN.proUsd })).statusCode,
    ).toBe(404);

    const viewer = await seedMember(t.db.sql, org.organisationId, 'VIEWER', ['billing:read', 'wallet:write']);
    const refused = await t.call(viewer.key, {
      method: 'POST',
      url: `/api/v1/billing/subscriptions/${id}/change`,
      payload: { planId: PLAN.proUsd },
    });
    expect(refused.statusCode).toBe(403);
    const noScope = await keyWithout(t.db.sql, org, 'wallet:write');
    const scoped = await t.call(noScope, {
      method: 'POST',
      url: `/api/v1/billing/subscriptions/${id}/change`,
      payload: { planId: PLAN.proUsd },
    });
    expect(scoped.statusCode).toBe(403);
    const foreign = await t.call(other.key, {
      method: 'POST',
      url: `/api/v1/billing/subscriptions/${id}/change`,
      payload: { planId: PLAN.proUsd },
    });
    expect(foreign.statusCode).toBe(404);

    await t.db.sql`update billing_subscriptions set status = 'PAST_DUE' where id = ${id}`;
    expect((await get(org.key, quoteUrl, { planId: PLAN.proUsd })).statusCode).toBe(409);
    expect((await ok200(org.key, '/billing/balance')).subscription).toMatchObject({ renewalNeedsApproval: true });
  });
});
