/** The default outbound number of a new agent, and local-format numbers resolved to the organisation's own. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation, seedPhoneNumber, type SeededOrganisation } from './support/seed.ts';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const agent = {
  name: 'Dialler',
  agentIdentity: 'You call customers.',
  agentTask: 'Remind them.',
  greetingMessage: 'Hello',
};
const create = (org: SeededOrganisation, body: Record<string, unknown> = {}) =>
  t.call(org.key, { method: 'POST', url: '/api/v1/voice/agents', payload: { ...agent, ...body } });
const numberOf = async (org: SeededOrganisation, body: Record<string, unknown> = {}) => {
  const res = await create(org, body);
  expect(res.statusCode, res.body).toBe(201);
  const { callingNumber, telephonyProvider } = res.json().data;
  return { callingNumber, telephonyProvider };
};

describe('the default outbound number on create', () => {
  it('is none when the organisation has no active number', async () => {
    const org = await seedOrganisation(t.db.sql, 'No numbers');
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-a',
      phoneNumber: '+14155550100',
      status: 'INACTIVE',
    });
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-a',
      phoneNumber: '+14155550101',
      deleted: true,
    });
    expect(await numberOf(org)).toEqual({ callingNumber: null, telephonyProvider: null });
    expect(await numberOf(org, { callingNumber: '+44 20 7946 0018' })).toEqual({
      callingNumber: '+442079460018',
      telephonyProvider: null,
    });
  });

  it('is the newest active carrier-a number, even when a number on another provider is newer', async () => {
    const org = await seedOrganisation(t.db.sql, 'Carrier a');
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-a',
      phoneNumber: '+14155550110',
      ageSeconds: 300,
    });
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-a',
      phoneNumber: '+14155550111',
      ageSeconds: 200,
    });
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-a',
      phoneNumber: '+14155550112',
      ageSeconds: 10,
      status: 'INACTIVE',
    });
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-b',
      phoneNumber: '+14155550113',
      ageSeconds: 5,
    });
    expect(await numberOf(org)).toEqual({ callingNumber: '+14155550111', telephonyProvider: 'carrier-a' });
  });

  it('else the newest active number on another provider', async () => {
    const org = await seedOrganisation(t.db.sql, 'Other carriers');
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-c',
      phoneNumber: '+919876500001',
      ageSeconds: 300,
    });
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-b',
      phoneNumber: '+919876500002',
      ageSeconds: 100,
    });
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-a',
      phoneNumber: '+919876500003',
      ageSeconds: 50,
      deleted: true,
    });
    expect(await numberOf(org)).toEqual({ callingNumber: '+919876500002', telephonyProvider: 'carrier-b' });
  });

  it('keeps callingNumber and telephonyProvider when both are sent; replaces either sent alone', async () => {
    const org = await seedOrganisation(t.db.sql, 'Both');
    await seedPhoneNumber(t.db.sql, org.organisationId, { provider: 'carrier-a', phoneNumber: '+14155550120' });
    expect(await numberOf(org, { callingNumber: '+442079460099', telephonyProvider: 'carrier-e' })).toEqual({
      callingNumber: '+442079460099',
      telephonyProvider: 'carrier-e',
    });
    expect(await numberOf(org, { callingNumber: '+442079460099' })).toEqual({
      callingNumber: '+14155550120',
      telephonyProvider: 'carrier-a',
    });
    expect(await numberOf(org, { telephonyProvider: 'carrier-b' })).toEqual({
      callingNumber: '+14155550120',
      telephonyProvider: 'carrier-a',
    });
  });

  it("never gives another organisation's number", async () => {
    const owner = await seedOrganisation(t.db.sql, 'Owner of numbers');
    await seedPhoneNumber(t.db.sql, owner.organisationId, { provider: 'carrier-a', phoneNumber: '+14155550130' });
    const stranger = await seedOrganisation(t.db.sql, 'Stranger');
    expect(await numberOf(stranger)).toEqual({ callingNumber: null, telephonyProvider: null });
    const local = await create(stranger, { callingNumber: '4155550130', telephonyProvider: 'carrier-a' });
    expect(local.statusCode).toBe(400);
    expect(local.body).not.toContain('+14155550130');
  });
});

describe('local-format calling numbers', () => {
  let org: SeededOrganisation;

  beforeAll(async () => {
    org = await seedOrganisation(t.db.sql, 'Local');
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-d',
      phoneNumber: '+919876543210',
      ageSeconds: 30,
    });
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-b',
      phoneNumber: '+14155550140',
      ageSeconds: 20,
    });
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-b',
      phoneNumber: '+442071234567',
      ageSeconds: 10,
    });
    await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-c',
      phoneNumber: '+12071234567',
      ageSeconds: 5,
    });
  });

  it('resolves a national number, with a trunk 0 or punctuation, to the E.164 number owned', async () => {
    expect(await numberOf(org, { callingNumber: '09876543210', telephonyProvider: 'carrier-d' })).toEqual({
      callingNumber: '+919876543210',
      telephonyProvider: 'carrier-d',
    });
    expect(await numberOf(org, { callingNumber: '(415) 555-0140', telephonyProvider: 'carrier-b' })).toEqual({
      callingNumber: '+14155550140',
      telephonyProvider: 'carrier-b',
    });
    expect(await numberOf(org, { callingNumber: '1 415 555 0140', telephonyProvider: 'carrier-b' })).toEqual({
      callingNumber: '+14155550140',
      telephonyProvider: 'carrier-b',
    });
    expect(await numberOf(org, { callingNumber: '0091 98765 43210', telephonyProvider: 'carrier-d' })).toEqual({
      callingNumber: '+919876543210',
      telephonyProvider: 'carrier-d',
    });
  });

  it('prefers the named provider when two owned numbers share the local digits, else asks for E.164', async () => {
    expect(await numberOf(org, { callingNumber: '2071234567', telephonyProvider: 'carrier-c' })).toEqual({
      callingNumber: '+12071234567',
      telephonyProvider: 'carrier-c',
    });
    const ambiguous = await create(org, { callingNumber: '2071234567', telephonyProvider: 'carrier-e' });
    expect(ambiguous.statusCode).toBe(400);
    expect(ambiguous.json().errors).toEqual([
      {
        field: 'callingNumber',
        message: 'matches several numbers of the organisation (+12071234567, +442071234567): send it in E.164 form',
      },
    ]);
  });

  it('refuses a local number matching none, and a malformed one, naming callingNumber', async () => {
    const none = await create(org, { callingNumber: '5551234', telephonyProvider: 'carrier-b' });
    expect(none.json().errors).toEqual([
      {
        field: 'callingNumber',
        message: 'is not in E.164 form (+ and the country code) and matches no active number of the organisation',
      },
    ]);
    const short = await create(org, { callingNumber: '+123', telephonyProvider: 'carrier-b' });
    expect(short.json().errors).toEqual([
      {
        field: 'callingNumber',
        message: 'must be an E.164 number: + then the country code and number, 8 to 15 digits',
      },
    ]);
    const words = await create(org, { callingNumber: 'call me', telephonyProvider: 'carrier-b' });
    expect(words.json().errors).toEqual([
      {
        field: 'callingNumber',
        message: 'must be a phone number: digits, best in E.164 form (+ and the country code)',
      },
    ]);
  });

  it('resolves a local number sent on update too, and clears with null', async () => {
    const data = (await create(org)).json().data;
    expect(data).toMatchObject({ callingNumber: '+12071234567', telephonyProvider: 'carrier-c' });
    const res = await t.call(org.key, {
      method: 'PUT',
      url: `/api/v1/voice/agents/${data.id}`,
      payload: { callingNumber: '098765 43210', telephonyProvider: 'carrier-d' },
    });
    expect(res.json().data).toMatchObject({
      callingNumber: '+919876543210',
      telephonyProvider: 'carrier-d',
      version: 2,
    });
    const cleared = await t.call(org.key, {
      method: 'PUT',
      url: `/api/v1/voice/agents/${data.id}`,
      payload: { callingNumber: null },
    });
    expect(cleared.json().data.callingNumber).toBeNull();
  });
});
