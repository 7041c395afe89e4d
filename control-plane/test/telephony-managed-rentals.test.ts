/**
 * Managed number rentals: the numbers on offer, renting one (the first month charged to the plan wallet once the
 * carrier confirms), giving it back, and the rental job's renewals, arrears and releases — against the carrier-a
 * fake's service account and the real ledger.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/db/ids.ts';
import { RENTAL_PERIOD_MS } from '../src/billing/rental-metering.ts';
import { CarrierAInventory } from '../src/carriers/carrier-a/inventory.ts';
import { NumberRentalJob, PENDING_STALE_MS, RENTAL_GRACE_MS } from '../src/telephony/number-rental-job.ts';
import { walletReplay } from '../src/wallet/ledger-repository.ts';
import { startTelephonyTestApp, type TelephonyTestApp } from './fakes/carriers/telephony-test-app.ts';
import { PLAN, seedPlanGrant, seedSubscription, setBillingModel } from './support/billing.ts';
import { enableFeatures, seedOrganisation, type SeededOrganisation } from './support/seed.ts';

/** The rate card's number_rental_month line for INR (migration 010): 50,000 paise a month, in e4. */
const MONTH_E4 = 500_000_000;

let t: TelephonyTestApp;
let job: NumberRentalJob;

beforeAll(async () => {
  t = await startTelephonyTestApp({ carrierAServiceAccount: true });
  const service = t.carrierAService!;
  job = new NumberRentalJob(t.db.sql, new CarrierAInventory({ baseUrl: t.carrierA.url, credentials: service }));
});
afterAll(() => t?.close());

/** An organisation that may rent: managed numbers on, billed in India, verified, on an INR plan with money. */
async function renter(options: { walletMinor?: number; verified?: boolean; plan?: boolean } = {}) {
  const o = await seedOrganisation(t.db.sql, 'Renter');
  await enableFeatures(t.db.sql, o.organisationId, ['managed_numbers']);
  await t.db.sql`update organisations set billing_country = 'IN' where id = ${o.organisationId}`;
  if (options.verified ?? true) {
    await t.db.sql`insert into telephony_integrations (id, organisation_id, provider, account_ref, config)
      values (${newId()}, ${o.organisationId}, 'carrier-d', ${`kyc-${o.organisationId}`},
              ${t.db.sql.json({ kyc_status: 'approved' })})`;
  }
  if (options.plan ?? true) {
    await setBillingModel(t.db.sql, o.organisationId, 'WALLET');
    await seedSubscription(t.db.sql, o.organisationId, PLAN.starterInr);
  }
  if (options.walletMinor) await seedPlanGrant(t.db.sql, o.organisationId, { amountMinor: options.walletMinor });
  return o;
}

const rent = (o: SeededOrganisation, phoneNumber: string) =>
  t.call(o.key, {
    method: 'POST',
    url: `/api/v1/telephony/managed/${o.organisationId}/numbers`,
    payload: { phoneNumber },
  });

async function planWalletE4(organisationId: string): Promise<number> {
  const [row] = await t.db.sql<{ balance: string }[]>`
    select balance from ledger_accounts where organisation_id = ${organisationId} and kind = 'PLAN_WALLET'`;
  return Number(row?.balance ?? 0);
}

async function rentalOf(phoneNumber: string) {
  const [row] = await t.db.sql<{ id: string; status: string; paid_through: Date | null; unpaid_since: Date | null }[]>`
    select id, status, paid_through, unpaid_since from number_rentals where phone_number = ${phoneNumber}
     order by created_at desc limit 1`;
  return row;
}

async function rentalUsage(organisationId: string) {
  return t.db.sql<{ total_e4: string; wallet_deducted: boolean }[]>`
    select total_e4, wallet_deducted from usage_records
     where organisation_id = ${organisationId} and usage_type = 'NUMBER_RENTAL' order by start_time`;
}

describe('managed number rentals', () => {
  it('lists the numbers on offer with the monthly price of the rate card', async () => {
    const o = await renter({ walletMinor: 100_000 });
    t.carrierA.offer('IN', ['+912240005000', '+918040005001']);
    const res = await t.call(o.key, {
      method: 'GET',
      url: `/api/v1/telephony/managed/${o.organisationId}/available?pattern=22`,
    });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.currency).toBe('INR');
    expect(data.monthlyPriceMinor).toBe(50_000);
    expect(data.numbers.map((n: { phoneNumber: string }) => n.phoneNumber)).toEqual(['+912240005000']);
  });

  it('rents a number: first month charged once, the number answers through Parley, giving it back stops it', async () => {
    const o = await renter({ walletMinor: 120_000 });
    t.carrierA.offer('IN', ['+912240006000']);
    const before = await planWalletE4(o.organisationId);

    const res = await rent(o, '+912240006000');
    expect(res.statusCode, res.body).toBe(201);
    const { number, rental } = res.json().data;
    expect(number).toMatchObject({ phoneNumber: '+912240006000', provider: 'carrier-a', status: 'ACTIVE' });
    expect(rental).toMatchObject({ status: 'ACTIVE', currency: 'INR', monthlyPriceMinor: 50_000 });
    expect(await planWalletE4(o.organisationId)).toBe(before - MONTH_E4);
    expect(await rentalUsage(o.organisationId)).toEqual([{ total_e4: String(MONTH_E4), wallet_deducted: true }]);

    // On the service account, answered by Parley's application at the inbound voice webhook.
    const atCarrier = t.carrierA.number(t.carrierAService!.authId, '+912240006000');
    const app = t.carrierA
      .applications(t.carrierAService!.authId)
      .find((a) => a.app_id === (atCarrier.application ?? '').split('/').at(-2));
    expect(app?.answer_url).toMatch(/\/webhooks\/carrier-a\/voice$/);

    // The status read lists it.
    const status = await t.call(o.key, { method: 'GET', url: `/api/v1/telephony/managed/${o.organisationId}` });
    expect(status.json().data.numbers.map((n: { id: string }) => n.id)).toEqual([number.id]);

    // Renting it again is a conflict, nothing charged.
    expect((await rent(o, '+912240006000')).statusCode).toBe(409);
    expect(await planWalletE4(o.organisationId)).toBe(before - MONTH_E4);

    const released = await t.call(o.key, {
      method: 'DELETE',
      url: `/api/v1/telephony/managed/${o.organisationId}/numbers/${number.id}`,
    });
    expect(released.statusCode, released.body).toBe(200);
    expect(released.json().data).toEqual({ released: true, id: number.id });
    expect(t.carrierA.numbers(t.carrierAService!.authId).map((n) => n.number)).not.toContain('912240006000');
    expect((await rentalOf('+912240006000'))?.status).toBe('RELEASED');
    const [row] = await t.db.sql<{ status: string }[]>`select status from phone_numbers where id = ${number.id}`;
    expect(row?.status).toBe('INACTIVE');
    // The month paid is not refunded.
    expect(await planWalletE4(o.organisationId)).toBe(before - MONTH_E4);
    for (const wallet of await walletReplay(t.db.sql, [o.organisationId])) expect(wallet.stored).toBe(wallet.replayed);
  });

  it('refuses before asking the carrier: a wallet short of a month (402), pay-as-you-go or no plan (409), unverified (409)', async () => {
    t.carrierA.offer('IN', ['+912240007000']);
    const poor = await renter({ walletMinor: 49_999 });
    const res = await rent(poor, '+912240007000');
    expect(res.statusCode, res.body).toBe(402);
    expect(res.json().message).toMatch(/top up the plan wallet/);

    const payg = await renter({ walletMinor: 100_000, plan: false });
    expect((await rent(payg, '+912240007000')).statusCode).toBe(409);

    const unverified = await renter({ walletMinor: 100_000, verified: false });
    const refused = await rent(unverified, '+912240007000');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('kyc_not_approved');

    // Nothing reached the carrier: the number is still on offer, and nobody was charged.
    expect(t.carrierA.numbers(t.carrierAService!.authId).map((n) => n.number)).not.toContain('912240007000');
    for (const o of [poor, payg, unverified]) expect(await rentalUsage(o.organisationId)).toEqual([]);
  });

  it('a number the carrier refuses or fails on charges nothing and leaves no live rental', async () => {
    const o = await renter({ walletMinor: 100_000 });
    const before = await planWalletE4(o.organisationId);
    const gone = await rent(o, '+912240008000'); // never offered
    expect(gone.statusCode, gone.body).toBe(400);
    expect((await rentalOf('+912240008000'))?.status).toBe('FAILED');

    t.carrierA.offer('IN', ['+912240008001']);
    t.carrierA.rentFailure = { status: 500, error: 'internal error' };
    try {
      expect((await rent(o, '+912240008001')).statusCode).toBe(502);
    } finally {
      t.carrierA.rentFailure = undefined;
    }
    expect(await planWalletE4(o.organisationId)).toBe(before);
    expect(await rentalUsage(o.organisationId)).toEqual([]);
    // Once the carrier is back, the same number can be rented.
    expect((await rent(o, '+912240008001')).statusCode).toBe(201);
  });

  it('the job renews each month once, lets an unpaid month run for the grace period, then gives the number back', async () => {
    const o = await renter({ walletMinor: 100_000 });
    t.carrierA.offer('IN', ['+912240009000']);
    expect((await rent(o, '+912240009000')).statusCode).toBe(201);
    const first = (await rentalOf('+912240009000'))!;

    // A month later: the second month is charged, once, however many passes (two instances) run.
    const due = new Date(first.paid_through!.getTime() + 1_000);
    await Promise.all([job.runOnce(due), job.runOnce(due), job.runOnce(due)]);
    const renewed = (await rentalOf('+912240009000'))!;
    expect(renewed.status).toBe('ACTIVE');
    expect(renewed.paid_through!.getTime()).toBe(first.paid_through!.getTime() + RENTAL_PERIOD_MS);
    expect(await rentalUsage(o.organisationId)).toHaveLength(2);
    expect(await planWalletE4(o.organisationId)).toBe(100_000 * 10_000 - 2 * MONTH_E4);

    // The third month: the wallet is empty. The number keeps answering, UNPAID, and is tried again each pass.
    const third = new Date(renewed.paid_through!.getTime() + 1_000);
    // (Other tests' rentals share the database, so passes are judged by this rental, not by their counts.)
    await job.runOnce(third);
    expect((await rentalOf('+912240009000'))?.status).toBe('UNPAID');
    expect(t.carrierA.numbers(t.carrierAService!.authId).map((n) => n.number)).toContain('912240009000');

    // Within the grace period a top-up pays it: ACTIVE again.
    await seedPlanGrant(t.db.sql, o.organisationId, { amountMinor: 50_000, source: 'TOP_UP' });
    await job.runOnce(new Date(third.getTime() + 60_000));
    const caughtUp = (await rentalOf('+912240009000'))!;
    expect(caughtUp).toMatchObject({ status: 'ACTIVE', unpaid_since: null });

    // The fourth month goes unpaid past the grace period: given back, retired, never charged.
    const fourth = new Date(caughtUp.paid_through!.getTime() + 1_000);
    await job.runOnce(fourth);
    expect((await rentalOf('+912240009000'))?.status).toBe('UNPAID');
    await job.runOnce(new Date(fourth.getTime() + RENTAL_GRACE_MS + 1_000));
    expect((await rentalOf('+912240009000'))?.status).toBe('RELEASED');
    expect(t.carrierA.numbers(t.carrierAService!.authId).map((n) => n.number)).not.toContain('912240009000');
    expect(await rentalUsage(o.organisationId)).toHaveLength(3);
    for (const wallet of await walletReplay(t.db.sql, [o.organisationId])) expect(wallet.stored).toBe(wallet.replayed);
  });

  it('a rent abandoned midway (process died while the carrier was asked) is given back by the job', async () => {
    const o = await renter({ walletMinor: 100_000 });
    t.carrierA.offer('IN', ['+912240010000']);
    // As a process that died after the carrier rented it: the intent recorded, the number at the carrier.
    await t.db
      .sql`insert into number_rentals (id, organisation_id, phone_number, status, currency, monthly_price_e4, created_at)
      values (${newId()}, ${o.organisationId}, '+912240010000', 'PENDING', 'INR', ${MONTH_E4}, now() - interval '1 hour')`;
    t.carrierA.addNumber(t.carrierAService!.authId, '+912240010000');

    await job.runOnce(new Date(Date.now() + PENDING_STALE_MS));
    expect((await rentalOf('+912240010000'))?.status).toBe('FAILED');
    expect(t.carrierA.numbers(t.carrierAService!.authId).map((n) => n.number)).not.toContain('912240010000');
    expect(await rentalUsage(o.organisationId)).toEqual([]);
  });
});
