import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { newId } from '../src/db/ids.ts';
import { insertApiKey } from '../src/auth/api-key-repository.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedMember, seedOrganisation, seedUser, type SeededOrganisation } from './support/seed.ts';

let t: TestApp;
let org: SeededOrganisation;
let other: SeededOrganisation;

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql, 'Acme');
  other = await seedOrganisation(t.db.sql, 'Globex');
});
afterAll(() => t?.close());

const ORG_WRITE = ['org:read', 'org:write'] as const;
const membersUrl = (organisationId: string, userId?: string) =>
  `/api/v1/members/organisation/${organisationId}/members${userId ? `/${userId}` : ''}`;

const call = (key: string, method: InjectOptions['method'], url: string, payload?: object) =>
  t.call(key, { method, url, ...(payload && { payload }) });
const listMembers = (key = org.key) => call(key, 'GET', membersUrl(org.organisationId));
const addMember = (key: string, payload: object) => call(key, 'POST', membersUrl(org.organisationId), payload);
const changeRole = (key: string, userId: string, role: unknown) =>
  call(key, 'PUT', membersUrl(org.organisationId, userId), { role });
const removeMember = (key: string, userId: string) => call(key, 'DELETE', membersUrl(org.organisationId, userId));
/** A route only an OWNER or ADMIN may call, to observe the role a key currently carries. */
const managerOnly = (key: string) => call(key, 'GET', `/api/v1/members/organisation/${org.organisationId}/invitations`);

const failingFields = (body: { errors?: { field: string }[] }) => (body.errors ?? []).map((e) => e.field);
const roleIn = async (organisationId: string, userId: string) =>
  (
    await t.db.sql<
      { role: string }[]
    >`select role from members where organisation_id = ${organisationId} and user_id = ${userId}`
  )[0]?.role;

describe('listing members', () => {
  it('lists every member with role, user profile and the organisation', async () => {
    const editor = await seedMember(t.db.sql, org.organisationId, 'EDITOR', ['org:read']);
    const res = await listMembers(editor.key);
    expect(res.statusCode).toBe(200);
    const members = res.json().data as {
      userId: string;
      role: string;
      user: Record<string, unknown>;
      organisation: Record<string, unknown>;
    }[];
    const owner = members.find((m) => m.userId === org.ownerId);
    const mine = members.find((m) => m.userId === editor.userId);
    expect(owner).toMatchObject({
      role: 'OWNER',
      organisationId: org.organisationId,
      user: { id: org.ownerId, name: 'Acme Owner' },
    });
    expect(mine).toMatchObject({
      role: 'EDITOR',
      user: { id: editor.userId, name: 'editor member', email: `user-${editor.userId}@example.com`, isActive: true },
      organisation: { id: org.organisationId, name: 'Acme', ownerId: org.ownerId },
    });
    // The nested organisation is the plain record, not the organisation with its people again.
    expect(mine!.organisation).not.toHaveProperty('members');
    expect(mine!.organisation).not.toHaveProperty('owner');
    expect(members.map((m) => m.userId)).not.toContain(other.ownerId);
  });

  it("refuses to list another organisation's members", async () => {
    const res = await call(org.key, 'GET', membersUrl(other.organisationId));
    expect(res.statusCode).toBe(403);
    expect(res.body).not.toContain(other.ownerId);
  });
});

describe('adding an existing user', () => {
  it('adds the user as VIEWER when no role is given', async () => {
    const userId = await seedUser(t.db.sql, 'Default Role');
    const res = await addMember(org.key, { userId });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      success: true,
      data: { userId, role: 'VIEWER', organisationId: org.organisationId, user: { name: 'Default Role' } },
    });
    expect(await roleIn(org.organisationId, userId)).toBe('VIEWER');
    expect((await listMembers()).json().data.map((m: { userId: string }) => m.userId)).toContain(userId);
  });

  it('adds the user with the role given', async () => {
    const userId = await seedUser(t.db.sql);
    const res = await addMember(org.key, { userId, role: 'EDITOR' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.role).toBe('EDITOR');
    expect(await roleIn(org.organisationId, userId)).toBe('EDITOR');
  });

  it('refuses a user who is already a member, keeping their role', async () => {
    const member = await seedMember(t.db.sql, org.organisationId, 'EDITOR', ['org:read']);
    const res = await addMember(org.key, { userId: member.userId, role: 'VIEWER' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'invalid_state' });
    expect(res.json().message).toMatch(/already a member/);
    expect(await roleIn(org.organisationId, member.userId)).toBe('EDITOR');
  });

  it('refuses the owner, with or without a membership row', async () => {
    const res = await addMember(org.key, { userId: org.ownerId });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/already a member/);

    const rowless = await seedOrganisation(t.db.sql, 'Rowless');
    await t.db.sql`delete from members where organisation_id = ${rowless.organisationId}`;
    await t.app.organisationCache.changed(rowless.organisationId); // a write by hand, announced as Parley's own are
    const again = await call(rowless.key, 'POST', membersUrl(rowless.organisationId), { userId: rowless.ownerId });
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toMatch(/already a member/);
    expect(await roleIn(rowless.organisationId, rowless.ownerId)).toBeUndefined();
  });

  it('refuses an unknown or malformed userId with 400 naming userId', async () => {
    for (const userId of [newId(), 'nobody']) {
      const res = await addMember(org.key, { userId });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('validation_failed');
      expect(failingFields(res.json())).toEqual(['userId']);
    }
  });

  it('refuses an unknown role with 400 naming role', async () => {
    const userId = await seedUser(t.db.sql);
    const res = await addMember(org.key, { userId, role: 'SUPERUSER' });
    expect(res.statusCode).toBe(400);
    expect(failingFields(res.json())).toEqual(['role']);
    expect(await roleIn(org.organisationId, userId)).toBeUndefined();
  });

  it('lets only an OWNER grant the OWNER role', async () => {
    const admin = await seedMember(t.db.sql, org.organisationId, 'ADMIN', [...ORG_WRITE]);
    const byAdmin = await seedUser(t.db.sql);
    const refused = await addMember(admin.key, { userId: byAdmin, role: 'OWNER' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('role_required');
    expect(await roleIn(org.organisationId, byAdmin)).toBeUndefined();

    const viewer = await seedMember(t.db.sql, org.organisationId, 'VIEWER', ['org:read']);
    const promoted = await changeRole(admin.key, viewer.userId, 'OWNER');
    expect(promoted.statusCode).toBe(403);
    expect(await roleIn(org.organisationId, viewer.userId)).toBe('VIEWER');

    const byOwner = await seedUser(t.db.sql);
    const granted = await addMember(org.key, { userId: byOwner, role: 'OWNER' });
    expect(granted.statusCode).toBe(201);
    expect(granted.json().data.role).toBe('OWNER');
  });

  it('lets an ADMIN add members with lesser roles', async () => {
    const admin = await seedMember(t.db.sql, org.organisationId, 'ADMIN', [...ORG_WRITE]);
    const userId = await seedUser(t.db.sql);
    const res = await addMember(admin.key, { userId, role: 'ADMIN' });
    expect(res.statusCode).toBe(201);
    expect(await roleIn(org.organisationId, userId)).toBe('ADMIN');
  });
});

describe('changing a role', () => {
  it("changes a member's role", async () => {
    const member = await seedMember(t.db.sql, org.organisationId, 'VIEWER', ['org:read']);
    const res = await changeRole(org.key, member.userId, 'EDITOR');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, data: { userId: member.userId, role: 'EDITOR' } });
    expect(await roleIn(org.organisationId, member.userId)).toBe('EDITOR');
  });

  it("refuses to change the owner's role with 400", async () => {
    const res = await changeRole(org.key, org.ownerId, 'VIEWER');
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_state');
    expect(await roleIn(org.organisationId, org.ownerId)).toBe('OWNER');
  });

  it('answers 404 for a user who is not a member', async () => {
    for (const userId of [await seedUser(t.db.sql), other.ownerId, newId()]) {
      const res = await changeRole(org.key, userId, 'EDITOR');
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    expect(await roleIn(other.organisationId, other.ownerId)).toBe('OWNER');
  });

  it('refuses an unknown role with 400 naming role', async () => {
    const member = await seedMember(t.db.sql, org.organisationId, 'VIEWER', ['org:read']);
    const res = await changeRole(org.key, member.userId, 'GOD');
    expect(res.statusCode).toBe(400);
    expect(failingFields(res.json())).toEqual(['role']);
  });

  it("applies to the member's key on its very next request", async () => {
    const admin = await seedMember(t.db.sql, org.organisationId, 'ADMIN', [...ORG_WRITE]);
    expect((await managerOnly(admin.key)).statusCode).toBe(200); // the ADMIN principal is cached now

    expect((await changeRole(org.key, admin.userId, 'VIEWER')).statusCode).toBe(200);
    const demoted = await managerOnly(admin.key);
    expect(demoted.statusCode).toBe(403);
    expect(demoted.json().code).toBe('role_required');
    expect((await addMember(admin.key, { userId: await seedUser(t.db.sql) })).statusCode).toBe(403);

    expect((await changeRole(org.key, admin.userId, 'ADMIN')).statusCode).toBe(200);
    expect((await managerOnly(admin.key)).statusCode).toBe(200);
  });
});

describe('removing a member', () => {
  it('removes the member, answers data null, and their key stops working at once', async () => {
    const member = await seedMember(t.db.sql, org.organisationId, 'EDITOR', ['org:read']);
    expect((await listMembers(member.key)).statusCode).toBe(200); // cached

    const res = await removeMember(org.key, member.userId);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, data: null });
    expect(await roleIn(org.organisationId, member.userId)).toBeUndefined();
    expect((await listMembers()).json().data.map((m: { userId: string }) => m.userId)).not.toContain(member.userId);

    const after = await listMembers(member.key);
    expect(after.statusCode).toBe(401);
    expect(after.json().code).toBe('unauthorized');
  });

  it('refuses to remove the owner with 400', async () => {
    const res = await removeMember(org.key, org.ownerId);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_state');
    expect(await roleIn(org.organisationId, org.ownerId)).toBe('OWNER');
    expect((await listMembers()).statusCode).toBe(200);
  });

  it('answers 404 for a user who is not a member', async () => {
    const outsider = await seedUser(t.db.sql);
    expect((await removeMember(org.key, outsider)).statusCode).toBe(404);
    expect((await removeMember(org.key, other.ownerId)).statusCode).toBe(404);
    expect(await roleIn(other.organisationId, other.ownerId)).toBe('OWNER');
  });
});

describe('who may manage members', () => {
  it('refuses EDITOR and VIEWER keys with 403 role_required, even with org:write', async () => {
    const target = await seedMember(t.db.sql, org.organisationId, 'VIEWER', ['org:read']);
    for (const role of ['EDITOR', 'VIEWER'] as const) {
      const actor = await seedMember(t.db.sql, org.organisationId, role, [...ORG_WRITE]);
      for (const res of [
        await addMember(actor.key, { userId: await seedUser(t.db.sql) }),
        await changeRole(actor.key, target.userId, 'ADMIN'),
        await removeMember(actor.key, target.userId),
      ]) {
        expect(res.statusCode).toBe(403);
        expect(res.json()).toMatchObject({ success: false, code: 'role_required' });
      }
    }
    expect(await roleIn(org.organisationId, target.userId)).toBe('VIEWER');
  });

  it('lets an ADMIN change roles and remove members', async () => {
    const admin = await seedMember(t.db.sql, org.organisationId, 'ADMIN', [...ORG_WRITE]);
    const target = await seedMember(t.db.sql, org.organisationId, 'VIEWER', ['org:read']);
    expect((await changeRole(admin.key, target.userId, 'EDITOR')).statusCode).toBe(200);
    expect((await removeMember(admin.key, target.userId)).statusCode).toBe(200);
    expect(await roleIn(org.organisationId, target.userId)).toBeUndefined();
  });

  it('never lets an ADMIN demote or remove a member who holds OWNER', async () => {
    const admin = await seedMember(t.db.sql, org.organisationId, 'ADMIN', [...ORG_WRITE]);
    const coOwner = await seedMember(t.db.sql, org.organisationId, 'OWNER', ['org:read']);
    for (const res of [
      await changeRole(admin.key, coOwner.userId, 'VIEWER'),
      await removeMember(admin.key, coOwner.userId),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('role_required');
    }
    expect(await roleIn(org.organisationId, coOwner.userId)).toBe('OWNER');
    expect((await changeRole(org.key, coOwner.userId, 'ADMIN')).statusCode).toBe(200);
  });

  it('needs the org:write scope', async () => {
    const admin = await seedMember(t.db.sql, org.organisationId, 'ADMIN', ['org:read']);
    const res = await addMember(admin.key, { userId: await seedUser(t.db.sql) });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('insufficient_scope');
  });
});

describe('GET /members/user/:userId/memberships', () => {
  it("answers the key owner's one membership, in the key's organisation only", async () => {
    const member = await seedMember(t.db.sql, org.organisationId, 'EDITOR', ['org:read']);
    // The same person also belongs to another organisation; a key of this organisation must not reveal it.
    await t.db
      .sql`insert into members (id, organisation_id, user_id, role) values (${newId()}, ${other.organisationId}, ${member.userId}, 'ADMIN')`;
    await t.app.organisationCache.changed(other.organisationId); // a write by hand, announced as Parley's own are
    const res = await call(member.key, 'GET', `/api/v1/members/user/${member.userId}/memberships`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([
      expect.objectContaining({ userId: member.userId, organisationId: org.organisationId, role: 'EDITOR' }),
    ]);

    const otherKey = await insertApiKey(t.db.sql, {
      organisationId: other.organisationId,
      userId: member.userId,
      name: 'k',
      scopes: ['org:read'],
    });
    const there = await call(otherKey.key, 'GET', `/api/v1/members/user/${member.userId}/memberships`);
    expect(there.json().data).toEqual([
      expect.objectContaining({ organisationId: other.organisationId, role: 'ADMIN' }),
    ]);
  });

  it("answers the owner's membership", async () => {
    const res = await call(org.key, 'GET', `/api/v1/members/user/${org.ownerId}/memberships`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([
      expect.objectContaining({ userId: org.ownerId, role: 'OWNER', organisationId: org.organisationId }),
    ]);
  });

  it("answers 403 for another user's id", async () => {
    const member = await seedMember(t.db.sql, org.organisationId, 'VIEWER', ['org:read']);
    const res = await call(org.key, 'GET', `/api/v1/members/user/${member.userId}/memberships`);
    expect(res.statusCode).toBe(403);
    expect(res.json().success).toBe(false);
  });
});
