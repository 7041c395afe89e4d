/**
 * Organisations are cached per process; a change made through one process is visible in another as soon as the
 * `v1.org.changed` broadcast lands (two apps on their own bus connections stand for two control planes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORGANISATION_CACHE_TTL_MS } from '../src/accounts/organisation-cache.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation, seedUser, type SeededOrganisation } from './support/seed.ts';

/** Process two keeps copies this long: a fresh answer within the deadline can only come from the broadcast. */
const LONG_TTL_MS = 60_000;
/** Generous for a loaded CI machine, and still far inside LONG_TTL_MS. */
const BROADCAST_DEADLINE_MS = 3_000;

let one: TestApp;
let two: TestApp;
let org: SeededOrganisation;

beforeAll(async () => {
  one = await startTestApp();
  two = await startTestApp({ db: one.db, bus: process.env.NATS_URL ? undefined : one.bus, cacheTtlMs: LONG_TTL_MS });
  org = await seedOrganisation(one.db.sql, 'Cached');
});
afterAll(async () => {
  await two?.close();
  await one?.close();
});

const organisationName = async (t: TestApp) =>
  (await t.call(org.key, { method: 'GET', url: `/api/v1/organisations/${org.organisationId}` })).json().data
    .name as string;

describe('organisation cache', () => {
  it('keeps copies one second by default, so a change bypassing Parley shows within a second', () => {
    expect(ORGANISATION_CACHE_TTL_MS).toBe(1_000);
  });

  it('shows a rename made through another process at once', async () => {
    expect(await organisationName(two)).toBe('Cached'); // cached in process two now
    const res = await one.call(org.key, {
      method: 'PUT',
      url: `/api/v1/organisations/${org.organisationId}`,
      payload: { name: 'Renamed' },
    });
    expect(res.json().data.name).toBe('Renamed');
    await expect.poll(() => organisationName(two), { timeout: BROADCAST_DEADLINE_MS, interval: 10 }).toBe('Renamed');
  });

  it('shows a member added through another process at once', async () => {
    const members = async (t: TestApp) =>
      (
        (
          await t.call(org.key, { method: 'GET', url: `/api/v1/members/organisation/${org.organisationId}/members` })
        ).json().data as { userId: string }[]
      ).map((m) => m.userId);
    expect(await members(two)).toEqual([org.ownerId]);
    const userId = await seedUser(one.db.sql);
    expect(
      (
        await one.call(org.key, {
          method: 'POST',
          url: `/api/v1/members/organisation/${org.organisationId}/members`,
          payload: { userId },
        })
      ).statusCode,
    ).toBe(201);
    await expect.poll(() => members(two), { timeout: BROADCAST_DEADLINE_MS, interval: 10 }).toContain(userId);
  });
});
