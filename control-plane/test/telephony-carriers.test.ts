/**
 * Connect and sync of an organisation's own carrier account, the same for every carrier that has one (spec
 * document 2, Telephony and phone numbers): one scenario set run against each carrier's contract fake through its
 * fixture (support/carrier-fixtures.ts). What only one carrier does is in its own telephony-carrier-<x>.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertApiKey } from '../src/auth/api-key-repository.ts';
import type { Scope } from '../src/auth/scopes.ts';
import { startTelephonyTestApp, type TelephonyTestApp } from './fakes/carriers/telephony-test-app.ts';
import {
  OWN_ACCOUNT_CARRIERS,
  reportedCounts,
  type FakeAccountOf,
  type NeutralCounts,
} from './support/carrier-fixtures.ts';
import {
  enableFeatures,
  seedAgent,
  seedOrganisation,
  seedPhoneNumber,
  seedWallet,
  type SeededOrganisation,
} from './support/seed.ts';

let t: TelephonyTestApp;

beforeAll(async () => {
  // Pages of two numbers: every account below spans several pages.
  t = await startTelephonyTestApp({ carrierAPageSize: 2, carrierBPageSize: 2, carrierCPageSize: 2 });
});
afterAll(() => t?.close());

interface NumberView {
  id: string;
  phoneNumber: string;
  routingStatus: string;
  friendlyName: string | null;
}

describe.each(OWN_ACCOUNT_CARRIERS.map((fixture) => [fixture.carrier, fixture] as const))('%s', (carrier, f) => {
  /** An organisation with self-serve telephony (and a funded wallet, for a carrier that needs one). */
  async function telephonyOrg(name: string): Promise<SeededOrganisation> {
    const org = await seedOrganisation(t.db.sql, `${carrier} ${name}`);
    await enableFeatures(t.db.sql, org.organisationId, ['self_serve_telephony']);
    if (f.needsWallet) await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 1_000 });
    return org;
  }

  const post = (org: SeededOrganisation, action: string, body: Record<string, unknown> = {}, key = org.key) =>
    t.call(key, {
      method: 'POST',
      url: `/api/v1/telephony/${carrier}/${action}`,
      payload: { organisationId: org.organisationId, ...body },
    });
  const connect = (org: SeededOrganisation, body: Record<string, unknown> = {}) => post(org, 'connect', body);
  const sync = (org: SeededOrganisation) => post(org, 'sync');

  /** An account with numbers 0…count-1 of `series`, each a voice number on no application. */
  function accountWith(count: number, series: number): FakeAccountOf {
    const account = f.addAccount(t);
    for (let i = 0; i < count; i += 1) f.addNumber(t, account, f.phone(series, i));
    return account;
  }

  async function numbersOf(org: SeededOrganisation): Promise<Record<string, NumberView>> {
    const res = await t.call(org.key, { method: 'GET', url: `/api/v1/telephony/numbers/${org.organisationId}` });
    expect(res.statusCode, res.body).toBe(200);
    return Object.fromEntries((res.json().data as NumberView[]).map((n) => [n.phoneNumber, n]));
  }

  /** Every row of the organisation's telephony tables, to prove a refused request changed nothing. */
  async function telephonyState(org: SeededOrganisation): Promise<unknown> {
    const sql = t.db.sql;
    return {
      integrations:
        await sql`select * from telephony_integrations where organisation_id = ${org.organisationId} order by id`,
      numbers: await sql`select * from phone_numbers where organisation_id = ${org.organisationId} order by id`,
      changes: await sql`select * from telephony_changes where organisation_id = ${org.organisationId}`,
    };
  }
  const NOTHING = { integrations: [], numbers: [], changes: [] };

  async function lastSyncedAt(org: SeededOrganisation): Promise<Date | null> {
    const [integration] = await t.db
      .sql`select last_synced_at from telephony_integrations where organisation_id = ${org.organisationId} and is_active`;
    return integration!.last_synced_at as Date | null;
  }

  function expectCounts(
    res: { json(): { data: Record<string, unknown> } },
    operation: 'connect' | 'sync',
    expected: NeutralCounts,
  ) {
    const counts = f.counts(res.json().data);
    expect(counts).toMatchObject(reportedCounts(f, operation, expected));
  }

  async function keyWith(org: SeededOrganisation, scopes: readonly Scope[]): Promise<string> {
    const { key } = await insertApiKey(t.db.sql, {
      organisationId: org.organisationId,
      userId: org.ownerId,
      name: scopes.join(' '),
      scopes,
    });
    return key;
  }

  describe('connect', () => {
    it('imports every voice number on every page, stores the credentials encrypted and returns them only as "configured"', async () => {
      const org = await telephonyOrg('Connect');
      const account = accountWith(5, 1);
      f.addNumber(t, account, f.phone(1, 8), 'elsewhere');
      f.addNumber(t, account, f.phone(1, 9), 'no-voice');

      const res = await connect(org, account.body);
      expect(res.statusCode, res.body).toBe(201);
      expectCounts(res, 'connect', { imported: 6, updated: 0, needsSetup: 1, deactivated: 0, complete: true });
      const { integration } = res.json().data;
      expect(integration).toMatchObject({
        organisationId: org.organisationId,
        provider: carrier,
        isActive: true,
        config: {
          label: f.defaultLabel,
          ...Object.fromEntries(f.storedSecretKeys.map((key) => [key, 'configured'])),
        },
      });
      expect(typeof integration.config.connected_at).toBe('string');
      for (const secret of account.secrets) expect(res.body).not.toContain(secret);

      const [stored] = await t.db.sql<{ secrets: Record<string, string>; account_ref: string }[]>`
        select secrets, account_ref from telephony_integrations where organisation_id = ${org.organisationId}`;
      expect(stored!.account_ref).toBe(account.ref);
      expect(Object.keys(stored!.secrets).sort()).toEqual(f.storedSecretKeys);
      for (const value of Object.values(stored!.secrets)) expect(value).toMatch(/^enc:v1:test:/);
      for (const secret of account.secrets.slice(1)) expect(JSON.stringify(stored!.secrets)).not.toContain(secret);

      const numbers = await numbersOf(org);
      expect(Object.keys(numbers).sort()).toEqual([0, 1, 2, 3, 4, 8].map((i) => f.phone(1, i)));
      for (const i of [0, 1, 2, 3, 4]) expect(numbers[f.phone(1, i)]!.routingStatus).toBe('READY');
      // A number answering through the customer's own application or flow is imported and left alone.
      expect(numbers[f.phone(1, 8)]!.routingStatus).toBe('NEEDS_SETUP');
      expect(await lastSyncedAt(org)).not.toBeNull();

      // Every page (seven numbers, two a page), the account's credentials on every request.
      expect(f.server(t).received(f.lists(account))).toHaveLength(4);
      const mine = f.server(t).received(f.onAccount(account));
      expect(mine.every((r) => f.authenticated(r, account))).toBe(true);
    });

    it.runIf(f.reusesStoredCredentials)(
      'reconnects the same account with the stored credentials: label kept, present numbers refreshed, gone ones deactivated',
      async () => {
        const org = await telephonyOrg('Reconnect');
        const account = accountWith(3, 2);
        expect((await connect(org, { ...account.body, label: 'Main line' })).statusCode).toBe(201);

        f.removeNumber(t, account, f.phone(2, 0));
        f.addNumber(t, account, f.phone(2, 9));
        f.rename(t, account, f.phone(2, 1), 'Front desk');

        const res = await connect(org);
        expect(res.statusCode, res.body).toBe(201);
        expect(res.json().data.reusedStoredCredentials).toBe(true);
        expectCounts(res, 'connect', { imported: 1, updated: 2, deactivated: 1, complete: true });
        expect(res.json().data.integration.config.label).toBe('Main line');
        const numbers = await numbersOf(org);
        expect(Object.keys(numbers).sort()).toEqual([1, 2, 9].map((i) => f.phone(2, i)));
        expect(numbers[f.phone(2, 1)]!.friendlyName).toBe('Front desk');

        // Naming the same account without its secret also reuses; a new label replaces the old one.
        const again = await connect(org, { ...f.idOnlyBody!(account), label: 'Renamed line' });
        expect(again.statusCode, again.body).toBe(201);
        expect(again.json().data).toMatchObject({
          reusedStoredCredentials: true,
          integration: { config: { label: 'Renamed line' } },
        });
      },
    );

    it.runIf(f.reusesStoredCredentials)(
      'needs credentials: none stored, or another account without its own secret, is 400 and changes nothing',
      async () => {
        const org = await telephonyOrg('No credentials');
        const none = await connect(org);
        expect(none.statusCode).toBe(400);
        expect(none.json()).toMatchObject({ success: false, code: 'credentials_required' });
        const first = accountWith(1, 3);
        const tokenless = await connect(org, f.idOnlyBody!(first));
        expect(tokenless.statusCode).toBe(400);
        expect(tokenless.json().code).toBe('credentials_required');
        expect(await telephonyState(org)).toMatchObject(NOTHING);

        expect((await connect(org, first.body)).statusCode).toBe(201);
        const second = accountWith(1, 4);
        const before = await telephonyState(org);
        const other = await connect(org, f.idOnlyBody!(second));
        expect(other.statusCode).toBe(400);
        expect(other.json().code).toBe('credentials_required');
        expect(await telephonyState(org)).toEqual(before);
      },
    );

    it("answers 400 with the carrier's words when it refuses the credentials, storing nothing", async () => {
      const org = await telephonyOrg('Bad token');
      const account = accountWith(1, 5);
      const res = await connect(org, f.wrongSecretBody(account));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'carrier_rejected', message: expect.stringContaining(f.refusalWords) });
      expect(res.body).not.toContain('wrong-token');
      expect(await telephonyState(org)).toMatchObject(NOTHING);
    });

    it('answers 502 when the carrier fails, and 403 when self-serve telephony is off', async () => {
      const org = await telephonyOrg('Carrier down');
      const account = accountWith(1, 6);
      f.server(t).fail(f.onAccount(account), f.down());
      const down = await connect(org, account.body);
      expect(down.statusCode).toBe(502);
      expect(down.json().code).toBe('upstream_failed');
      expect(await telephonyState(org)).toMatchObject(NOTHING);

      const off = await seedOrganisation(t.db.sql, `${carrier} Feature off`);
      if (f.needsWallet) await seedWallet(t.db.sql, off.organisationId, { balanceMinor: 1_000 });
      const asked = f.server(t).requests.length;
      const refused = await connect(off, account.body);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('feature_disabled');
      expect(f.server(t).requests.length).toBe(asked);
    });

    it('switching accounts retires the old numbers; refused with 409 while an agent answers on or dials out from one', async () => {
      const org = await telephonyOrg('Switch');
      const first = accountWith(2, 7);
      expect((await connect(org, { ...first.body, label: 'Old' })).statusCode).toBe(201);
      const second = accountWith(3, 8);

      const voice = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
      const numbers = await numbersOf(org);
      const answering = numbers[f.phone(7, 0)]!;
      const assign = await t.call(org.key, {
        method: 'PUT',
        url: `/api/v1/telephony/numbers/${answering.id}/agent`,
        payload: { organisationId: org.organisationId, agentId: voice },
      });
      expect(assign.statusCode, assign.body).toBe(200);
      const dialler = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
      await t.db
        .sql`update agents set calling_number = ${f.phone(7, 1)}, telephony_provider = ${carrier} where id = ${dialler}`;

      const before = await telephonyState(org);
      const refused = await connect(org, second.body);
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({
        code: 'numbers_in_use',
        message: expect.stringContaining(`answers on ${f.phone(7, 0)}`),
      });
      expect(refused.json().message).toContain(`dials out from ${f.phone(7, 1)}`);
      expect(await telephonyState(org)).toEqual(before);
      // Refused before the new account was asked anything.
      expect(f.server(t).received(f.onAccount(second))).toEqual([]);

      await t.call(org.key, {
        method: 'DELETE',
        url: `/api/v1/telephony/numbers/${answering.id}/agent`,
        query: { organisationId: org.organisationId },
      });
      await t.db.sql`update agents set calling_number = null where id = ${dialler}`;
      const switched = await connect(org, second.body);
      expect(switched.statusCode, switched.body).toBe(201);
      expectCounts(switched, 'connect', { imported: 3, deactivated: 2 });
      // The label carries over to the new account.
      expect(switched.json().data.integration.config.label).toBe('Old');
      if (f.reusesStoredCredentials) expect(switched.json().data.reusedStoredCredentials).toBe(false);
      expect(Object.keys(await numbersOf(org)).sort()).toEqual([0, 1, 2].map((i) => f.phone(8, i)));
      const integrations = await t.db
        .sql`select account_ref, is_active from telephony_integrations where organisation_id = ${org.organisationId} order by created_at, id`;
      expect(integrations.map((i) => [i.account_ref, i.is_active])).toEqual([
        [first.ref, false],
        [second.ref, true],
      ]);
    });

    it('a connect whose later page fails imports what it read and deactivates nothing', async () => {
      const org = await telephonyOrg('Partial connect');
      const account = accountWith(5, 9);
      f.server(t).fail((r) => f.lists(account)(r) && f.secondPage(r), f.pageFailure());
      const res = await connect(org, account.body);
      expect(res.statusCode, res.body).toBe(201);
      expectCounts(res, 'connect', { remoteCount: 2, imported: 2, updated: 0, deactivated: 0, complete: false });
      expect(await lastSyncedAt(org)).toBeNull();
    });

    it('is one change at a time: a connect while a sync of the account runs is 409 and changes nothing', async () => {
      const org = await telephonyOrg('Busy');
      const account = accountWith(2, 10);
      expect((await connect(org, account.body)).statusCode).toBe(201);
      const hold = f.server(t).hold(f.lists(account));
      const syncing = sync(org);
      await hold.reached;
      const before = await telephonyState(org);
      const busy = await connect(org, account.body);
      expect(busy.statusCode).toBe(409);
      expect(busy.json()).toMatchObject({ code: 'change_in_progress', message: expect.stringContaining('A sync') });
      expect(await telephonyState(org)).toEqual(before);
      hold.release();
      expect((await syncing).statusCode).toBe(200);
      expect((await connect(org, account.body)).statusCode).toBe(201);
    });
  });

  describe('sync', () => {
    it("imports new, refreshes present and deactivates gone numbers, counting each kind; another carrier's numbers are skipped", async () => {
      const org = await telephonyOrg('Sync');
      const account = accountWith(3, 11);
      expect((await connect(org, account.body)).statusCode).toBe(201);
      const otherCarriers = f.phone(11, 9);
      await seedPhoneNumber(t.db.sql, org.organisationId, { provider: f.otherCarrier, phoneNumber: otherCarriers });
      f.addNumber(t, account, otherCarriers);
      f.addNumber(t, account, f.phone(11, 5), 'elsewhere');
      f.addNumber(t, account, f.phone(11, 6));
      f.removeNumber(t, account, f.phone(11, 2));
      f.rename(t, account, f.phone(11, 1), 'Support');

      const res = await sync(org);
      expect(res.statusCode, res.body).toBe(200);
      expectCounts(res, 'sync', {
        remoteCount: 5,
        imported: 2,
        updated: 2,
        needsSetup: 1,
        skippedOtherProvider: 1,
        deactivated: 1,
        complete: true,
      });
      const numbers = await numbersOf(org);
      expect(Object.keys(numbers).sort()).toEqual([0, 1, 5, 6, 9].map((i) => f.phone(11, i)));
      expect(numbers[f.phone(11, 1)]!.friendlyName).toBe('Support');
      expect(numbers[f.phone(11, 5)]!.routingStatus).toBe('NEEDS_SETUP');
      expect(numbers[f.phone(11, 6)]!.routingStatus).toBe('READY');
      const [other] = await t.db
        .sql`select provider from phone_numbers where phone_number = ${otherCarriers} and organisation_id = ${org.organisationId}`;
      expect(other!.provider).toBe(f.otherCarrier);
    });

    it('a sync whose second page fails deactivates nothing; the next whole read settles it', async () => {
      const org = await telephonyOrg('Partial sync');
      const account = accountWith(4, 12);
      expect((await connect(org, account.body)).statusCode).toBe(201);
      const syncedAt = await lastSyncedAt(org);
      // Every number after the first page is gone, but the sync cannot know it: page two fails.
      f.removeNumber(t, account, f.phone(12, 2));
      f.removeNumber(t, account, f.phone(12, 3));
      f.addNumber(t, account, f.phone(12, 4));
      f.server(t).fail((r) => f.lists(account)(r) && f.secondPage(r), f.pageFailure());
      const partial = await sync(org);
      expect(partial.statusCode, partial.body).toBe(200);
      expectCounts(partial, 'sync', { remoteCount: 2, updated: 2, synced: 2, deactivated: 0, complete: false });
      expect(Object.keys(await numbersOf(org)).sort()).toEqual([0, 1, 2, 3].map((i) => f.phone(12, i)));
      expect(await lastSyncedAt(org)).toEqual(syncedAt);

      const full = await sync(org);
      expectCounts(full, 'sync', { remoteCount: 3, imported: 1, updated: 2, deactivated: 2, complete: true });
      expect(Object.keys(await numbersOf(org)).sort()).toEqual([0, 1, 4].map((i) => f.phone(12, i)));
    });

    it("never follows a next-page link off the account's own list", async () => {
      const org = await telephonyOrg('Bad page link');
      const account = accountWith(1, 13);
      expect((await connect(org, account.body)).statusCode).toBe(201);
      f.server(t).fail(f.lists(account), f.offListPage());
      const res = await sync(org);
      expect(res.statusCode, res.body).toBe(200);
      expectCounts(res, 'sync', { remoteCount: 0, deactivated: 0, complete: false });
      expect(f.wentOffList(t)).toBe(false);
      expect(Object.keys(await numbersOf(org))).toEqual([f.phone(13, 0)]);
    });

    it('answers 404 without a connected account, 400 when the stored credentials are refused', async () => {
      const org = await telephonyOrg('Unsynced');
      const missing = await sync(org);
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({
        success: false,
        code: 'not_found',
        message: expect.stringContaining(`No ${carrier} account is connected`),
      });
      const account = accountWith(1, 14);
      expect((await connect(org, account.body)).statusCode).toBe(201);
      f.server(t).fail(f.onAccount(account), f.refused());
      const refused = await sync(org);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().code).toBe('carrier_rejected');
    });
  });

  describe('scopes', () => {
    it("another organisation's id in the body is 403", async () => {
      const org = await telephonyOrg('Own org');
      const stranger = await telephonyOrg('Stranger');
      const account = accountWith(1, 15);
      for (const action of ['connect', 'sync']) {
        const res = await post(stranger, action, action === 'connect' ? account.body : {}, org.key);
        expect(res.statusCode, res.body).toBe(403);
      }
      expect(f.server(t).received(f.onAccount(account))).toEqual([]);
    });

    it('connect and sync need numbers:write', async () => {
      const org = await telephonyOrg('Scopes');
      const account = accountWith(1, 16);
      const reader = await keyWith(org, ['numbers:read']);
      for (const action of ['connect', 'sync']) {
        const res = await post(org, action, action === 'connect' ? account.body : {}, reader);
        expect(res.statusCode, res.body).toBe(403);
        expect(res.json().code).toBe('insufficient_scope');
      }
      const writer = await keyWith(org, ['numbers:write']);
      expect((await post(org, 'connect', account.body, writer)).statusCode).toBe(201);
      expect((await post(org, 'sync', {}, writer)).statusCode).toBe(200);
    });
  });
});
