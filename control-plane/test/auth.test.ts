import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_SCOPES } from '../src/auth/scopes.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedAgent, seedMember, seedOrganisation, type SeededOrganisation } from './support/seed.ts';

let t: TestApp;
let org: SeededOrganisation;

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql);
});
afterAll(() => t?.close());

const me = (key: string | undefined, headers: Record<string, string> = {}) =>
  t.call(key, { method: 'GET', url: '/api/v1/api-keys/me', headers });

describe('API key authentication', () => {
  it('tells who the key belongs to', async () => {
    const res = await me(org.key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.data).toMatchObject({
      organisationId: org.organisationId,
      userId: org.ownerId,
      role: 'OWNER',
      keyId: org.keyId,
    });
    expect(body.data.scopes).toEqual([...CUSTOMER_SCOPES]);
  });

  it('answers 401 without a key, with a malformed one, and with an unknown one', async () => {
    for (const res of [
      await me(undefined),
      await me(undefined, { authorization: 'Basic abc' }),
      await me('not-a-key'),
      await me('parley_prod_abcdefgh_00000000000000000000000000000000'),
    ]) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ success: false, code: 'unauthorized' });
      expect(res.json().message).toMatch(/API key/);
    }
  });

  it('refuses a key whose secret part is wrong even though its prefix exists', async () => {
    const forged =
      `${org.key.slice(0, -4)}0000` === org.key ? `${org.key.slice(0, -4)}1111` : `${org.key.slice(0, -4)}0000`;
    expect((await me(org.key)).statusCode).toBe(200); // the genuine key is cached now
    expect((await me(forged)).statusCode).toBe(401);
  });

  it('stops a revoked key at once', async () => {
    const member = await seedMember(t.db.sql, org.organisationId, 'ADMIN', ['org:read']);
    expect((await me(member.key)).statusCode).toBe(200);
    await t.db.sql`update api_keys set revoked_at = now() where id = ${member.id}`;
    await t.keys.revoke({ keyId: member.id });
    expect((await me(member.key)).statusCode).toBe(401);
  });

  it('stops the keys of a deactivated user and of a user removed from the organisation', async () => {
    const deactivated = await seedMember(t.db.sql, org.organisationId, 'EDITOR', ['org:read']);
    const removed = await seedMember(t.db.sql, org.organisationId, 'VIEWER', ['org:read']);
    expect((await me(deactivated.key)).statusCode).toBe(200);
    expect((await me(removed.key)).statusCode).toBe(200);

    await t.db.sql`update users set is_active = false where id = ${deactivated.userId}`;
    await t.keys.revoke({ userId: deactivated.userId });
    expect((await me(deactivated.key)).statusCode).toBe(401);

    const res = await t.call(org.key, {
      method: 'DELETE',
      url: `/api/v1/members/organisation/${org.organisationId}/members/${removed.userId}`,
    });
    expect(res.statusCode).toBe(200);
    expect((await me(removed.key)).statusCode).toBe(401);
  });

  it('refuses a key lacking the route scope with 403 naming the scope', async () => {
    const member = await seedMember(t.db.sql, org.organisationId, 'ADMIN', ['agents:read']);
    const res = await t.call(member.key, { method: 'GET', url: '/api/v1/organisations' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ success: false, code: 'insufficient_scope' });
    expect(res.json().message).toContain('org:read');
  });

  it('refuses a key whose owner lacks the role the route needs', async () => {
    const editor = await seedMember(t.db.sql, org.organisationId, 'EDITOR', ['org:read', 'org:write']);
    const res = await t.call(editor.key, {
      method: 'GET',
      url: `/api/v1/members/organisation/${org.organisationId}/invitations`,
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('role_required');
    const allowed = await t.call(editor.key, {
      method: 'GET',
      url: `/api/v1/organisations/${org.organisationId}/invitations`,
    });
    expect(allowed.statusCode).toBe(200);
  });

  it('accepts widget tokens on widget routes only', async () => {
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'CHAT');
    const minted = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/api-keys/widget',
      payload: { organisation_id: org.organisationId, agent_id: agentId },
    });
    expect(minted.statusCode).toBe(201);
    const widgetKey = minted.json().data.key as string;
    const res = await t.call(widgetKey, { method: 'GET', url: '/api/v1/organisations' });
    expect(res.statusCode).toBe(403);
  });

  it('records when a key was last used', async () => {
    const member = await seedMember(t.db.sql, org.organisationId, 'VIEWER', ['org:read']);
    expect((await me(member.key)).statusCode).toBe(200);
    await expect
      .poll(async () => {
        const [row] = await t.db.sql<
          { last_used_at: Date | null }[]
        >`select last_used_at from api_keys where id = ${member.id}`;
        return row?.last_used_at;
      })
      .toBeInstanceOf(Date);
  });
});
