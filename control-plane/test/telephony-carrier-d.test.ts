/** India numbers (carrier-d): the KYC wizard, inventory, purchase and renewal against the partner's contract fake. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carrierDError } from './fakes/carriers/carrier-d-fake.ts';
import { startTelephonyTestApp, type TelephonyTestApp } from './fakes/carriers/telephony-test-app.ts';
import { PUBLIC_URL } from './support/app.ts';
import {
  enableFeatures,
  seedMember,
  seedOrganisation,
  seedPhoneNumber,
  seedWallet,
  type SeededOrganisation,
} from './support/seed.ts';

let t: TelephonyTestApp;

beforeAll(async () => {
  t = await startTelephonyTestApp();
});
afterAll(() => t?.close());

const INDIVIDUAL = {
  account_type: 'individual',
  full_name: 'Asha Rao',
  email: 'asha@example.in',
  phone: '+919876543210',
  billing_address: '12 MG Road, Bengaluru 560001',
  term_and_condition: true,
};
const BUSINESS = { ...INDIVIDUAL, account_type: 'business', business_name: 'Rao Traders' };

async function indiaOrg(name: string, walletMinor = 1_000): Promise<SeededOrganisation> {
  const org = await seedOrganisation(t.db.sql, name);
  await enableFeatures(t.db.sql, org.organisationId, ['india_provisioning']);
  await seedWallet(t.db.sql, org.organisationId, { balanceMinor: walletMinor, currency: 'INR' });
  return org;
}

const kyc = (org: SeededOrganisation, step: string, payload?: unknown, key = org.key) =>
  t.call(key, {
    method: 'POST',
    url: `/api/v1/telephony/carrier-d/kyc/${step}`,
    payload: { organisationId: org.organisationId, ...(payload === undefined ? {} : { payload }) },
  });

const purchase = (org: SeededOrganisation, body: Record<string, unknown>) =>
  t.call(org.key, {
    method: 'POST',
    url: '/api/v1/telephony/carrier-d/purchase',
    payload: { organisationId: org.organisationId, ...body },
  });

const renew = (org: SeededOrganisation, id: string) =>
  t.call(org.key, {
    method: 'POST',
    url: `/api/v1/telephony/carrier-d/numbers/${id}/renew`,
    payload: { organisationId: org.organisationId },
  });

async function expectOk(res: Awaited<ReturnType<typeof kyc>>, status = 200) {
  expect(res.statusCode, res.body).toBe(status);
  return res.json().data;
}

/** Every row a refused request must leave alone. */
async function indiaState(org: SeededOrganisation): Promise<unknown> {
  const sql = t.db.sql;
  return {
    integrations:
      await sql`select * from telephony_integrations where organisation_id = ${org.organisationId} order by id`,
    applications: await sql`select * from india_kyc_applications where organisation_id = ${org.organisationId}`,
    numbers: await sql`select * from phone_numbers where organisation_id = ${org.organisationId} order by id`,
    renewals: await sql`select * from india_did_renewals where organisation_id = ${org.organisationId} order by id`,
    wallet:
      await sql`select balance as balance_minor from ledger_accounts where organisation_id = ${org.organisationId} and kind = 'WALLET'`,
  };
}

/** An organisation through the whole wizard, its application then decided by the partner. */
async function approvedOrg(name: string, decision: 'approved' | 'pending' = 'approved'): Promise<SeededOrganisation> {
  const org = await indiaOrg(name);
  await expectOk(await kyc(org, 'register', INDIVIDUAL));
  await expectOk(await kyc(org, 'pan', { pan_holder_name: 'Asha Rao', pan_number: 'ABCDE1234F' }));
  await expectOk(await kyc(org, 'aadhaar'));
  t.carrierD.completeAadhaar(t.carrierD.applicationOf(org.organisationId)!.application_id);
  await expectOk(await kyc(org, 'final'));
  if (decision === 'approved')
    t.carrierD.decide(t.carrierD.applicationOf(org.organisationId)!.application_id, 'approved');
  return org;
}

const purchaseRequests = () => t.carrierD.server.received((r) => r.path === '/api/v1/dids/purchase');

describe('POST /telephony/carrier-d/kyc/{step}', () => {
  it('walks an individual through register, pan, aadhaar and final, creating the India connection on register', async () => {
    const org = await indiaOrg('KYC individual');
    const registered = await expectOk(await kyc(org, 'register', { ...INDIVIDUAL, extra: 'not sent' }));
    expect(registered).toEqual({
      provider: { state: 'in_progress', providerStatus: 'in_progress', rejectionReason: null },
      kyc: { state: 'in_progress', lastStep: 'register', nextAction: { code: 'pan', message: expect.any(String) } },
    });
    const sent = t.carrierD.server.received((r) => r.path === '/api/v1/kyc/register').at(-1)!;
    expect(sent.body).toEqual({ ...INDIVIDUAL, customer_ref: org.organisationId });
    expect(sent.headers.authorization).toMatch(/^Bearer /);

    const [integration] = await t.db.sql<
      { config: Record<string, unknown>; secrets: Record<string, string>; account_ref: string }[]
    >`
      select config, secrets, account_ref from telephony_integrations where organisation_id = ${org.organisationId} and provider = 'carrier-d' and is_active`;
    expect(integration!.account_ref).toBe(t.carrierD.reseller.username);
    expect(integration!.config).toMatchObject({
      label: 'India numbers',
      kyc_status: 'in_progress',
      kyc_step: 'pan',
      last_kyc_step: 'register',
    });
    expect(Object.keys(integration!.secrets).sort()).toEqual(['password', 'username']);
    expect(JSON.stringify(integration!.secrets)).not.toContain(t.carrierD.reseller.password);
    const [terms] = await t.db
      .sql`select terms_accepted_at, terms_accepted_key_id, terms_accepted_by from india_kyc_applications where organisation_id = ${org.organisationId}`;
    expect(terms).toMatchObject({ terms_accepted_key_id: org.keyId, terms_accepted_by: org.ownerId });
    expect(terms!.terms_accepted_at).toBeInstanceOf(Date);

    // The overview shows the connection with its credentials only as "configured".
    const overview = await t.call(org.key, { method: 'GET', url: `/api/v1/telephony/overview/${org.organisationId}` });
    const shown = (overview.json().data.integrations as { provider: string; config: Record<string, unknown> }[]).find(
      (i) => i.provider === 'carrier-d',
    );
    expect(shown!.config).toMatchObject({ username: 'configured', password: 'configured', kyc_status: 'in_progress' });

    const pan = await expectOk(await kyc(org, 'pan', { pan_holder_name: 'Asha Rao', pan_number: 'abcde1234f' }));
    expect(pan.kyc).toMatchObject({ lastStep: 'pan', nextAction: { code: 'aadhaar' } });
    expect(t.carrierD.server.received((r) => r.path.endsWith('/pan')).at(-1)!.body).toEqual({
      pan_holder_name: 'Asha Rao',
      pan_number: 'ABCDE1234F',
    });

    const aadhaar = await expectOk(await kyc(org, 'aadhaar', { redirect_url: 'https://app.example.in/kyc/done' }));
    expect(aadhaar.aadhaarVerificationUrl).toMatch(/^https:\/\/kyc\.carrier-d\.example\/aadhaar\?application=KYC/);
    expect(aadhaar.aadhaarVerificationUrl).toContain(encodeURIComponent('https://app.example.in/kyc/done'));
    expect(aadhaar.kyc).toMatchObject({ lastStep: 'aadhaar', nextAction: { code: 'verify_aadhaar' } });

    // final before the customer opened the aadhaar link: the partner refuses, in its own words.
    const early = await kyc(org, 'final');
    expect(early.statusCode).toBe(400);
    expect(early.json()).toMatchObject({
      code: 'carrier_rejected',
      message: expect.stringContaining('Aadhaar verification is not complete'),
    });

    t.carrierD.completeAadhaar(t.carrierD.applicationOf(org.organisationId)!.application_id);
    const final = await expectOk(await kyc(org, 'final'));
    expect(final).toEqual({
      provider: { state: 'pending_review', providerStatus: 'under_review', rejectionReason: null },
      kyc: {
        state: 'pending_review',
        lastStep: 'final',
        nextAction: { code: 'await_review', message: expect.any(String) },
      },
    });
    const [config] = await t.db
      .sql`select config from telephony_integrations where organisation_id = ${org.organisationId} and is_active`;
    expect(config!.config).toMatchObject({
      kyc_status: 'pending_review',
      kyc_step: 'await_review',
      last_kyc_step: 'final',
    });
  });

  it('takes a business through gst, whose number must be 15 characters', async () => {
    const org = await indiaOrg('KYC business');
    const missing = await kyc(org, 'register', { ...BUSINESS, business_name: undefined });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: 'payload.business_name' }] });

    await expectOk(await kyc(org, 'register', BUSINESS));
    expect(t.carrierD.server.received((r) => r.path === '/api/v1/kyc/register').at(-1)!.body).toMatchObject({
      business_name: 'Rao Traders',
    });
    await expectOk(await kyc(org, 'pan', { pan_holder_name: 'Rao Traders', pan_number: 'ABCDE1234F' }));
    await expectOk(await kyc(org, 'aadhaar'));
    t.carrierD.completeAadhaar(t.carrierD.applicationOf(org.organisationId)!.application_id);
    const afterAadhaar = await expectOk(
      await kyc(org, 'pan', { pan_holder_name: 'Rao Traders', pan_number: 'ABCDE1234F' }),
    );
    expect(afterAadhaar.kyc.nextAction.code).toBe('aadhaar');
    await expectOk(await kyc(org, 'aadhaar'));
    t.carrierD.completeAadhaar(t.carrierD.applicationOf(org.organisationId)!.application_id);

    const short = await kyc(org, 'gst', { gst_number: '29ABCDE1234F1Z' });
    expect(short.statusCode).toBe(400);
    expect(short.json().errors).toEqual([{ field: 'payload.gst_number', message: expect.any(String) }]);
    // final before gst: a business is not done yet.
    const early = await kyc(org, 'final');
    expect(early.statusCode).toBe(400);
    expect(early.json().code).toBe('carrier_rejected');

    const gst = await expectOk(await kyc(org, 'gst', { gst_number: '29ABCDE1234F1Z5' }));
    expect(gst.kyc).toMatchObject({ lastStep: 'gst', nextAction: { code: 'final' } });
    expect((await expectOk(await kyc(org, 'final'))).kyc.state).toBe('pending_review');
  });

  it('refuses a step before register (no India profile), an unknown step and a payload that is not an object, writing nothing', async () => {
    const org = await indiaOrg('KYC out of order');
    const before = await indiaState(org);
    const pan = await kyc(org, 'pan', { pan_holder_name: 'Asha Rao', pan_number: 'ABCDE1234F' });
    expect(pan.statusCode).toBe(400);
    expect(pan.json()).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('No India profile') });
    expect((await kyc(org, 'selfie')).statusCode).toBe(400);
    for (const payload of [['register'], 'register', 42]) {
      const res = await kyc(org, 'register', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
    expect(await indiaState(org)).toEqual(before);
    expect(t.carrierD.server.received((r) => r.body.customer_ref === org.organisationId)).toEqual([]);
  });

  it("checks each step's payload: terms accepted, account type, email, PAN", async () => {
    const org = await indiaOrg('KYC payload rules');
    const cases: [unknown, string][] = [
      [{ ...INDIVIDUAL, term_and_condition: false }, 'payload.term_and_condition'],
      [{ ...INDIVIDUAL, account_type: 'trust' }, 'payload.account_type'],
      [{ ...INDIVIDUAL, email: 'not-an-email' }, 'payload.email'],
      [{ ...INDIVIDUAL, full_name: '' }, 'payload.full_name'],
      [undefined, 'payload.account_type'],
    ];
    for (const [payload, field] of cases) {
      const res = await kyc(org, 'register', payload);
      expect(res.statusCode, field).toBe(400);
      expect(res.json().errors[0].field).toBe(field);
    }
    await expectOk(await kyc(org, 'register', INDIVIDUAL));
    const badPan = await kyc(org, 'pan', { pan_holder_name: 'Asha Rao', pan_number: '1234' });
    expect(badPan.json().errors[0].field).toBe('payload.pan_number');
    const badRedirect = await kyc(org, 'aadhaar', { redirect_url: 'javascript:alert(1)' });
    expect(badRedirect.json().errors[0].field).toBe('payload.redirect_url');
    // The partner enforces the order of the later steps: aadhaar before pan is its refusal, passed through.
    const skipped = await kyc(org, 'aadhaar');
    expect(skipped.statusCode).toBe(400);
    expect(skipped.json()).toMatchObject({ code: 'carrier_rejected', message: expect.stringContaining('pan') });
  });

  it("restarts a rejected application with register, keeping the partner's reason until then", async () => {
    const org = await approvedOrg('KYC rejected', 'pending');
    const applicationId = t.carrierD.applicationOf(org.organisationId)!.application_id;
    t.carrierD.decide(applicationId, 'rejected', 'PAN name does not match');
    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 5000, currency: 'INR' });
    const did = t.carrierD.offer('918040001111');
    const refused = await purchase(org, { didId: did.id, didNumber: did.did_number });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toContain('PAN name does not match');

    const again = await expectOk(await kyc(org, 'register', INDIVIDUAL));
    expect(again.kyc).toMatchObject({ state: 'in_progress', lastStep: 'register' });
    expect(t.carrierD.server.received((r) => r.path === '/api/v1/kyc/register').at(-1)!.body.application_id).toBe(
      applicationId,
    );
  });

  it('answers 403 when India provisioning is off, and needs numbers:write', async () => {
    const off = await seedOrganisation(t.db.sql, 'India off');
    for (const res of [
      await kyc(off, 'register', INDIVIDUAL),
      await t.call(off.key, { method: 'GET', url: `/api/v1/telephony/carrier-d/dids/${off.organisationId}` }),
      await purchase(off, { didId: 1, didNumber: '918040000000' }),
      await renew(off, '0123456789abcdef01234567'),
    ]) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().code).toBe('feature_disabled');
    }

    const org = await indiaOrg('Scopes');
    const reader = await seedMember(t.db.sql, org.organisationId, 'ADMIN', ['numbers:read']);
    const refused = await kyc(org, 'register', INDIVIDUAL, reader.key);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('insufficient_scope');
    const read = await t.call(reader.key, {
      method: 'GET',
      url: `/api/v1/telephony/carrier-d/dids/${org.organisationId}`,
    });
    expect(read.statusCode, read.body).toBe(200);
    const writer = await seedMember(t.db.sql, org.organisationId, 'ADMIN', ['numbers:write']);
    const list = await t.call(writer.key, {
      method: 'GET',
      url: `/api/v1/telephony/carrier-d/dids/${org.organisationId}`,
    });
    expect(list.statusCode).toBe(403);
  });

  it('answers 502 when the partner refuses the reseller credentials, and logs in again when a token expired', async () => {
    const org = await indiaOrg('Reseller refused');
    t.carrierD.expireTokens();
    t.carrierD.server.fail(
      (r) => r.path === '/api/v1/auth/login',
      carrierDError(401, 'invalid_credentials', 'Invalid reseller username or password'),
    );
    const before = await indiaState(org);
    const res = await kyc(org, 'register', INDIVIDUAL);
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({ code: 'upstream_failed' });
    expect(res.body).not.toContain(t.carrierD.reseller.password);
    expect(await indiaState(org)).toEqual(before);

    const logins = t.carrierD.server.received((r) => r.path === '/api/v1/auth/login').length;
    await expectOk(await kyc(org, 'register', INDIVIDUAL));
    t.carrierD.expireTokens();
    await expectOk(await kyc(org, 'pan', { pan_holder_name: 'Asha Rao', pan_number: 'ABCDE1234F' }));
    // One login for the first register; the cached token served the next step until the partner dropped it.
    expect(t.carrierD.server.received((r) => r.path === '/api/v1/auth/login').length).toBe(logins + 2);
  });
});

describe('GET /telephony/carrier-d/dids/{organisationId}', () => {
  it("pages the partner's inventory, with snake_case aliases of the query", async () => {
    const org = await indiaOrg('Inventory');
    const offered = ['918050000001', '918050000002', '918050000003'].map((n) =>
      t.carrierD.offer(n, { city: 'Mumbai', state: 'Maharashtra', type: 2 }),
    );
    const page = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/telephony/carrier-d/dids/${org.organisationId}`,
      query: { country_code: '91', type: '2', number: '8050000', per_page: '2', page: '2' },
    });
    const data = await expectOk(page);
    expect(data).toEqual({
      dids: [
        {
          id: offered[2]!.id,
          did_number: '918050000003',
          country_code: '91',
          type: 2,
          months: 1,
          city: 'Mumbai',
          state: 'Maharashtra',
          rate_per_month: 499,
          currency: 'INR',
        },
      ],
      page: 2,
      perPage: 2,
      total: 3,
    });
    expect(t.carrierD.server.received((r) => r.path === '/api/v1/dids/available').at(-1)!.query).toEqual({
      country_code: '91',
      type: '2',
      number: '8050000',
      page: '2',
      per_page: '2',
    });

    const camel = await expectOk(
      await t.call(org.key, {
        method: 'GET',
        url: `/api/v1/telephony/carrier-d/dids/${org.organisationId}`,
        query: { countryCode: '+91', number: '8050000', perPage: '5' },
      }),
    );
    expect(camel.dids.map((d: { did_number: string }) => d.did_number)).toEqual([
      '918050000001',
      '918050000002',
      '918050000003',
    ]);
    const tooMany = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/telephony/carrier-d/dids/${org.organisationId}`,
      query: { perPage: '500' },
    });
    expect(tooMany.statusCode).toBe(400);
  });
});

describe('POST /telephony/carrier-d/purchase', () => {
  it('buys a number once KYC is approved (checked live): ACTIVE, READY, routed to Parley, wallet not debited', async () => {
    const org = await approvedOrg('Purchase');
    const did = t.carrierD.offer('918060000001', { city: 'Pune', state: 'Maharashtra' });
    const res = await purchase(org, { didId: did.id, didNumber: did.did_number, months: 3 });
    const number = await expectOk(res, 201);
    expect(number).toMatchObject({
      organisationId: org.organisationId,
      provider: 'carrier-d',
      phoneNumber: '+918060000001',
      countryCode: 'IN',
      providerNumberId: String(did.id),
      status: 'ACTIVE',
      routingStatus: 'READY',
      agentId: null,
      metadata: { source: 'purchase', type: 'local', region: 'Maharashtra', months: 3 },
    });
    const bought = t.carrierD.purchases.find((p) => p.did.id === did.id)!;
    expect(number.metadata).toMatchObject({ orderId: bought.order_id, botId: bought.bot_id });
    expect(t.carrierD.bots.get(bought.bot_id)).toBe(`${PUBLIC_URL}/webhooks/carrier-d/voice`);
    expect(bought.months).toBe(3);
    expect(
      t.carrierD.server.received((r) => r.method === 'GET' && r.path === `/api/v1/kyc/${bought.application_id}`),
    ).toHaveLength(1);
    const [renewal] = await t.db
      .sql`select provider_did_id, provider_order_id, bot_id, months, is_active from india_did_renewals where phone_number_id = ${number.id}`;
    expect(renewal).toMatchObject({
      provider_did_id: String(did.id),
      provider_order_id: bought.order_id,
      bot_id: bought.bot_id,
      months: 3,
      is_active: true,
    });
    const [wallet] = await t.db
      .sql`select balance as balance_minor from ledger_accounts where organisation_id = ${org.organisationId} and kind = 'WALLET'`;
    expect(Number(wallet!.balance_minor)).toBe(1_000);
    const [application] = await t.db
      .sql`select state, status_source from india_kyc_applications where organisation_id = ${org.organisationId}`;
    expect(application).toMatchObject({ state: 'approved', status_source: 'live_check' });

    // Routing the number to an agent points its bot at Parley again (idempotent).
    const agent = (
      await t.db
        .sql`insert into agents (id, organisation_id, name, agent_type) values (${'a'.repeat(24)}, ${org.organisationId}, 'Desk', 'VOICE') returning id`
    )[0]!.id as string;
    const assigned = await t.call(org.key, {
      method: 'PUT',
      url: `/api/v1/telephony/numbers/${number.id}/agent`,
      payload: { organisationId: org.organisationId, agentId: agent },
    });
    expect(assigned.statusCode, assigned.body).toBe(200);
    expect(assigned.json().data.routingStatus).toBe('ASSIGNED');
    expect(
      t.carrierD.server.received((r) => r.method === 'PUT' && r.path === `/api/v1/bots/${bought.bot_id}`),
    ).toHaveLength(1);
  });

  it('refuses with 409 while KYC is pending, buying nothing', async () => {
    const org = await approvedOrg('KYC pending', 'pending');
    const did = t.carrierD.offer('918060000002');
    const purchases = purchaseRequests().length;
    const res = await purchase(org, { didId: did.id, didNumber: did.did_number });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('kyc_not_approved');
    expect(purchaseRequests()).toHaveLength(purchases);
    expect(((await indiaState(org)) as { numbers: unknown[] }).numbers).toEqual([]);
  });

  it('answers 503 when the KYC status cannot be confirmed, buying nothing', async () => {
    const org = await approvedOrg('KYC unconfirmed');
    const did = t.carrierD.offer('918060000003');
    const applicationId = t.carrierD.applicationOf(org.organisationId)!.application_id;
    t.carrierD.server.fail(
      (r) => r.method === 'GET' && r.path === `/api/v1/kyc/${applicationId}`,
      carrierDError(503, 'unavailable', 'KYC service down'),
    );
    const purchases = purchaseRequests().length;
    const res = await purchase(org, { didId: did.id, didNumber: did.did_number });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({
      code: 'kyc_unconfirmed',
      message: expect.stringContaining('nothing was bought'),
    });
    expect(purchaseRequests()).toHaveLength(purchases);
    const state = (await indiaState(org)) as { numbers: unknown[]; renewals: unknown[] };
    expect(state.numbers).toEqual([]);
    expect(state.renewals).toEqual([]);
    const [application] = await t.db
      .sql`select verification_unavailable from india_kyc_applications where organisation_id = ${org.organisationId}`;
    expect(application!.verification_unavailable).toBe(true);
  });

  it('answers 502 when the partner returns no order id or bot id, recording nothing', async () => {
    const org = await approvedOrg('No order id');
    const did = t.carrierD.offer('918060000004');
    t.carrierD.server.fail((r) => r.path === '/api/v1/dids/purchase', {
      status: 201,
      body: { success: true, data: { bot_id: 'BOT1', did: { id: did.id, did_number: did.did_number } } },
    });
    const res = await purchase(org, { didId: did.id, didNumber: did.did_number });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({
      code: 'upstream_failed',
      message: expect.stringContaining('no order id or bot id'),
    });
    const state = (await indiaState(org)) as { numbers: unknown[]; renewals: unknown[] };
    expect(state.numbers).toEqual([]);
    expect(state.renewals).toEqual([]);
  });

  it('answers 402 for a wallet below the minimum, and for a float the API key may not top up', async () => {
    const org = await approvedOrg('Unfunded');
    const did = t.carrierD.offer('918060000005');
    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 99, currency: 'INR' });
    const purchases = purchaseRequests().length;
    const poor = await purchase(org, { didId: did.id, didNumber: did.did_number });
    expect(poor.statusCode).toBe(402);
    expect(purchaseRequests()).toHaveLength(purchases);

    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 1000, currency: 'INR' });
    const float = t.carrierD.floatPaise;
    t.carrierD.floatPaise = 0;
    try {
      const short = await purchase(org, { didId: did.id, didNumber: did.did_number });
      expect(short.statusCode).toBe(402);
      expect(short.json()).toMatchObject({
        code: 'payment_required',
        message: expect.stringContaining('owner or admin completes one purchase from the dashboard'),
      });
    } finally {
      t.carrierD.floatPaise = float;
    }
    expect(((await indiaState(org)) as { numbers: unknown[] }).numbers).toEqual([]);
  });

  it('needs an India connection (404) and an India profile (400)', async () => {
    const org = await indiaOrg('No connection');
    const none = await purchase(org, { didId: 1, didNumber: '918060000000' });
    expect(none.statusCode).toBe(404);
    expect(none.json().message).toContain('No India connection');

    const profiled = await indiaOrg('No profile');
    await expectOk(await kyc(profiled, 'register', INDIVIDUAL));
    await t.db.sql`delete from india_kyc_applications where organisation_id = ${profiled.organisationId}`;
    const noProfile = await purchase(profiled, { didId: 1, didNumber: '918060000000' });
    expect(noProfile.statusCode).toBe(400);
    expect(noProfile.json().code).toBe('invalid_state');
  });
});

describe('POST /telephony/carrier-d/numbers/{id}/renew', () => {
  it('renews for the term bought, paid by the reseller account, not the wallet', async () => {
    const org = await approvedOrg('Renewal');
    const did = t.carrierD.offer('918070000001');
    const number = await expectOk(await purchase(org, { didId: did.id, didNumber: did.did_number, months: 2 }), 201);
    const res = await renew(org, number.id);
    const data = await expectOk(res);
    const bought = t.carrierD.purchases.find((p) => p.did.id === did.id)!;
    expect(data.renewal).toEqual({
      renewedAt: expect.any(String),
      purchaseId: bought.renewals[0],
      expiresAt: bought.expires_at,
    });
    expect(data.number).toMatchObject({ id: number.id, status: 'ACTIVE', provider: 'carrier-d' });
    expect(t.carrierD.server.received((r) => r.path === `/api/v1/dids/${did.id}/renew`).at(-1)!.body).toEqual({
      months: 2,
    });
    const [record] = await t.db
      .sql`select last_purchase_id from india_did_renewals where phone_number_id = ${number.id} and is_active`;
    expect(record!.last_purchase_id).toBe(bought.renewals[0]);
    const [wallet] = await t.db
      .sql`select balance as balance_minor from ledger_accounts where organisation_id = ${org.organisationId} and kind = 'WALLET'`;
    expect(Number(wallet!.balance_minor)).toBe(1_000);

    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 0, currency: 'INR' });
    expect((await renew(org, number.id)).statusCode).toBe(402);
  });

  it("answers 404 for an unknown number, another carrier's number, or one without an active renewal record", async () => {
    const org = await approvedOrg('Renewal 404');
    const other = await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-b',
      phoneNumber: '+14155550100',
    });
    const seeded = await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-d',
      phoneNumber: '+918070000009',
    });
    for (const id of ['0123456789abcdef01234567', other, seeded]) {
      const res = await renew(org, id);
      expect(res.statusCode, id).toBe(404);
    }
  });
});
