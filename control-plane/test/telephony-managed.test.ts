/** GET /telephony/managed/{organisationId}: the managed-numbers status read (spec document 2). */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { insertApiKey } from '../src/auth/api-key-repository.ts';
import type { Scope } from '../src/auth/scopes.ts';
import { newId } from '../src/db/ids.ts';
import { startTelephonyTestApp, type TelephonyTestApp } from './fakes/carriers/telephony-test-app.ts';
import { enableFeatures, seedOrganisation, type SeededOrganisation } from './support/seed.ts';

const SERVICE_AUTH_ID = 'MASERVICE0ACC0UNT002';

let t: TelephonyTestApp;

beforeAll(async () => {
  t = await startTelephonyTestApp({ carrierAServiceAuthId: SERVICE_AUTH_ID });
});
afterAll(() => t?.close());

type Feature = Parameters<typeof enableFeatures>[2][number];

async function org(
  name: string,
  options: { features?: Feature[]; billingCountry?: string | null } = {},
): Promise<SeededOrganisation> {
  const seeded = await seedOrganisation(t.db.sql, name);
  const features = options.features ?? ['managed_numbers'];
  if (features.length) await enableFeatures(t.db.sql, seeded.organisationId, features);
  const country = options.billingCountry === undefined ? 'IN' : options.billingCountry;
  await t.db.sql`update organisations set billing_country = ${country} where id = ${seeded.organisationId}`;
  return seeded;
}

const managed = (o: SeededOrganisation, key = o.key, app = t) =>
  app.call(key, { method: 'GET', url: `/api/v1/telephony/managed/${o.organisationId}` });

/** A number the service rents for the organisation (no route rents them yet), or one of another source. */
async function seedNumber(
  o: SeededOrganisation,
  phoneNumber: string,
  source: string,
  status = 'ACTIVE',
): Promise<string> {
  const id = newId();
  await t.db
    .sql`insert into phone_numbers (id, organisation_id, provider, phone_number, status, routing_status, unassigned_routing_status, capabilities, metadata)
    values (${id}, ${o.organisationId}, 'carrier-a', ${phoneNumber}, ${status}, 'READY', 'READY',
            ${t.db.sql.json({ voice: true, sms: false })}, ${t.db.sql.json({ source, type: 'local', region: 'Maharashtra, INDIA', capabilities: {} })})`;
  return id;
}

async function keyWith(o: SeededOrganisation, scopes: readonly Scope[]): Promise<string> {
  return (
    await insertApiKey(t.db.sql, {
      organisationId: o.organisationId,
      userId: o.ownerId,
      name: scopes.join(' '),
      scopes,
    })
  ).key;
}

describe('GET /telephony/managed/{organisationId}', () => {
  it('for an organisation billed in India with no carrier account of its own: available, with use cases, prices and its rented numbers', async () => {
    const o = await org('Managed India');
    const rented = await seedNumber(o, '+912240001000', 'managed');
    await seedNumber(o, '+912240001001', 'import');
    await seedNumber(o, '+912240001002', 'managed', 'INACTIVE');

    const res = await managed(o);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    // The spec's leading fields, in its order.
    expect(Object.keys(data).slice(0, 6)).toEqual([
      'available',
      'route',
      'planRequired',
      'outsideIndia',
      'country',
      'useCases',
    ]);
    expect(data).toMatchObject({
      available: true,
      route: 'managed',
      planRequired: true,
      outsideIndia: false,
      country: 'IN',
      unavailable: null,
      verification: {
        required: true,
        state: 'not_started',
        source: null,
        lastStep: null,
        nextAction: { code: 'start_verification' },
      },
      phoneAccount: { provider: 'carrier-a', status: 'active', serviceConfigured: true, activeNumbers: 1 },
    });
    expect(data.useCases).toEqual([
      { id: 'TRANSACTIONAL', offered: true, label: expect.any(String), example: expect.any(String) },
      { id: 'PROMOTIONAL', offered: false, label: expect.any(String), example: expect.any(String) },
      { id: 'FINANCIAL', offered: false, label: expect.any(String), example: expect.any(String) },
    ]);
    expect(data.prices).toEqual({
      currency: 'INR',
      numberMonthlyMinor: 50000,
      phoneLineMinuteMinor: 50,
      phoneLinePulseSeconds: 30,
      phoneLineBlockMinor: 25,
      paidFrom: 'organisation_wallet',
      rateCard: [
        {
          key: 'number_rental_month',
          label: expect.any(String),
          unit: 'MONTH',
          priceMinor: 50000,
          currency: 'INR',
          tier: 'STARTER',
          pulseSeconds: null,
          minimumSeconds: null,
          managedOnly: true,
          effectiveFrom: '2026-01-01T00:00:00.000Z',
        },
        {
          key: 'phone_line_minute',
          label: expect.any(String),
          unit: 'MINUTE',
          priceMinor: 50,
          currency: 'INR',
          tier: 'STARTER',
          pulseSeconds: 30,
          minimumSeconds: 30,
          managedOnly: true,
          effectiveFrom: '2026-01-01T00:00:00.000Z',
        },
      ],
    });
    expect(data.numbers).toHaveLength(1);
    expect(data.numbers[0]).toMatchObject({
      id: rented,
      phoneNumber: '+912240001000',
      status: 'ACTIVE',
      metadata: { source: 'managed' },
    });
    // Nothing about the service's own account leaks.
    expect(res.body).not.toContain(SERVICE_AUTH_ID);
  });

  it('says why managed numbers are not available, the first reason that applies', async () => {
    const off = await org('Feature off', { features: [] });
    expect((await managed(off)).json().data).toMatchObject({
      available: false,
      route: 'none',
      unavailable: { code: 'feature_disabled' },
    });

    const noCountry = await org('No country', { billingCountry: null });
    expect((await managed(noCountry)).json().data).toMatchObject({
      available: false,
      outsideIndia: false,
      country: null,
      unavailable: { code: 'billing_country_missing' },
    });

    const abroad = await org('Abroad', { features: ['managed_numbers', 'self_serve_telephony'], billingCountry: 'GB' });
    expect((await managed(abroad)).json().data).toMatchObject({
      available: false,
      route: 'self_serve',
      outsideIndia: true,
      country: 'GB',
      unavailable: { code: 'outside_india', message: expect.stringContaining('GB') },
    });
  });

  it('is not available once the organisation has a carrier account of its own connected', async () => {
    const o = await org('Own account', { features: ['managed_numbers', 'self_serve_telephony'] });
    const account = t.carrierA.addAccount();
    t.carrierA.addNumber(account.authId, '+912240002000');
    const connected = await t.call(o.key, {
      method: 'POST',
      url: '/api/v1/telephony/carrier-a/connect',
      payload: { organisationId: o.organisationId, ...account },
    });
    expect(connected.statusCode, connected.body).toBe(201);
    const data = (await managed(o)).json().data;
    expect(data).toMatchObject({
      available: false,
      route: 'own_account',
      unavailable: { code: 'own_carrier_account' },
    });
    // Imported numbers are not rented ones.
    expect(data.numbers).toEqual([]);
    expect(data.phoneAccount).toMatchObject({ status: 'not_opened', activeNumbers: 0 });
  });

  it('reads the business verification from the India KYC profile, and offers the KYC route when managed numbers are off', async () => {
    const o = await org('Verifying', { features: ['managed_numbers', 'india_provisioning'] });
    const insertIndia = async (target: SeededOrganisation, config: Record<string, unknown>) => t.db.sql`
      insert into telephony_integrations (id, organisation_id, provider, account_ref, config)
      values (${newId()}, ${target.organisationId}, 'carrier-d', ${`india-${target.organisationId}`}, ${t.db.sql.json(config as never)})`;
    await insertIndia(o, { kyc_status: 'in_progress', last_kyc_step: 'pan' });
    const data = (await managed(o)).json().data;
    // The India profile is under the service's reseller account, not an account of the organisation's own.
    expect(data).toMatchObject({ available: true, route: 'managed' });
    expect(data.verification).toEqual({
      required: true,
      state: 'in_progress',
      source: 'carrier-d',
      lastStep: 'pan',
      nextAction: { code: 'continue_verification', message: expect.stringContaining('pan') },
    });

    const approved = await org('Approved', { features: ['india_provisioning'] });
    await insertIndia(approved, { kyc_status: 'APPROVED' });
    expect((await managed(approved)).json().data).toMatchObject({
      available: false,
      route: 'india_kyc',
      verification: { state: 'approved', nextAction: null },
    });
  });

  it("is not available on a server without the service's own carrier-a account", async () => {
    const o = await org('Unconfigured server');
    const bare = await startTelephonyTestApp({ db: t.db });
    try {
      const res = await managed(o, o.key, bare);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toMatchObject({
        available: false,
        unavailable: { code: 'not_configured' },
        phoneAccount: { serviceConfigured: false },
      });
    } finally {
      await bare.close();
    }
  });

  it('is read only: nothing changes and the carrier is never asked', async () => {
    const o = await org('Read only');
    await seedNumber(o, '+912240003000', 'managed');
    const state = async () => ({
      organisation: await t.db.sql`select * from organisations where id = ${o.organisationId}`,
      numbers: await t.db.sql`select * from phone_numbers where organisation_id = ${o.organisationId} order by id`,
      integrations: await t.db.sql`select * from telephony_integrations where organisation_id = ${o.organisationId}`,
    });
    const before = await state();
    const asked = t.carrierA.server.requests.length;
    expect((await managed(o)).statusCode).toBe(200);
    expect(await state()).toEqual(before);
    expect(t.carrierA.server.requests.length).toBe(asked);
  });

  it("needs numbers:read, and answers only for the key's own organisation", async () => {
    const o = await org('Scoped');
    const stranger = await org('Stranger');
    const foreign = await t.call(o.key, { method: 'GET', url: `/api/v1/telephony/managed/${stranger.organisationId}` });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.body).not.toContain(stranger.organisationId);

    const writer = await keyWith(o, ['numbers:write']);
    const refused = await managed(o, writer);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('insufficient_scope');
    const reader = await insertApiKey(t.db.sql, {
      organisationId: o.organisationId,
      userId: o.ownerId,
      name: 'reader',
      scopes: ['numbers:read'],
    });
    expect((await managed(o, reader.key)).statusCode).toBe(200);
    // A key's first use is recorded in the background: let it land before the test's database goes away.
    await vi.waitFor(async () => {
      const [row] = await t.db.sql`select last_used_at from api_keys where id = ${reader.id}`;
      expect(row!.last_used_at).not.toBeNull();
    });
  });
});
