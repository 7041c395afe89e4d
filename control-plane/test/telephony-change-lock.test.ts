/**
 * One change at a time per carrier account: a second connect or sync while one runs is 409; a change that ran too
 * long is abandoned (409); a lock that cannot be taken is 503. Nothing changes in any of those cases. The tests
 * that hold the advisory lock from a second session need real Postgres (PGlite serves one connection); CI sets
 * DATABASE_URL, so they always run there.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../src/errors.ts';
import { newId } from '../src/db/ids.ts';
import { CHANGE_LOCK_CLASS, ChangeLock, changeLockKey } from '../src/telephony/change-lock.ts';
import type { FakeAccount } from './fakes/carriers/carrier-b-fake.ts';
import { startTelephonyTestApp, type TelephonyTestApp } from './fakes/carriers/telephony-test-app.ts';
import { enableFeatures, seedOrganisation, type SeededOrganisation } from './support/seed.ts';

const realPostgres = Boolean(process.env.DATABASE_URL);
let t: TelephonyTestApp;

beforeAll(async () => {
  t = await startTelephonyTestApp();
});
afterAll(() => t?.close());

async function telephonyOrg(name: string): Promise<{ org: SeededOrganisation; account: FakeAccount }> {
  const org = await seedOrganisation(t.db.sql, name);
  await enableFeatures(t.db.sql, org.organisationId, ['self_serve_telephony']);
  const account = t.carrierB.addAccount();
  t.carrierB.addNumber(account.accountSid, `+1415555${String(Math.floor(1000 + Math.random() * 8999))}`);
  return { org, account };
}

const post = (org: SeededOrganisation, action: string, body: Record<string, unknown> = {}) =>
  t.call(org.key, {
    method: 'POST',
    url: `/api/v1/telephony/carrier-b/${action}`,
    payload: { organisationId: org.organisationId, ...body },
  });

async function telephonyState(org: SeededOrganisation): Promise<unknown> {
  const sql = t.db.sql;
  return {
    integrations:
      await sql`select * from telephony_integrations where organisation_id = ${org.organisationId} order by id`,
    numbers: await sql`select * from phone_numbers where organisation_id = ${org.organisationId} order by id`,
    changes: await sql`select * from telephony_changes where organisation_id = ${org.organisationId}`,
  };
}

const listsOf = (account: FakeAccount) => (r: { method: string; path: string }) =>
  r.method === 'GET' && r.path === `/2010-04-01/Accounts/${account.accountSid}/IncomingPhoneNumbers.json`;

/** Holds the account's advisory lock on a session of its own, as a stuck process or an operator's session would. */
async function holdAdvisoryLock(org: SeededOrganisation): Promise<() => Promise<void>> {
  const session = await t.db.sql.reserve();
  const key = changeLockKey(org.organisationId, 'carrier-b');
  await session`select pg_advisory_lock(${CHANGE_LOCK_CLASS}::int, hashtext(${key}))`;
  return async () => {
    await session`select pg_advisory_unlock(${CHANGE_LOCK_CLASS}::int, hashtext(${key}))`;
    session.release();
  };
}

describe('one change at a time per carrier account', () => {
  it('refuses a second connect or a sync with 409 while a connect is running, and changes nothing', async () => {
    const { org, account } = await telephonyOrg('Busy');
    const hold = t.carrierB.server.hold(listsOf(account));
    const first = post(org, 'connect', { ...account });
    await hold.reached;

    const second = await post(org, 'connect', { ...account });
    expect(second.statusCode, second.body).toBe(409);
    expect(second.json()).toMatchObject({
      success: false,
      code: 'change_in_progress',
      message: expect.stringContaining('A connect'),
    });
    const sync = await post(org, 'sync');
    // No account is connected yet: the sync is refused before it could claim anything.
    expect(sync.statusCode).toBe(404);
    expect(t.carrierB.server.received(listsOf(account))).toHaveLength(1);

    hold.release();
    const done = await first;
    expect(done.statusCode, done.body).toBe(201);
    expect(done.json().data.imported).toBe(1);

    const syncHold = t.carrierB.server.hold(listsOf(account));
    const running = post(org, 'sync');
    await syncHold.reached;
    const reconnect = await post(org, 'connect');
    expect(reconnect.statusCode).toBe(409);
    expect(reconnect.json().message).toContain('A sync');
    syncHold.release();
    expect((await running).statusCode).toBe(200);
    expect(await telephonyState(org)).toMatchObject({ changes: [] });
    // Once the change is over, the next one runs.
    expect((await post(org, 'connect')).statusCode).toBe(201);
  });

  it("lets a change run again once a crashed change's claim has lapsed", async () => {
    const { org, account } = await telephonyOrg('Crashed');
    await t.db
      .sql`insert into telephony_changes (id, lock_key, organisation_id, provider, operation, started_at, expires_at)
      values (${newId()}, ${changeLockKey(org.organisationId, 'carrier-b')}, ${org.organisationId}, 'carrier-b', 'connect',
              now() - interval '10 minutes', now() - interval '8 minutes')`;
    const res = await post(org, 'connect', { ...account });
    expect(res.statusCode, res.body).toBe(201);
    expect(await telephonyState(org)).toMatchObject({ changes: [] });
  });

  it('abandons a change that outlived its lease: 409 change_timed_out, its writes not applied', async () => {
    const { org } = await telephonyOrg('Too long');
    const lock = new ChangeLock(t.db.sql, { leaseMs: 50 });
    const run = lock.run(
      { organisationId: org.organisationId, provider: 'carrier-b', operation: 'sync' },
      async (change) => {
        await sleep(150);
        return change.commit(async (tx) => {
          await tx`update organisations set name = 'changed' where id = ${org.organisationId}`;
        });
      },
    );
    await expect(run).rejects.toMatchObject({ code: 'change_timed_out', status: 409 });
    const [row] = await t.db.sql`select name from organisations where id = ${org.organisationId}`;
    expect(row!.name).toBe('Too long');
    expect(await telephonyState(org)).toMatchObject({ changes: [] });
  });

  it('releases the claim when the work fails or never commits', async () => {
    const { org } = await telephonyOrg('Released');
    const lock = new ChangeLock(t.db.sql);
    const scope = { organisationId: org.organisationId, provider: 'carrier-b', operation: 'sync' } as const;
    await expect(
      lock.run(scope, async () => {
        throw new ApiError('not_found', 'gone');
      }),
    ).rejects.toBeInstanceOf(ApiError);
    expect(await lock.run(scope, async () => 'read only')).toBe('read only');
    const failedWrite = lock.run(scope, (change) =>
      change.commit(async (tx) => {
        await tx`update organisations set name = 'half' where id = ${org.organisationId}`;
        throw new Error('write failed');
      }),
    );
    await expect(failedWrite).rejects.toThrow('write failed');
    const [row] = await t.db.sql`select name from organisations where id = ${org.organisationId}`;
    expect(row!.name).toBe('Released');
    expect(await telephonyState(org)).toMatchObject({ changes: [] });
  });

  it.runIf(realPostgres)(
    'answers 503 when the lock cannot be taken before the change starts, and changes nothing',
    async () => {
      const { org, account } = await telephonyOrg('Lock held');
      const release = await holdAdvisoryLock(org);
      try {
        const res = await post(org, 'connect', { ...account });
        expect(res.statusCode, res.body).toBe(503);
        expect(res.json()).toMatchObject({
          success: false,
          code: 'lock_unavailable',
          message: expect.stringContaining('nothing was changed'),
        });
        expect(await telephonyState(org)).toMatchObject({ integrations: [], numbers: [], changes: [] });
        expect(t.carrierB.server.received(listsOf(account))).toEqual([]);
      } finally {
        await release();
      }
      expect((await post(org, 'connect', { ...account })).statusCode).toBe(201);
    },
  );

  it.runIf(realPostgres)(
    'answers 503 when the lock is lost to another session before the change commits, and changes nothing',
    async () => {
      const { org, account } = await telephonyOrg('Lock lost');
      const hold = t.carrierB.server.hold(listsOf(account));
      const running = post(org, 'connect', { ...account });
      await hold.reached;
      const release = await holdAdvisoryLock(org);
      try {
        hold.release();
        const res = await running;
        expect(res.statusCode, res.body).toBe(503);
        expect(res.json().code).toBe('lock_unavailable');
        expect(await telephonyState(org)).toMatchObject({ integrations: [], numbers: [], changes: [] });
      } finally {
        await release();
      }
    },
  );
});
