/**
 * Revocation across processes: two key stores on two bus connections stand for two control-plane processes. A key
 * revoked through one is refused by the other as soon as the `v1.auth.revoked` broadcast lands, well before the
 * cache's one-second lifetime would have caught it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus } from '@parley/engine/bus';
import { KeyStore, KEY_CACHE_TTL_MS } from '../src/auth/key-store.ts';
import { createTestBus } from './support/bus.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { seedMember, seedOrganisation } from './support/seed.ts';

/** Store B keeps keys this long: a refusal within the deadline can only come from the broadcast. */
const LONG_TTL_MS = 60_000;
/** Generous for a loaded CI machine, and still far inside LONG_TTL_MS. */
const BROADCAST_DEADLINE_MS = 3_000;

let db: TestDatabase;
let busA: Bus;
let busB: Bus;
let storeA: KeyStore;
let storeB: KeyStore;

beforeAll(async () => {
  db = await createTestDatabase();
  busA = await createTestBus('process-a');
  // In-process mode has one bus per process; NATS gives each "process" its own connection.
  busB = process.env.NATS_URL ? await createTestBus('process-b') : busA;
  storeA = new KeyStore(db.sql, busA, (error) => {
    throw error;
  });
  storeB = new KeyStore(
    db.sql,
    busB,
    (error) => {
      throw error;
    },
    LONG_TTL_MS,
  );
  storeA.listen();
  storeB.listen();
  await busA.flush();
  await busB.flush();
});
afterAll(async () => {
  await busA?.close();
  if (busB !== busA) await busB?.close();
  await db?.close();
});

describe('key revocation across processes', () => {
  it('keeps keys one second by default, the longest a revocation may take without a broadcast', () => {
    expect(KEY_CACHE_TTL_MS).toBe(1_000);
  });

  it('drops a revoked key in every process at once', async () => {
    const org = await seedOrganisation(db.sql);
    const member = await seedMember(db.sql, org.organisationId, 'ADMIN', ['org:read']);
    expect(await storeA.authenticate(member.key)).toBeDefined();
    expect(await storeB.authenticate(member.key)).toBeDefined();

    await db.sql`update api_keys set revoked_at = now() where id = ${member.id}`;
    const revokedAt = Date.now();
    await storeA.revoke({ keyId: member.id });
    expect(await storeA.authenticate(member.key)).toBeUndefined();
    await expect
      .poll(() => storeB.authenticate(member.key), { timeout: BROADCAST_DEADLINE_MS, interval: 10 })
      .toBeUndefined();
    expect(Date.now() - revokedAt).toBeLessThan(BROADCAST_DEADLINE_MS);
  });

  it('drops every key of a user who left the organisation, and only theirs', async () => {
    const org = await seedOrganisation(db.sql);
    const leaving = await seedMember(db.sql, org.organisationId, 'EDITOR', ['org:read']);
    const staying = await seedMember(db.sql, org.organisationId, 'EDITOR', ['org:read']);
    for (const key of [leaving.key, staying.key]) expect(await storeB.authenticate(key)).toBeDefined();

    await db.sql`delete from members where user_id = ${leaving.userId}`;
    await storeA.revoke({ userId: leaving.userId, organisationId: org.organisationId });
    await expect
      .poll(() => storeB.authenticate(leaving.key), { timeout: BROADCAST_DEADLINE_MS, interval: 10 })
      .toBeUndefined();
    expect(await storeB.authenticate(staying.key)).toBeDefined();
  });

  it('refuses a revoked key within the cache lifetime even when no broadcast arrives', async () => {
    const org = await seedOrganisation(db.sql);
    const member = await seedMember(db.sql, org.organisationId, 'VIEWER', ['org:read']);
    expect(await storeA.authenticate(member.key)).toBeDefined();
    await db.sql`update api_keys set revoked_at = now() where id = ${member.id}`; // no broadcast
    await expect
      .poll(() => storeA.authenticate(member.key), { timeout: KEY_CACHE_TTL_MS + 2_000, interval: 50 })
      .toBeUndefined();
  });
});
