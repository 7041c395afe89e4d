import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedAgent, seedMember, seedOrganisation, type SeededOrganisation } from './support/seed.ts';

let t: TestApp;
let org: SeededOrganisation;

beforeAll(async () => {
  t = await startTestApp({ rateLimits: { widget: 1000 } });
  org = await seedOrganisation(t.db.sql);
});
afterAll(() => t?.close());

const mint = (key: string, body: Record<string, unknown>) =>
  t.call(key, { method: 'POST', url: '/api/v1/api-keys/widget', payload: body });
const list = (key: string, agentId: string) =>
  t.call(key, {
    method: 'GET',
    url: '/api/v1/api-keys/widget',
    query: { organisation_id: org.organisationId, agent_id: agentId },
  });
const revoke = (key: string, agentId: string, keyId: string) =>
  t.call(key, {
    method: 'POST',
    url: '/api/v1/api-keys/widget/revoke',
    payload: { organisation_id: org.organisationId, agent_id: agentId, key_id: keyId },
  });

describe('widget tokens', () => {
  it('mints a widget:bootstrap token bound to a chat agent, shown once, listed by fingerprint', async () => {
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'CHAT');
    const res = await mint(org.key, { organisation_id: org.organisationId, agent_id: agentId, name: 'Homepage' });
    expect(res.statusCode).toBe(201);
    const token = res.json().data;
    expect(token).toMatchObject({
      name: 'Homepage',
      scopes: ['widget:bootstrap'],
      agent_id: agentId,
      organisation_id: org.organisationId,
      revoked_at: null,
    });
    expect(token.key).toMatch(/^parley_prod_[a-z0-9]{8}_[0-9a-f]{32}$/);
    expect(token.key_prefix).toBe(token.key.split('_')[2]);
    expect(token.last4).toBe(token.key.slice(-4));

    const listed = await list(org.key, agentId);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.total).toBe(1);
    expect(listed.json().data.keys[0]).toMatchObject({ id: token.id, key_prefix: token.key_prefix });
    expect(listed.body).not.toContain(token.key);
  });

  it('names the default token after the agent', async () => {
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'CHAT');
    const res = await mint(org.key, { organisation_id: org.organisationId, agent_id: agentId });
    expect(res.json().data.name).toBe(`widget-${agentId}`);
  });

  it('allows three active tokens per agent, then 409 until one is revoked', async () => {
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'CHAT');
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await mint(org.key, { organisation_id: org.organisationId, agent_id: agentId });
      expect(res.statusCode).toBe(201);
      ids.push(res.json().data.id);
    }
    const fourth = await mint(org.key, { organisation_id: org.organisationId, agent_id: agentId });
    expect(fourth.statusCode).toBe(409);
    expect(fourth.json().code).toBe('limit_reached');
    expect((await revoke(org.key, agentId, ids[0]!)).statusCode).toBe(200);
    expect((await mint(org.key, { organisation_id: org.organisationId, agent_id: agentId })).statusCode).toBe(201);
  });

  it('holds the limit of three under concurrent mints', async () => {
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'CHAT');
    const results = await Promise.all(
      Array.from({ length: 6 }, () => mint(org.key, { organisation_id: org.organisationId, agent_id: agentId })),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(3);
    expect(results.filter((r) => r.statusCode === 409)).toHaveLength(3);
  });

  it('refuses voice agents, unknown agents, bad names and scopes', async () => {
    const voice = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    const chat = await seedAgent(t.db.sql, org.organisationId, 'CHAT');
    const notChat = await mint(org.key, { organisation_id: org.organisationId, agent_id: voice });
    expect(notChat.statusCode).toBe(400);
    expect(notChat.json().errors).toEqual([{ field: 'agent_id', message: 'must be a CHAT agent' }]);
    expect((await mint(org.key, { organisation_id: org.organisationId, agent_id: org.ownerId })).statusCode).toBe(404);
    expect((await mint(org.key, { organisation_id: org.organisationId, agent_id: chat, name: 'ab' })).statusCode).toBe(
      400,
    );
    expect(
      (await mint(org.key, { organisation_id: org.organisationId, agent_id: chat, name: 'x'.repeat(256) })).statusCode,
    ).toBe(400);
    expect((await mint(org.key, { organisation_id: org.organisationId })).json().errors).toEqual([
      { field: 'agent_id', message: 'is required' },
    ]);
  });

  it('lets only an OWNER or ADMIN mint, while any member role may revoke', async () => {
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'CHAT');
    const editor = await seedMember(t.db.sql, org.organisationId, 'EDITOR', ['agents:read', 'agents:write']);
    const denied = await mint(editor.key, { organisation_id: org.organisationId, agent_id: agentId });
    expect(denied.statusCode).toBe(403);
    const minted = await mint(org.key, { organisation_id: org.organisationId, agent_id: agentId });
    const res = await revoke(editor.key, agentId, minted.json().data.id);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.revoked_at).toEqual(expect.any(String));
  });

  it('revokes once: the token stops working, a second revoke is 400, a management key is never revoked here', async () => {
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'CHAT');
    const minted = (await mint(org.key, { organisation_id: org.organisationId, agent_id: agentId })).json().data;
    expect((await revoke(org.key, agentId, minted.id)).statusCode).toBe(200);
    expect((await list(org.key, agentId)).json().data.total).toBe(0);
    const again = await revoke(org.key, agentId, minted.id);
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toMatch(/already revoked/);
    expect((await revoke(org.key, agentId, org.keyId)).statusCode).toBe(404);
    const otherAgent = await seedAgent(t.db.sql, org.organisationId, 'CHAT');
    const other = (await mint(org.key, { organisation_id: org.organisationId, agent_id: otherAgent })).json().data;
    expect((await revoke(org.key, agentId, other.id)).statusCode).toBe(404);
  });

  it('rate limits the widget token routes at the configured figure with 429 {success:false, message}', async () => {
    const limited = await startTestApp({ db: t.db, rateLimits: { widget: 3 } });
    try {
      const agentId = await seedAgent(t.db.sql, org.organisationId, 'CHAT');
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        statuses.push(
          (
            await limited.call(org.key, {
              method: 'GET',
              url: '/api/v1/api-keys/widget',
              query: { organisation_id: org.organisationId, agent_id: agentId },
            })
          ).statusCode,
        );
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      const res = await limited.call(org.key, {
        method: 'GET',
        url: '/api/v1/api-keys/widget',
        query: { organisation_id: org.organisationId, agent_id: agentId },
      });
      expect(res.json()).toMatchObject({ success: false, message: expect.stringMatching(/Rate limit exceeded/) });
      // The limit is per key: another key of the same organisation is not affected.
      const other = await seedMember(t.db.sql, org.organisationId, 'ADMIN', ['agents:read']);
      expect(
        (
          await limited.call(other.key, {
            method: 'GET',
            url: '/api/v1/api-keys/widget',
            query: { organisation_id: org.organisationId, agent_id: agentId },
          })
        ).statusCode,
      ).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
