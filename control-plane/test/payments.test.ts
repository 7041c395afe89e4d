/**
 * Top-ups and payments (issue 14 items 4–5), end to end against the real database and the payment processor's
 * contract fake over HTTP: quote → order → the processor's signed webhook → the wallet credited once. Every refusal
 * is checked for what it must not do: no processor order, no credit, the quote still usable where the spec says so.
 */
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/app.ts';
import { seedMember, seedOrganisation, seedWallet, type SeededOrganisation } from './support/seed.ts';
import { RazorpayFake } from './fakes/payments/razorpay-fake.ts';
import { insertUsage } from '../src/billing/usage-repository.ts';
import { PaymentProcessorError, RazorpayClient } from '../src/integrations/payments/razorpay.ts';

let fake: RazorpayFake;
let t: TestApp;
let bare: TestApp;

beforeAll(async () => {
  fake = await RazorpayFake.start();
  t = await startTestApp({
    rateLimits: { widget: 1000 },
    payments: {
      apiUrl: fake.url,
      credentials: {
        keyId: fake.account.keyId,
        keySecret: fake.account.keySecret,
        webhookSecret: fake.account.webhookSecret,
      },
      usdInrRateE4: 832_500,
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  fake.webhookUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/webhooks/payments/razorpay`;
  // The same database without payment settings: card payments unavailable.
  bare = await startTestApp({ db: t.db });
});

afterAll(async () => {
  await bare?.close();
  await t?.close();
  await fake?.close();
});

/** Decoded JSON bodies and rows, typed as JSON.parse types what it decodes. */
type Json = Record<string, ReturnType<typeof JSON.parse>>;

async function organisation(country: string | null, model: 'LEGACY_USD' | 'WALLET' = 'LEGACY_USD') {
  const org = await seedOrganisation(t.db.sql, `Org ${country ?? 'none'} ${model}`);
  await t.db.sql`update organisations set billing_country = ${country} where id = ${org.organisationId}`;
  await t.db.sql`insert into billing_accounts (organisation_id, billing_model) values (${org.organisationId}, ${model})
                 on conflict (organisation_id) do update set billing_model = excluded.billing_model`;
  return org;
}

async function quote(org: SeededOrganisation, amount: number, extra: Json = {}) {
  const response = await t.call(org.key, {
    method: 'POST',
    url: '/api/v1/billing/topup-quote',
    payload: { organisationId: org.organisationId, amount, ...extra },
  });
  return { status: response.statusCode, body: response.json() as Json };
}

function orderBody(org: SeededOrganisation, q: Json): Json {
  return {
    organisationId: org.organisationId,
    amount: q.walletCredit.amount,
    currency: q.walletCredit.currency,
    expectedTotal: {
      amount: q.total,
      currency: q.chargeCurrency,
      walletCreditUsd: q.walletCreditUsd,
      quoteId: q.quoteId,
    },
  };
}

async function createOrder(org: SeededOrganisation, body: Json, key = org.key) {
  const response = await t.call(key, { method: 'POST', url: '/api/v1/payments/create-order', payload: body });
  return { status: response.statusCode, body: response.json() as Json };
}

async function quotedOrder(org: SeededOrganisation, amount: number) {
  const q = await quote(org, amount);
  expect(q.status).toBe(200);
  const order = await createOrder(org, orderBody(org, q.body.data));
  expect(order.status).toBe(201);
  return order.body.data as Json;
}

async function wallet(organisationId: string, kind: 'WALLET' | 'PLAN_WALLET' = 'WALLET') {
  const [row] = await t.db.sql<{ balance: string; has_paid: boolean; currency: string }[]>`
    select balance, has_paid, currency from ledger_accounts where organisation_id = ${organisationId} and kind = ${kind}`;
  return row ? { balance: Number(row.balance), hasPaid: row.has_paid, currency: row.currency } : undefined;
}

async function creditsOf(paymentId: string) {
  return t.db.sql<Json[]>`
    select t.id, t.type, t.reference_type, t.reference_id, t.actor, e.amount, e.balance_after
      from ledger_transactions t join ledger_entries e on e.transaction_id = t.id and e.balance_after is not null
     where t.idempotency_key = ${`payment:${paymentId}`}`;
}

async function payment(paymentId: string) {
  const [row] = await t.db.sql<Json[]>`select * from payments where id = ${paymentId}`;
  return row!;
}

const ordersAtProcessor = () => fake.orderRequests().length;

/** The topup_quotes row a quoteId names (its signed terms carry it). */
const rowIdOf = (quoteId: string): string =>
  JSON.parse(Buffer.from(quoteId.split('.')[0]!, 'base64url').toString()).quoteId;

describe('pay-as-you-go top-up', () => {
  it('quotes in dollars outside India, in rupees with 18 % GST in India, signed and stored for 10 minutes', async () => {
    const us = await organisation('US');
    const usQuote = await quote(us, 25);
    expect(usQuote.status).toBe(200);
    expect(usQuote.body.data).toMatchObject({
      gateway: 'razorpay',
      walletCredit: { amount: 25, currency: 'USD' },
      walletCreditUsd: 25,
      subtotal: 25,
      platformFee: 0,
      tax: 0,
      total: 25,
      chargeCurrency: 'USD',
      fx: null,
      rate: 1,
      minimumTopUp: { amountUsd: 10, meetsMinimum: true },
    });
    const expiresIn = Date.parse(usQuote.body.data.expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(9 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(10 * 60_000);

    const india = await organisation('IN');
    const inQuote = await quote(india, 1000, { currency: 'INR' });
    expect(inQuote.body.data).toMatchObject({
      walletCredit: { amount: 1000, currency: 'INR' },
      walletCreditUsd: 12.01,
      tax: 180,
      taxLabel: 'GST 18 %',
      total: 1180,
      chargeCurrency: 'INR',
      fx: { from: 'USD', to: 'INR', rate: 83.25, source: 'configured' },
      rate: 83.25,
    });
    const [stored] = await t.db.sql<Json[]>`select * from topup_quotes where organisation_id = ${india.organisationId}`;
    expect(stored).toMatchObject({ billing_country: 'IN', total_minor: '118000', wallet_credit_usd_minor: '1201' });

    expect((await quote(us, 5)).body.data.minimumTopUp).toEqual({ amountUsd: 10, meetsMinimum: false });
  });

  it('refuses quotes it cannot give: no country, wrong currency, bad amount, plan billing, a viewer, no processor', async () => {
    const none = await organisation(null);
    expect((await quote(none, 20)).status).toBe(400);
    const us = await organisation('US');
    const wrongCurrency = await quote(us, 20, { currency: 'INR' });
    expect(wrongCurrency.status).toBe(400);
    expect(wrongCurrency.body.message).toMatch(/body\.currency must be USD/);
    expect((await quote(us, 0)).status).toBe(400);
    expect((await quote(us, 10.005)).status).toBe(400);
    const plan = await organisation('US', 'WALLET');
    const planQuote = await quote(plan, 20);
    expect(planQuote.status).toBe(409);
    expect(planQuote.body.message).toMatch(/POST \/billing\/topups/);
    const viewer = await seedMember(t.db.sql, us.organisationId, 'VIEWER', ['wallet:write']);
    const byViewer = await t.call(viewer.key, {
      method: 'POST',
      url: '/api/v1/billing/topup-quote',
      payload: { organisationId: us.organisationId, amount: 20 },
    });
    expect(byViewer.statusCode).toBe(403);
    const unavailable = await bare.call(us.key, {
      method: 'POST',
      url: '/api/v1/billing/topup-quote',
      payload: { organisationId: us.organisationId, amount: 20 },
    });
    expect(unavailable.statusCode).toBe(503);
    expect(unavailable.json().message).toMatch(/Card payments are unavailable.*PARLEY_PAYMENTS_KEY_ID/);
  });

  it('quote → order → signed webhook: the wallet is credited once, journaled as a TOP_UP credit, and usage settled', async () => {
    const org = await organisation('IN');
    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 0, hasPaid: false });
    // A call the empty wallet could not pay: the credit must settle it.
    await insertUsage(t.db.sql, {
      organisationId: org.organisationId,
      voiceSessionId: null,
      roomName: 'room-unpaid',
      callDirection: 'OUTBOUND',
      usageType: 'VOICE_CALL',
      durationSeconds: 60,
      billedSeconds: 60,
      messageCount: 0,
      rateE4: 500_000,
      totalE4: 500_000,
      currency: 'USD',
      wallet: 'WALLET',
      startTime: null,
      endTime: null,
      idempotencyKey: `unpaid-${org.organisationId}`,
    });

    const created = await quotedOrder(org, 1000);
    expect(created).toMatchObject({
      gateway: 'razorpay',
      pgKeyId: fake.account.keyId,
      amountMinor: 118_000,
      currency: 'INR',
      pgCustomerId: null,
      prefill: { email: expect.stringContaining('@example.com') },
    });
    expect(created.checkoutUrl).toMatch(new RegExp(`^${PUBLIC_URL}/pay/${created.paymentId}/\\d+\\.`));
    const atProcessor = fake.orders.get(created.pgOrderId)!;
    expect(atProcessor).toMatchObject({
      amount: 118_000,
      currency: 'INR',
      receipt: created.paymentId,
      status: 'created',
    });
    expect(atProcessor.notes).toMatchObject({ organisation_id: org.organisationId, payment_id: created.paymentId });
    expect(await payment(created.paymentId)).toMatchObject({ status: 'PENDING', credited_transaction_id: null });
    expect((await wallet(org.organisationId))!.balance).toBe(0);

    const [delivery] = await fake.pay(created.pgOrderId);
    expect(delivery!.status).toBe(200);
    expect(fake.orders.get(created.pgOrderId)).toMatchObject({ status: 'paid', amount_paid: 118_000 });
    expect(JSON.parse(delivery!.body).data.outcome).toBe('credited');

    const credits = await creditsOf(created.paymentId);
    expect(credits).toHaveLength(1);
    expect(credits[0]).toMatchObject({
      type: 'CREDIT',
      reference_type: 'TOP_UP',
      reference_id: created.paymentId,
      actor: 'payments',
      amount: '1201',
      balance_after: '1201',
    });
    const paid = await payment(created.paymentId);
    expect(paid).toMatchObject({ status: 'PAID', credited_transaction_id: credits[0]!.id });
    expect(paid.pg_payment_id).toMatch(/^pay_/);
    // 1201 cents in, the 50-cent call settled from it.
    expect(await wallet(org.organisationId)).toEqual({ balance: 1151, hasPaid: true, currency: 'USD' });
    const [usage] = await t.db.sql<Json[]>`
      select wallet_deducted from usage_records where organisation_id = ${org.organisationId}`;
    expect(usage!.wallet_deducted).toBe(true);
    const [event] = await t.db.sql<Json[]>`
      select signature_valid, outcome, event_type from payment_webhook_events where payload->'payload'->'payment'->'entity'->>'order_id' = ${created.pgOrderId}`;
    expect(event).toMatchObject({ signature_valid: true, outcome: 'credited', event_type: 'payment.captured' });
  });

  it('the same webhook delivered 5 times at once credits once', async () => {
    const org = await organisation('US');
    const created = await quotedOrder(org, 40);
    const deliveries = await fake.pay(created.pgOrderId, { times: 5 });
    expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200, 200, 200]);
    const outcomes = deliveries.map((d) => JSON.parse(d.body).data.outcome).sort();
    expect(outcomes).toEqual(['credited', 'duplicate', 'duplicate', 'duplicate', 'duplicate']);
    expect(await creditsOf(created.paymentId)).toHaveLength(1);
    expect((await wallet(org.organisationId))!.balance).toBe(4000);
    // The event is recorded once: its redeliveries carry the same X-Razorpay-Event-Id.
    const recorded = await t.db.sql`
      select 1 from payment_webhook_events where payload->'payload'->'payment'->'entity'->>'order_id' = ${created.pgOrderId}`;
    expect(recorded).toHaveLength(1);
    // A different event for the same payment (order.paid after payment.captured) changes nothing either.
    const [late] = await fake.pay(created.pgOrderId, { event: 'order.paid' });
    expect(JSON.parse(late!.body).data.outcome).toBe('duplicate');
    expect((await wallet(org.organisationId))!.balance).toBe(4000);
  });

  it('an unsigned or mis-signed webhook is refused, recorded as such, and changes nothing', async () => {
    const org = await organisation('US');
    const created = await quotedOrder(org, 15);
    const [unsigned] = await fake.pay(created.pgOrderId, { signature: 'none' });
    const [wrong] = await fake.pay(created.pgOrderId, { signature: 'wrong' });
    expect(unsigned!.status).toBe(400);
    expect(wrong!.status).toBe(400);
    expect(JSON.parse(wrong!.body).message).toMatch(/x-razorpay-signature/);
    expect(await creditsOf(created.paymentId)).toHaveLength(0);
    expect(await wallet(org.organisationId)).toBeUndefined();
    expect(await payment(created.paymentId)).toMatchObject({ status: 'PENDING', pg_payment_id: null });
    const refused = await t.db.sql<Json[]>`
      select outcome, event_type, payload from payment_webhook_events where not signature_valid order by received_at`;
    expect(refused.slice(-2)).toEqual([
      { outcome: 'unsigned', event_type: 'payment.captured', payload: null },
      { outcome: 'bad_signature', event_type: 'payment.captured', payload: null },
    ]);
    // The genuine one still works afterwards.
    const [genuine] = await fake.pay(created.pgOrderId);
    expect(JSON.parse(genuine!.body).data.outcome).toBe('credited');
  });

  it('a webhook whose amount or currency differs from the order credits nothing; payment.failed marks it FAILED', async () => {
    const org = await organisation('US');
    const created = await quotedOrder(org, 20);
    const [short] = await fake.pay(created.pgOrderId, { amount: 100 });
    expect(JSON.parse(short!.body).data.outcome).toBe('amount_mismatch');
    const [otherCurrency] = await fake.pay(created.pgOrderId, { currency: 'EUR' });
    expect(JSON.parse(otherCurrency!.body).data.outcome).toBe('amount_mismatch');
    expect(await creditsOf(created.paymentId)).toHaveLength(0);
    expect((await payment(created.paymentId)).status).toBe('PENDING');

    const [failed] = await fake.pay(created.pgOrderId, { event: 'payment.failed' });
    expect(JSON.parse(failed!.body).data.outcome).toBe('failed');
    expect((await payment(created.paymentId)).status).toBe('FAILED');
    // The payer tries again on the same order and succeeds.
    const [retry] = await fake.pay(created.pgOrderId);
    expect(JSON.parse(retry!.body).data.outcome).toBe('credited');
    expect((await wallet(org.organisationId))!.balance).toBe(2000);
  });
});

describe('the processor adapter against the fake', () => {
  it("creates orders with basic auth and reads the processor's refusals", async () => {
    const credentials = { keyId: fake.account.keyId, keySecret: fake.account.keySecret, webhookSecret: 'w' };
    const client = new RazorpayClient(`${fake.url}/`, credentials);
    const order = await client.createOrder({
      amountMinor: 150,
      currency: 'USD',
      receipt: 'adapter-1',
      notes: { a: 'b' },
    });
    expect(order).toEqual({
      id: expect.stringMatching(/^order_/),
      amountMinor: 150,
      currency: 'USD',
      status: 'created',
    });
    const auth = `Basic ${Buffer.from(`${credentials.keyId}:${credentials.keySecret}`).toString('base64')}`;
    const fetched = await fetch(`${fake.url}/v1/orders/${order.id}`, { headers: { authorization: auth } });
    expect(await fetched.json()).toMatchObject({
      id: order.id,
      entity: 'order',
      amount_due: 150,
      receipt: 'adapter-1',
    });

    const tooSmall = await client
      .createOrder({ amountMinor: 50, currency: 'USD', receipt: 'adapter-2', notes: {} })
      .catch((e) => e);
    expect(tooSmall).toBeInstanceOf(PaymentProcessorError);
    expect(tooSmall).toMatchObject({ kind: 'refused', status: 400 });
    expect(tooSmall.message).toMatch(/The amount must be at least USD 1.00 \(amount\)/);
    const wrongKey = new RazorpayClient(fake.url, { ...credentials, keySecret: 'wrong' });
    const refused = await wrongKey
      .createOrder({ amountMinor: 150, currency: 'USD', receipt: 'adapter-3', notes: {} })
      .catch((e) => e);
    expect(refused).toMatchObject({ kind: 'refused', status: 401 });
    expect(refused.message).toMatch(/Authentication failed/);
  });
});

describe('signed but strange webhooks', () => {
  it('answer without a 5xx and change nothing', async () => {
    const org = await organisation('US');
    const created = await quotedOrder(org, 10);
    const entity = { id: 'pay_Strange0000001', order_id: created.pgOrderId, amount: 1000, currency: 'USD' };
    const bodies = [
      'not json',
      '[]',
      'null',
      JSON.stringify({
        event: 'payment.captured',
        payload: { payment: { entity: { ...entity, order_id: `${created.pgOrderId}\u0000` } } },
      }),
      JSON.stringify({ event: 'payment.captured', payload: { payment: { entity: { ...entity, amount: 1000.5 } } } }),
      JSON.stringify({ event: 'payment.captured', payload: { payment: { entity: { ...entity, amount: 1e300 } } } }),
      JSON.stringify({
        event: 'payment.captured',
        payload: { payment: { entity: { ...entity, currency: 'usd\u0000' } } },
      }),
      JSON.stringify({ event: 'payment.captured\u0000', note: '\ud800', payload: { payment: { entity } } }),
      JSON.stringify({ event: { nested: true }, payload: [[[[[[[[[[]]]]]]]]]] }),
      JSON.stringify({
        event: 'payment.failed',
        payload: { payment: { entity: { id: 'pay_x', order_id: 'order_unknown' } } },
      }),
    ];
    for (const body of bodies) {
      const response = await fetch(fake.webhookUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-razorpay-signature': createHmac('sha256', fake.account.webhookSecret).update(body).digest('hex'),
          'x-razorpay-event-id': 'evt/../not an id',
        },
        body,
      });
      expect(response.status, body).toBeLessThan(500);
    }
    expect(await creditsOf(created.paymentId)).toHaveLength(0);
    expect((await payment(created.paymentId)).status).toBe('PENDING');
  });
});

describe('a quote is used once, as issued, by its own organisation, in time', () => {
  it('a quote used twice — one after the other, or at once — makes one order', async () => {
    const org = await organisation('US');
    const q = (await quote(org, 30)).body.data;
    const before = ordersAtProcessor();
    expect((await createOrder(org, orderBody(org, q))).status).toBe(201);
    const again = await createOrder(org, orderBody(org, q));
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already used/);

    const q2 = (await quote(org, 30)).body.data;
    const racing = await Promise.all([createOrder(org, orderBody(org, q2)), createOrder(org, orderBody(org, q2))]);
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(ordersAtProcessor() - before).toBe(2);
    const [counted] = await t.db.sql<{ count: string }[]>`
      select count(*) from payments where quote_id = ${rowIdOf(q2.quoteId)}`;
    expect(Number(counted!.count)).toBe(1);
  });

  it('an edited, forged, expired or foreign quote is refused with nothing ordered', async () => {
    const org = await organisation('IN');
    const other = await organisation('IN');
    const q = (await quote(org, 1000)).body.data;
    const before = ordersAtProcessor();
    const edits: Json[] = [
      { ...orderBody(org, q), amount: 2000 },
      { ...orderBody(org, q), expectedTotal: { ...orderBody(org, q).expectedTotal, amount: 1 } },
      { ...orderBody(org, q), expectedTotal: { ...orderBody(org, q).expectedTotal, walletCreditUsd: 100 } },
      { ...orderBody(org, q), expectedTotal: { ...orderBody(org, q).expectedTotal, currency: 'USD' } },
      { ...orderBody(org, q), currency: 'USD' },
      { ...orderBody(org, q), expectedTotal: { ...orderBody(org, q).expectedTotal, quoteId: `${q.quoteId}x` } },
      { ...orderBody(org, q), expectedTotal: { ...orderBody(org, q).expectedTotal, quoteId: 'forged' } },
    ];
    for (const body of edits) {
      const refused = await createOrder(org, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    // A quote re-signed with its terms changed is not Parley's signature.
    const [terms, ...signature] = q.quoteId.split('.');
    const changed = { ...JSON.parse(Buffer.from(terms, 'base64url').toString()), totalMinor: 100 };
    const reforged = `${Buffer.from(JSON.stringify(changed)).toString('base64url')}.${signature.join('.')}`;
    const forged = await createOrder(org, {
      ...orderBody(org, q),
      expectedTotal: { ...orderBody(org, q).expectedTotal, quoteId: reforged, amount: 1 },
    });
    expect(forged.status).toBe(400);

    // The other organisation echoes org's quote as its own.
    const foreign = await createOrder(other, { ...orderBody(other, q) });
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toMatch(/another organisation/);

    // Expired: the stored quote's 10 minutes are over.
    const late = (await quote(org, 1000)).body.data;
    await t.db
      .sql`update topup_quotes set expires_at = now() - interval '1 second', created_at = now() - interval '11 minutes'
                   where id = ${rowIdOf(late.quoteId)}`;
    const expired = await createOrder(org, orderBody(org, late));
    expect(expired.status).toBe(400);
    expect(expired.body.message).toMatch(/expired/);

    expect(ordersAtProcessor()).toBe(before);
    // The untouched quote was never used by those attempts.
    expect((await createOrder(org, orderBody(org, q))).status).toBe(201);
  });

  it('409 when the billing country or the total changed since the quote; 400 below the minimum', async () => {
    const org = await organisation('US');
    const q = (await quote(org, 20)).body.data;
    const pending = await quotedOrder(org, 20);
    const country = await t.call(org.key, {
      method: 'PUT',
      url: `/api/v1/billing/country/${org.organisationId}`,
      payload: { billingCountry: 'de' },
    });
    expect(country.statusCode).toBe(200);
    const moved = await createOrder(org, orderBody(org, q));
    expect(moved.status).toBe(409);
    expect(moved.body.message).toMatch(/billing country changed from US to DE/);
    // The country change expired the pending checkout; if the processor still captures it, the money is not lost.
    expect((await payment(pending.paymentId)).status).toBe('EXPIRED');
    const [late] = await fake.pay(pending.pgOrderId);
    expect(JSON.parse(late!.body).data.outcome).toBe('credited');
    expect((await wallet(org.organisationId))!.balance).toBe(2000);

    const india = await organisation('IN');
    const rupees = (await quote(india, 2000)).body.data;
    const changedRate = await startTestApp({
      db: t.db,
      secrets: t.secrets,
      payments: { ...(await paymentsOf()), usdInrRateE4: 850_000 },
    });
    try {
      const repriced = await changedRate.call(india.key, {
        method: 'POST',
        url: '/api/v1/payments/create-order',
        payload: orderBody(india, rupees),
      });
      expect(repriced.statusCode).toBe(409);
      expect(repriced.json().message).toMatch(/total changed/);
    } finally {
      await changedRate.close();
    }

    const small = (await quote(org, 5)).body.data;
    const below = await createOrder(org, orderBody(org, small));
    expect(below.status).toBe(400);
    expect(below.body.message).toMatch(/minimum top-up of 10 USD/);
  });

  it('a country change during an order waits for it, then expires the checkout it made', async () => {
    const org = await organisation('US');
    const q = (await quote(org, 20)).body.data;
    const hold = fake.server.hold((r) => r.path === '/v1/orders');
    const ordering = createOrder(org, orderBody(org, q));
    await hold.reached;
    const moving = t.call(org.key, {
      method: 'PUT',
      url: `/api/v1/billing/country/${org.organisationId}`,
      payload: { billingCountry: 'FR' },
    });
    // The country change queues behind the order's transaction rather than slipping between check and claim.
    await new Promise((resolve) => setTimeout(resolve, 200));
    hold.release();
    const [order, moved] = await Promise.all([ordering, moving]);
    expect(order.status).toBe(201);
    expect(moved.statusCode).toBe(200);
    expect((await payment(order.body.data.paymentId)).status).toBe('EXPIRED');
  });

  it('a processor that refuses or does not answer gives 502, stores nothing, and leaves the quote usable', async () => {
    const org = await organisation('US');
    const q = (await quote(org, 50)).body.data;
    fake.server.fail((r) => r.path === '/v1/orders', {
      status: 500,
      body: { error: { code: 'SERVER_ERROR', description: 'The server encountered an error.' } },
    });
    const refused = await createOrder(org, orderBody(org, q));
    expect(refused.status).toBe(502);
    expect(refused.body.message).toMatch(/nothing was charged/);

    const down = await startTestApp({
      db: t.db,
      secrets: t.secrets,
      payments: { ...(await paymentsOf()), apiUrl: 'http://127.0.0.1:9' },
    });
    try {
      const unreachable = await down.call(org.key, {
        method: 'POST',
        url: '/api/v1/payments/create-order',
        payload: orderBody(org, q),
      });
      expect(unreachable.statusCode).toBe(502);
      expect(unreachable.json().message).toMatch(/did not answer/);
    } finally {
      await down.close();
    }
    const [stored] = await t.db.sql<Json[]>`
      select used_at from topup_quotes where organisation_id = ${org.organisationId}`;
    expect(stored!.used_at).toBeNull();
    expect(await t.db.sql`select 1 from payments where organisation_id = ${org.organisationId}`).toHaveLength(0);
    expect((await createOrder(org, orderBody(org, q))).status).toBe(201);
  });
});

describe('plan-wallet top-up', () => {
  it('outside India: charged the amount in cents, returnUrl kept in the dashboard, a TOP_UP grant of 365 days when paid', async () => {
    const org = await organisation('US', 'WALLET');
    const topUp = (payload: Json) =>
      t.call(org.key, { method: 'POST', url: '/api/v1/billing/topups', payload }).then((r) => ({
        status: r.statusCode,
        body: r.json() as Json,
      }));
    const before = ordersAtProcessor();
    const small = await topUp({ amountMinor: 999 });
    expect(small.status).toBe(400);
    expect(small.body.message).toMatch(/at least 1000/);
    expect(ordersAtProcessor()).toBe(before);

    const created = await topUp({ amountMinor: 2500, returnUrl: 'https://evil.example/steal' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ rail: 'card', amountMinor: 2500, currency: 'USD', chargeMinor: 2500 });
    const paymentId = created.body.data.reference;
    expect(await payment(paymentId)).toMatchObject({
      kind: 'PLAN_TOPUP',
      return_url: `${PUBLIC_URL}/billing`,
      credit_amount: String(2500 * 10_000),
    });
    const inside = await topUp({ amountMinor: 1000, returnUrl: `${PUBLIC_URL}/billing/history?tab=1` });
    expect((await payment(inside.body.data.reference)).return_url).toBe(`${PUBLIC_URL}/billing/history?tab=1`);

    const { pg_order_id: pgOrderId } = await payment(paymentId);
    const deliveries = await fake.pay(pgOrderId, { times: 3 });
    expect(deliveries.map((d) => JSON.parse(d.body).data.outcome).sort()).toEqual([
      'credited',
      'duplicate',
      'duplicate',
    ]);
    expect(await wallet(org.organisationId, 'PLAN_WALLET')).toEqual({
      balance: 2500 * 10_000,
      hasPaid: true,
      currency: 'USD',
    });
    const [grant] = await t.db.sql<Json[]>`
      select source, amount, remaining, expires_at from wallet_grants where organisation_id = ${org.organisationId}`;
    expect(grant).toMatchObject({ source: 'TOP_UP', amount: String(2500 * 10_000), remaining: String(2500 * 10_000) });
    const days = (grant!.expires_at.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(364.9);
    expect(days).toBeLessThanOrEqual(365);
    expect(await creditsOf(paymentId)).toHaveLength(1);
  });

  it('India: 18 % on top, invoice details required; pay-as-you-go organisations are sent to the quote', async () => {
    const org = await organisation('IN', 'WALLET');
    const topUp = () =>
      t.call(org.key, {
        method: 'POST',
        url: '/api/v1/billing/topups',
        payload: { organisationId: org.organisationId, amountMinor: 100_000, returnUrl: 'https://elsewhere.example' },
      });
    const missing = await topUp();
    expect(missing.statusCode).toBe(409);
    expect(missing.json().message).toMatch(
      /invoice details are missing: companyName, addressLine1, city, state, postalCode/,
    );
    await t.db.sql`update organisations set company_name = 'Acme India Pvt Ltd', address_line1 = '1 MG Road',
                   city = 'Bengaluru', state = 'Karnataka', postal_code = '560001', gstin = '29ABCDE1234F1Z5'
                   where id = ${org.organisationId}`;
    const created = await topUp();
    expect(created.statusCode).toBe(201);
    expect(created.json().data).toMatchObject({
      rail: 'upi_card',
      amountMinor: 100_000,
      currency: 'INR',
      chargeMinor: 118_000,
    });
    expect((await payment(created.json().data.reference)).return_url).toBeNull();

    const payg = await organisation('IN');
    const refused = await t.call(payg.key, {
      method: 'POST',
      url: '/api/v1/billing/topups',
      payload: { amountMinor: 100_000 },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toMatch(/pay-as-you-go/);
  });
});

describe('the hosted payment page', () => {
  it('opens the processor checkout for the order with the signed link only', async () => {
    const org = await organisation('US');
    const created = await quotedOrder(org, 12.5);
    const url = new URL(created.checkoutUrl);
    const page = await t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('12.50 USD');
    expect(page.body).toContain(created.pgOrderId);
    expect(page.body).toContain(fake.account.keyId);
    expect(page.body).toContain('https://checkout.razorpay.com/v1/checkout.js');

    const token = decodeURIComponent(url.pathname.split('/').at(-1)!);
    const later = `${Number(token.split('.')[0]) + 1}${token.slice(token.indexOf('.'))}`;
    const tampered = await t.app.inject({
      method: 'GET',
      url: `/pay/${created.paymentId}/${encodeURIComponent(later)}`,
    });
    expect(tampered.statusCode).toBe(404);
    const other = await quotedOrder(org, 12.5);
    const swapped = await t.app.inject({ method: 'GET', url: `/pay/${other.paymentId}/${encodeURIComponent(token)}` });
    expect(swapped.statusCode).toBe(404);
    // Links of the earlier query form open the same page until they lapse.
    const queryForm = await t.app.inject({
      method: 'GET',
      url: `/pay/${created.paymentId}?token=${encodeURIComponent(token)}`,
    });
    expect(queryForm.statusCode).toBe(200);
    expect(queryForm.body).toContain(created.pgOrderId);
  });
});

describe('buying a plan', () => {
  const buy = (org: SeededOrganisation, payload: Json) =>
    t.call(org.key, { method: 'POST', url: '/api/v1/billing/subscriptions', payload }).then((r) => ({
      status: r.statusCode,
      body: r.json() as Json,
    }));
  const STARTER_USD = 'ba0000000000000000000001';
  const PRO_USD = 'ba0000000000000000000002';

  it('the paid fee starts the subscription: plan billing, first allowance, once however often the webhook comes', async () => {
    const org = await organisation('US');
    const created = await buy(org, { planId: STARTER_USD });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({
      planCode: 'starter_monthly_usd',
      amountMinor: 2900,
      taxMinor: 0,
      chargeMinor: 2900,
      currency: 'USD',
    });
    const paymentId = created.body.data.reference;
    expect(await payment(paymentId)).toMatchObject({
      kind: 'PLAN_SUBSCRIPTION',
      plan_id: STARTER_USD,
      status: 'PENDING',
    });
    // Nothing starts before the money arrives.
    expect(
      await t.db.sql`select 1 from billing_subscriptions where organisation_id = ${org.organisationId}`,
    ).toHaveLength(0);

    const deliveries = await fake.pay((await payment(paymentId)).pg_order_id, { times: 4 });
    expect(deliveries.map((d) => JSON.parse(d.body).data.outcome).sort()).toEqual([
      'credited',
      'duplicate',
      'duplicate',
      'duplicate',
    ]);
    const [subscription] = await t.db.sql<Json[]>`
      select s.status, p.code from billing_subscriptions s join billing_plans p on p.id = s.plan_id
       where s.organisation_id = ${org.organisationId}`;
    expect(subscription).toEqual({ status: 'ACTIVE', code: 'starter_monthly_usd' });
    const [account] = await t.db.sql<
      Json[]
    >`select billing_model from billing_accounts where organisation_id = ${org.organisationId}`;
    expect(account!.billing_model).toBe('WALLET');
    expect(await wallet(org.organisationId, 'PLAN_WALLET')).toMatchObject({ balance: 2900 * 10_000, currency: 'USD' });
    expect(await payment(paymentId)).toMatchObject({ status: 'PAID' });

    // A second purchase is refused now that a subscription exists, with nothing ordered.
    const before = ordersAtProcessor();
    const again = await buy(org, { planId: PRO_USD });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already has a subscription/);
    expect(ordersAtProcessor()).toBe(before);

    // Once its paid period lapsed unpaid (PAST_DUE), buying again renews the same subscription.
    await t.db.sql`update billing_subscriptions set status = 'PAST_DUE' where organisation_id = ${org.organisationId}`;
    const renewal = await buy(org, { planId: PRO_USD });
    expect(renewal.status, JSON.stringify(renewal.body)).toBe(201);
    await fake.pay((await payment(renewal.body.data.reference)).pg_order_id);
    const renewed = await t.db.sql<Json[]>`
      select s.status, p.code from billing_subscriptions s join billing_plans p on p.id = s.plan_id
       where s.organisation_id = ${org.organisationId}`;
    expect(renewed).toEqual([{ status: 'ACTIVE', code: 'pro_monthly_usd' }]);
  });

  it('two checkouts both paid: the second fee is not lost, it lands in the plan wallet as a top-up', async () => {
    const org = await organisation('US');
    const first = await buy(org, { planId: STARTER_USD });
    const second = await buy(org, { planId: PRO_USD });
    expect([first.status, second.status]).toEqual([201, 201]);
    await fake.pay((await payment(first.body.data.reference)).pg_order_id);
    await fake.pay((await payment(second.body.data.reference)).pg_order_id);
    const subscriptions = await t.db.sql<Json[]>`
      select p.code from billing_subscriptions s join billing_plans p on p.id = s.plan_id
       where s.organisation_id = ${org.organisationId}`;
    expect(subscriptions).toEqual([{ code: 'starter_monthly_usd' }]);
    const grants = await t.db.sql<Json[]>`
      select source, amount from wallet_grants where organisation_id = ${org.organisationId} order by source`;
    expect(grants).toEqual([
      { source: 'PLAN_CYCLE', amount: String(2900 * 10_000) },
      { source: 'TOP_UP', amount: String(9900 * 10_000) },
    ]);
  });

  it('refuses what it cannot sell: unknown plan, another currency, no billing country, a viewer', async () => {
    const india = await organisation('IN');
    const foreign = await buy(india, { planId: STARTER_USD });
    expect(foreign.status).toBe(409);
    expect(foreign.body.message).toMatch(/sold in USD; this organisation pays in INR/);
    const unknown = await buy(india, { planId: 'ffffffffffffffffffffffff' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/planId/);
    const nowhere = await organisation(null);
    expect((await buy(nowhere, { planId: STARTER_USD })).status).toBe(400);
    const viewer = await seedMember(t.db.sql, india.organisationId, 'VIEWER', ['wallet:write']);
    const refused = await t.call(viewer.key, {
      method: 'POST',
      url: '/api/v1/billing/subscriptions',
      payload: { planId: 'ba0000000000000000000003' },
    });
    expect(refused.statusCode).toBe(403);
  });
});

async function paymentsOf() {
  return {
    apiUrl: fake.url,
    credentials: {
      keyId: fake.account.keyId,
      keySecret: fake.account.keySecret,
      webhookSecret: fake.account.webhookSecret,
    },
    usdInrRateE4: 832_500,
  };
}
