import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVITATION_VALIDITY_MS } from '../src/accounts/invitation-service.ts';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/app.ts';
import { seedMember, seedOrganisation, seedUser, type SeededOrganisation } from './support/seed.ts';

let t: TestApp;
let org: SeededOrganisation;
let ownerEmail: string;

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql, 'Acme');
  const [owner] = await t.db.sql<{ email: string }[]>`select email from users where id = ${org.ownerId}`;
  ownerEmail = owner!.email;
});
afterAll(() => t?.close());

const ORG_WRITE = ['org:read', 'org:write'] as const;
type Family = 'organisations' | 'members';
const base = (family: Family, organisationId: string) =>
  family === 'organisations'
    ? `/api/v1/organisations/${organisationId}`
    : `/api/v1/members/organisation/${organisationId}`;

let counter = 0;
const freshEmail = () => `invitee-${Date.now()}-${++counter}@example.com`;

const invite = (key: string, payload: object, family: Family = 'organisations', organisationId = org.organisationId) =>
  t.call(key, { method: 'POST', url: `${base(family, organisationId)}/invite`, payload });
const listInvitations = (key: string, family: Family = 'organisations', organisationId = org.organisationId) =>
  t.call(key, { method: 'GET', url: `${base(family, organisationId)}/invitations` });
const cancel = (key: string, id: string) =>
  t.call(key, { method: 'DELETE', url: `/api/v1/organisations/${org.organisationId}/invitations/${id}` });
const preview = (token: string) => t.call(undefined, { method: 'GET', url: `/api/v1/invitations/${token}` });
const accept = (token: string, payload?: object) =>
  t.call(undefined, { method: 'POST', url: `/api/v1/invitations/${token}/accept`, ...(payload && { payload }) });

const failingFields = (body: { errors?: { field: string }[] }) => (body.errors ?? []).map((e) => e.field);
const statusOf = async (id: string, key = org.key, organisationId = org.organisationId) =>
  ((await listInvitations(key, 'organisations', organisationId)).json().data as { id: string; status: string }[]).find(
    (i) => i.id === id,
  )?.status;
const expire = (id: string) =>
  t.db.sql`update invitations set expires_at = now() - interval '1 minute' where id = ${id}`;

describe('inviting', () => {
  for (const family of ['organisations', 'members'] as const) {
    it(`creates a PENDING invitation valid 7 days through /${family}/…/invite`, async () => {
      const email = freshEmail();
      const before = Date.now();
      const res = await invite(org.key, { email, name: 'Ada Lovelace', role: 'EDITOR' }, family);
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body).toMatchObject({ success: true, message: expect.any(String) });
      expect(body.data).toMatchObject({
        organisationId: org.organisationId,
        email,
        name: 'Ada Lovelace',
        role: 'EDITOR',
        status: 'PENDING',
        invitedById: org.ownerId,
        invitedBy: { id: org.ownerId, name: 'Acme Owner', email: ownerEmail },
      });
      expect(body.data.token).toMatch(/^[0-9a-f]{64}$/);
      const expiresAt = Date.parse(body.data.expiresAt);
      expect(expiresAt).toBeGreaterThanOrEqual(before + INVITATION_VALIDITY_MS - 1_000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + INVITATION_VALIDITY_MS + 1_000);
      expect(INVITATION_VALIDITY_MS).toBe(7 * 24 * 3600 * 1000);
    });
  }

  it('makes the invitee a VIEWER when no role is given', async () => {
    const res = await invite(org.key, { email: freshEmail(), name: 'No Role' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.role).toBe('VIEWER');
  });

  it('refuses a missing or invalid email with 400 naming email', async () => {
    for (const payload of [
      { name: 'No Mail' },
      { email: 'not-an-address', name: 'Bad Mail' },
      { email: 42, name: 'Bad Mail' },
    ]) {
      const res = await invite(org.key, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('validation_failed');
      expect(failingFields(res.json())).toEqual(['email']);
    }
  });

  it('refuses a name shorter than 2 characters with 400 naming name', async () => {
    const res = await invite(org.key, { email: freshEmail(), name: 'A' });
    expect(res.statusCode).toBe(400);
    expect(failingFields(res.json())).toEqual(['name']);
    expect(res.json().message).toContain('name');
  });

  it('refuses an address that already belongs to a member or the owner, ignoring case', async () => {
    const member = await seedMember(t.db.sql, org.organisationId, 'VIEWER', ['org:read']);
    for (const email of [`user-${member.userId}@example.com`, ownerEmail.toUpperCase()]) {
      const res = await invite(org.key, { email, name: 'Already Here' });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('invalid_state');
      expect(res.json().message).toMatch(/already.*member/);
    }
  });

  it('refuses a second invitation while one is pending for the address', async () => {
    const email = freshEmail();
    const first = await invite(org.key, { email, name: 'Twice Invited' });
    expect(first.statusCode).toBe(201);
    const second = await invite(org.key, { email: email.toUpperCase(), name: 'Twice Invited' }, 'members');
    expect(second.statusCode).toBe(400);
    expect(second.json().message).toMatch(/pending invitation/i);
    expect(await statusOf(first.json().data.id)).toBe('PENDING');
  });

  it('creates one invitation when the same address is invited twice at the same moment', async () => {
    const email = freshEmail();
    const results = await Promise.all([
      invite(org.key, { email, name: 'Double Click' }),
      invite(org.key, { email, name: 'Double Click' }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 400]);
    const rows = await t.db
      .sql`select id from invitations where organisation_id = ${org.organisationId} and email = ${email}`;
    expect(rows).toHaveLength(1);
  });

  it('lets any org:write key invite through /organisations, but only OWNER or ADMIN through /members', async () => {
    const editor = await seedMember(t.db.sql, org.organisationId, 'EDITOR', [...ORG_WRITE]);
    const refused = await invite(editor.key, { email: freshEmail(), name: 'Via Members' }, 'members');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('role_required');
    const allowed = await invite(editor.key, { email: freshEmail(), name: 'Via Organisations' }, 'organisations');
    expect(allowed.statusCode).toBe(201);
    expect(allowed.json().data.invitedBy).toMatchObject({ id: editor.userId, name: 'editor member' });

    const admin = await seedMember(t.db.sql, org.organisationId, 'ADMIN', [...ORG_WRITE]);
    expect((await invite(admin.key, { email: freshEmail(), name: 'By Admin' }, 'members')).statusCode).toBe(201);
  });

  it('lets only an OWNER invite an OWNER', async () => {
    const admin = await seedMember(t.db.sql, org.organisationId, 'ADMIN', [...ORG_WRITE]);
    const email = freshEmail();
    const refused = await invite(admin.key, { email, name: 'Future Owner', role: 'OWNER' });
    expect(refused.statusCode).toBe(403);
    expect(await t.db.sql`select id from invitations where email = ${email}`).toHaveLength(0);
    expect((await invite(org.key, { email, name: 'Future Owner', role: 'OWNER' })).statusCode).toBe(201);
  });

  it('never lets an inviter offer a role above their own', async () => {
    const editor = await seedMember(t.db.sql, org.organisationId, 'EDITOR', [...ORG_WRITE]);
    const refused = await invite(editor.key, { email: freshEmail(), name: 'Would Be Admin', role: 'ADMIN' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('role_required');
    expect((await invite(editor.key, { email: freshEmail(), name: 'Fellow Editor', role: 'EDITOR' })).statusCode).toBe(
      201,
    );
  });

  it('needs the org:write scope', async () => {
    const reader = await seedMember(t.db.sql, org.organisationId, 'ADMIN', ['org:read']);
    const res = await invite(reader.key, { email: freshEmail(), name: 'Read Only' });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('insufficient_scope');
  });
});

describe('listing invitations', () => {
  it('lists all invitations newest first under both paths', async () => {
    const fresh = await seedOrganisation(t.db.sql, 'Listing');
    const ids: string[] = [];
    for (const name of ['First', 'Second', 'Third']) {
      const res = await invite(fresh.key, { email: freshEmail(), name }, 'organisations', fresh.organisationId);
      ids.push(res.json().data.id);
    }
    for (const family of ['organisations', 'members'] as const) {
      const res = await listInvitations(fresh.key, family, fresh.organisationId);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.map((i: { id: string }) => i.id)).toEqual([...ids].reverse());
      expect(res.json().data.map((i: { name: string }) => i.name)).toEqual(['Third', 'Second', 'First']);
    }
  });

  it('needs OWNER or ADMIN under /members but not under /organisations', async () => {
    const viewer = await seedMember(t.db.sql, org.organisationId, 'VIEWER', ['org:read']);
    expect((await listInvitations(viewer.key, 'members')).statusCode).toBe(403);
    expect((await listInvitations(viewer.key, 'organisations')).statusCode).toBe(200);
  });
});

describe('re-opening an invitation', () => {
  it('shows an expired invitation as EXPIRED, and inviting again re-opens it with a new token and expiry', async () => {
    const email = freshEmail();
    const created = (await invite(org.key, { email, name: 'Slow Reader', role: 'VIEWER' })).json().data;
    await expire(created.id);
    expect(await statusOf(created.id)).toBe('EXPIRED');
    expect((await preview(created.token)).json().data.status).toBe('EXPIRED');

    const res = await invite(org.key, { email, name: 'Slow Reader', role: 'EDITOR' });
    expect(res.statusCode).toBe(201);
    const reopened = res.json().data;
    expect(reopened).toMatchObject({ id: created.id, status: 'PENDING', role: 'EDITOR' });
    expect(reopened.token).toMatch(/^[0-9a-f]{64}$/);
    expect(reopened.token).not.toBe(created.token);
    expect(Date.parse(reopened.expiresAt)).toBeGreaterThan(Date.now() + INVITATION_VALIDITY_MS - 60_000);
    expect(await statusOf(created.id)).toBe('PENDING');
    // The link of the expired mail is dead; only the new one works.
    expect((await preview(created.token)).statusCode).toBe(404);
    expect((await preview(reopened.token)).json().data.status).toBe('PENDING');
  });

  it('re-opens a cancelled invitation', async () => {
    const email = freshEmail();
    const created = (await invite(org.key, { email, name: 'Changed Mind' })).json().data;
    const cancelled = await cancel(org.key, created.id);
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json().data).toMatchObject({ id: created.id, status: 'CANCELLED' });
    expect(await statusOf(created.id)).toBe('CANCELLED');
    expect((await accept(created.token)).statusCode).toBe(400);

    const res = await invite(org.key, { email, name: 'Changed Mind' }, 'members');
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ id: created.id, status: 'PENDING' });
    expect(res.json().data.token).not.toBe(created.token);
  });

  it('cancels only pending invitations of the own organisation, by OWNER or ADMIN', async () => {
    const created = (await invite(org.key, { email: freshEmail(), name: 'Cancel Me' })).json().data;
    const editor = await seedMember(t.db.sql, org.organisationId, 'EDITOR', [...ORG_WRITE]);
    expect((await cancel(editor.key, created.id)).statusCode).toBe(403);
    expect((await cancel(org.key, created.id)).statusCode).toBe(200);
    expect((await cancel(org.key, created.id)).statusCode).toBe(400);

    const stranger = await seedOrganisation(t.db.sql, 'Stranger');
    const theirs = (
      await invite(stranger.key, { email: freshEmail(), name: 'Not Yours' }, 'organisations', stranger.organisationId)
    ).json().data;
    expect((await cancel(org.key, theirs.id)).statusCode).toBe(404);
    expect(await statusOf(theirs.id, stranger.key, stranger.organisationId)).toBe('PENDING');
  });
});

describe('the invitee', () => {
  it('previews the invitation by its token without an API key', async () => {
    const created = (await invite(org.key, { email: freshEmail(), name: 'Curious Invitee', role: 'ADMIN' })).json()
      .data;
    const res = await preview(created.token);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      organisationName: 'Acme',
      email: created.email,
      name: 'Curious Invitee',
      role: 'ADMIN',
      status: 'PENDING',
      expiresAt: created.expiresAt,
      invitedBy: { name: 'Acme Owner' },
    });
  });

  it('accepts with a new address: the user is created and joins with the invited role', async () => {
    const email = freshEmail();
    const created = (await invite(org.key, { email, name: 'Grace Hopper', role: 'EDITOR' })).json().data;
    const res = await accept(created.token, { name: 'Grace B. Hopper' });
    expect(res.statusCode).toBe(200);
    const member = res.json().data;
    expect(member).toMatchObject({
      organisationId: org.organisationId,
      role: 'EDITOR',
      user: { email, name: 'Grace B. Hopper' },
    });

    const users = await t.db.sql<{ id: string }[]>`select id from users where email = ${email}`;
    expect(users.map((u) => u.id)).toEqual([member.userId]);
    const members = (
      await t.call(org.key, { method: 'GET', url: `/api/v1/members/organisation/${org.organisationId}/members` })
    ).json().data;
    expect(members).toContainEqual(expect.objectContaining({ userId: member.userId, role: 'EDITOR' }));
    expect(await statusOf(created.id)).toBe('ACCEPTED');
    expect((await preview(created.token)).json().data.status).toBe('ACCEPTED');
  });

  it("takes the invitation's name for a new user when none is given", async () => {
    const email = freshEmail();
    const created = (await invite(org.key, { email, name: 'Named In Invite' })).json().data;
    const res = await accept(created.token);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ role: 'VIEWER', user: { email, name: 'Named In Invite' } });
  });

  it('accepts with an existing account: no second user, the existing one joins', async () => {
    const userId = await seedUser(t.db.sql, 'Existing Person');
    const email = `user-${userId}@example.com`;
    const created = (
      await invite(org.key, { email: email.toUpperCase(), name: 'Existing Person', role: 'ADMIN' })
    ).json().data;
    const res = await accept(created.token, { name: 'Someone Else' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ userId, role: 'ADMIN', user: { name: 'Existing Person' } });
    expect(await t.db.sql`select id from users where lower(email) = ${email}`).toHaveLength(1);
  });

  it('cannot accept twice', async () => {
    const created = (await invite(org.key, { email: freshEmail(), name: 'Eager Clicker' })).json().data;
    expect((await accept(created.token)).statusCode).toBe(200);
    const again = await accept(created.token);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ success: false, code: 'invalid_state' });
    expect(again.json().message).toMatch(/ACCEPTED/);
  });

  it('cannot accept an expired invitation, and does not join', async () => {
    const email = freshEmail();
    const created = (await invite(org.key, { email, name: 'Too Late' })).json().data;
    await expire(created.id);
    const res = await accept(created.token);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/EXPIRED/);
    expect(await t.db.sql`select id from users where email = ${email}`).toHaveLength(0);
    expect(await statusOf(created.id)).toBe('EXPIRED');
  });

  it('gets 404 for an unknown token and 400 naming token for a malformed one', async () => {
    const unknown = 'ab'.repeat(32);
    expect((await preview(unknown)).statusCode).toBe(404);
    expect((await accept(unknown)).statusCode).toBe(404);
    for (const res of [await preview('not-a-token'), await accept('ABC'), await accept('ab'.repeat(31))]) {
      expect(res.statusCode).toBe(400);
      expect(failingFields(res.json())).toEqual(['token']);
    }
  });

  it('opens the page the e-mail links to', async () => {
    const created = (await invite(org.key, { email: freshEmail(), name: 'Page Reader' })).json().data;
    const res = await t.call(undefined, { method: 'GET', url: `/invite/${created.token}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<!doctype html>');
    expect(res.body).toContain(JSON.stringify(created.token));
    expect(PUBLIC_URL).toMatch(/^https?:\/\//);
    expect((await t.call(undefined, { method: 'GET', url: '/invite/<script>' })).statusCode).toBe(400);
  });
});
