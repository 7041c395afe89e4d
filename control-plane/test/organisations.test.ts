import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedMember, seedOrganisation, seedUser, type SeededOrganisation } from './support/seed.ts';

let t: TestApp;
let org: SeededOrganisation;
let other: SeededOrganisation;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql, 'Acme');
  other = await seedOrganisation(t.db.sql, 'Globex');
});
afterAll(() => t?.close());

const get = (key: string, url: string) => t.call(key, { method: 'GET', url: `/api/v1${url}` });
const put = (key: string, id: string, payload: unknown) =>
  t.call(key, { method: 'PUT', url: `/api/v1/organisations/${id}`, payload: payload as object });

/** The field names a 400 answer lists. */
const failingFields = (body: { errors?: { field: string }[] }) => (body.errors ?? []).map((e) => e.field);

describe('GET /organisations', () => {
  it("lists only the key's organisation, with its owner and members", async () => {
    const viewer = await seedMember(t.db.sql, org.organisationId, 'VIEWER', ['org:read']);
    const res = await get(org.key, '/organisations');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.data).toHaveLength(1);
    const [listed] = body.data;
    expect(listed).toMatchObject({
      id: org.organisationId,
      name: 'Acme',
      ownerId: org.ownerId,
      type: expect.any(String),
      visibility: expect.any(String),
      isActive: true,
      deletedAt: null,
      owner: { id: org.ownerId, name: 'Acme Owner' },
    });
    const roles = Object.fromEntries(listed.members.map((m: { userId: string; role: string }) => [m.userId, m.role]));
    expect(roles).toEqual(expect.objectContaining({ [org.ownerId]: 'OWNER', [viewer.userId]: 'VIEWER' }));
    expect(listed.members.every((m: { organisationId: string }) => m.organisationId === org.organisationId)).toBe(true);
    expect(listed.members.map((m: { userId: string }) => m.userId)).not.toContain(other.ownerId);
  });

  it('shows timestamps as ISO 8601 strings in UTC', async () => {
    const [listed] = (await get(org.key, '/organisations')).json().data;
    expect(listed.createdAt).toMatch(ISO);
    expect(listed.updatedAt).toMatch(ISO);
    expect(listed.owner.createdAt).toMatch(ISO);
    expect(listed.members[0].joinedAt).toMatch(ISO);
  });

  it('lists the owner as a virtual OWNER entry when the owner has no membership row', async () => {
    const lonely = await seedOrganisation(t.db.sql, 'Initech');
    const removed = await t.db
      .sql`delete from members where organisation_id = ${lonely.organisationId} and user_id = ${lonely.ownerId} returning id`;
    await t.app.organisationCache.changed(lonely.organisationId); // a write by hand, announced as Parley's own are
    expect(removed).toHaveLength(1);
    const res = await get(lonely.key, '/organisations');
    expect(res.statusCode).toBe(200);
    const [listed] = res.json().data;
    expect(listed.members).toEqual([
      expect.objectContaining({
        id: lonely.ownerId,
        userId: lonely.ownerId,
        organisationId: lonely.organisationId,
        role: 'OWNER',
        joinedAt: listed.createdAt,
        user: expect.objectContaining({ id: lonely.ownerId, name: 'Initech Owner' }),
      }),
    ]);
  });
});

describe('GET /organisations/:id', () => {
  it('answers the own organisation with owner and members', async () => {
    const res = await get(org.key, `/organisations/${org.organisationId}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: org.organisationId, owner: { id: org.ownerId } });
    expect(res.json().data.members.length).toBeGreaterThanOrEqual(1);
  });

  it("refuses another organisation's id with 403 and shows nothing of it", async () => {
    const res = await get(org.key, `/organisations/${other.organisationId}`);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ success: false, code: 'foreign_organisation' });
    expect(res.body).not.toContain('Globex');
  });

  it("refuses a malformed organisation id as not the key's own (403), before validating it", async () => {
    const res = await get(org.key, '/organisations/not-an-id');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ success: false, code: 'foreign_organisation' });
    expect(res.json().message).toMatch(/^id /);
  });

  it('stops answering for a soft-deleted organisation: 404 while the key is cached, then the key itself is refused', async () => {
    const doomed = await seedOrganisation(t.db.sql, 'Doomed');
    expect((await get(doomed.key, `/organisations/${doomed.organisationId}`)).statusCode).toBe(200);
    await t.db.sql`update organisations set deleted_at = now() where id = ${doomed.organisationId}`;
    // Deleting through Parley announces the change, as every organisation write does; by hand, we announce it.
    await t.app.organisationCache.changed(doomed.organisationId);

    // The key was resolved a moment ago and its principal is cached for at most KEY_CACHE_TTL_MS: within that window
    // the route itself finds no organisation (404, as the spec says for a deleted one); never does it show the record.
    const first = await get(doomed.key, `/organisations/${doomed.organisationId}`);
    expect([404, 401]).toContain(first.statusCode);
    expect(first.body).not.toContain('Doomed');
    if (first.statusCode === 404) expect(first.json()).toMatchObject({ success: false, code: 'not_found' });

    // Once the cache lapses, a key of a deleted organisation no longer authenticates at all.
    await expect
      .poll(async () => (await get(doomed.key, `/organisations/${doomed.organisationId}`)).statusCode, {
        timeout: 5_000,
      })
      .toBe(401);
    const list = await get(doomed.key, '/organisations');
    expect(list.statusCode).toBe(401);
    expect(list.json().code).toBe('unauthorized');
  });
});

describe('PUT /organisations/:id', () => {
  it('updates only the fields sent', async () => {
    const target = await seedOrganisation(t.db.sql, 'Partial');
    const before = (await get(target.key, `/organisations/${target.organisationId}`)).json().data;

    const res = await put(target.key, target.organisationId, { name: 'Partial Renamed', visibility: 'PUBLIC' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, message: expect.any(String) });
    expect(res.json().data).toMatchObject({
      name: 'Partial Renamed',
      visibility: 'PUBLIC',
      description: before.description,
      type: before.type,
    });
    expect(Date.parse(res.json().data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));

    const second = await put(target.key, target.organisationId, { description: 'We make things', type: 'TEAM' });
    expect(second.statusCode).toBe(200);
    const after = (await get(target.key, `/organisations/${target.organisationId}`)).json().data;
    expect(after).toMatchObject({
      name: 'Partial Renamed',
      visibility: 'PUBLIC',
      description: 'We make things',
      type: 'TEAM',
    });
  });

  it('silently ignores fields that are not writable, such as ownerId', async () => {
    const target = await seedOrganisation(t.db.sql, 'Ignorer');
    const intruder = await seedUser(t.db.sql, 'Would-be Owner');
    const res = await put(target.key, target.organisationId, {
      ownerId: intruder,
      isActive: false,
      name: 'Ignorer Two',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ name: 'Ignorer Two', ownerId: target.ownerId, isActive: true });
    const [row] = await t.db.sql<{ owner_id: string; is_active: boolean }[]>`
      select owner_id, is_active from organisations where id = ${target.organisationId}`;
    expect(row).toEqual({ owner_id: target.ownerId, is_active: true });
  });

  it('refuses an unknown type with 400 naming type, and changes nothing', async () => {
    const target = await seedOrganisation(t.db.sql, 'Enum');
    const res = await put(target.key, target.organisationId, { name: 'Enum Changed', type: 'COMMUNE' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'validation_failed' });
    expect(failingFields(res.json())).toEqual(['type']);
    expect(res.json().message).toContain('type');
    expect((await get(target.key, `/organisations/${target.organisationId}`)).json().data.name).toBe('Enum');
  });

  it('refuses an unknown visibility with 400 naming visibility', async () => {
    const res = await put(org.key, org.organisationId, { visibility: 'SECRET' });
    expect(res.statusCode).toBe(400);
    expect(failingFields(res.json())).toEqual(['visibility']);
  });

  it('refuses a name that is not a string with 400 naming name', async () => {
    const res = await put(org.key, org.organisationId, { name: 42 });
    expect(res.statusCode).toBe(400);
    expect(failingFields(res.json())).toEqual(['name']);
    expect(res.json().message).toContain('name');
  });

  it('needs the org:write scope', async () => {
    const reader = await seedMember(t.db.sql, org.organisationId, 'ADMIN', ['org:read']);
    const res = await put(reader.key, org.organisationId, { name: 'Hijacked' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ success: false, code: 'insufficient_scope' });
    expect(res.json().message).toContain('org:write');
    expect((await get(org.key, `/organisations/${org.organisationId}`)).json().data.name).not.toBe('Hijacked');
  });

  it('refuses to update another organisation with 403 and leaves it unchanged', async () => {
    const res = await put(org.key, other.organisationId, { name: 'Taken Over' });
    expect(res.statusCode).toBe(403);
    expect((await get(other.key, `/organisations/${other.organisationId}`)).json().data.name).toBe('Globex');
  });
});

describe('GET /organisations/user/:userId', () => {
  it("lists the key owner's organisations, filtered to the key's own", async () => {
    const res = await get(org.key, `/organisations/user/${org.ownerId}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((o: { id: string }) => o.id)).toEqual([org.organisationId]);
    expect(res.json().data[0].owner.id).toBe(org.ownerId);
  });

  it("answers 403 for another user's id", async () => {
    const member = await seedMember(t.db.sql, org.organisationId, 'EDITOR', ['org:read']);
    for (const userId of [other.ownerId, member.userId]) {
      const res = await get(org.key, `/organisations/user/${userId}`);
      expect(res.statusCode).toBe(403);
      expect(res.json().success).toBe(false);
    }
  });

  it('answers 400 naming userId for a malformed id', async () => {
    const res = await get(org.key, '/organisations/user/nobody');
    expect(res.statusCode).toBe(400);
    expect(failingFields(res.json())).toEqual(['userId']);
  });
});
