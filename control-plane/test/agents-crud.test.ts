/** Agents: create, read, update, list, delete, duplicate, and the hooks that hear about them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDeletedEvent, AgentSavedEvent } from '../src/routes/v1/agents/index.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedAgent, seedMember, seedOrganisation, type SeededOrganisation } from './support/seed.ts';

let t: TestApp;
let org: SeededOrganisation;
let other: SeededOrganisation;
const saved: AgentSavedEvent[] = [];
const deleted: AgentDeletedEvent[] = [];

beforeAll(async () => {
  t = await startTestApp({
    agentListeners: {
      onAgentSaved: (event) => {
        saved.push(event);
      },
      onAgentDeleted: (event) => {
        deleted.push(event);
      },
    },
  });
  org = await seedOrganisation(t.db.sql, 'Sunrise');
  other = await seedOrganisation(t.db.sql, 'Other');
});
afterAll(() => t?.close());

const agent = {
  name: 'Reception',
  agentIdentity: 'You are the receptionist of Sunrise Dental.',
  agentTask: 'Answer questions about opening hours and book appointments.',
  greetingMessage: 'Hello, Sunrise Dental, how can I help?',
};
const create = (key: string, body: Record<string, unknown>) =>
  t.call(key, { method: 'POST', url: '/api/v1/voice/agents', payload: body });
const get = (key: string, id: string) => t.call(key, { method: 'GET', url: `/api/v1/voice/agents/${id}` });
const update = (key: string, id: string, body: Record<string, unknown>) =>
  t.call(key, { method: 'PUT', url: `/api/v1/voice/agents/${id}`, payload: body });
const remove = (key: string, id: string) => t.call(key, { method: 'DELETE', url: `/api/v1/voice/agents/${id}` });
const duplicate = (key: string, id: string, body?: Record<string, unknown>) =>
  t.call(key, { method: 'POST', url: `/api/v1/voice/agents/${id}/duplicate`, ...(body ? { payload: body } : {}) });
const list = (key: string, query: Record<string, string> = {}) =>
  t.call(key, { method: 'GET', url: '/api/v1/voice/agents', query });

async function created(body: Record<string, unknown> = {}, key = org.key) {
  const res = await create(key, { ...agent, ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

describe('creating and reading agents', () => {
  it('creates a voice agent with defaults, the creator, version 1 and no calls, and reads it back', async () => {
    const res = await create(org.key, agent);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ success: true, message: 'Agent created' });
    const data = res.json().data;
    const [owner] = await t.db.sql<
      { name: string; email: string }[]
    >`select name, email from users where id = ${org.ownerId}`;
    expect(data).toMatchObject({
      ...agent,
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      organisationId: org.organisationId,
      createdById: org.ownerId,
      createdBy: { id: org.ownerId, name: owner!.name, email: owner!.email },
      agentType: 'VOICE',
      builderMode: 'PROMPT',
      description: '',
      language: 'en-US',
      voiceSpeed: 1,
      isActive: true,
      version: 1,
      totalCalls: 0,
      lastUsed: null,
      webCallEnabled: false,
      customVariables: {},
      functionTools: {},
      contextMemory: {},
      handoverData: {},
      flowDefinition: null,
      resultsConfig: null,
      callingNumber: null,
      telephonyProvider: null,
      callbackAgentId: null,
      sipConfigurations: [],
    });
    expect(Date.parse(data.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    const read = await get(org.key, data.id);
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toEqual(data);
  });

  it('stores and returns every field of the Agent resource', async () => {
    const callback = await created({ name: 'Caller' });
    const every = {
      name: 'Web helper',
      description: 'Answers visitors on the website',
      agentType: 'CHAT',
      callbackAgentId: callback.id,
      agentIdentity: 'You are Ada, the website assistant.',
      agentPersonality: 'Warm and brief.',
      agentTask: 'Help visitors choose a plan.',
      pronunciation: 'Parley is said PAR-lee.',
      languageAccent: 'British English',
      greetingMessage: 'Hi {{name}}!',
      closingMessage: 'Goodbye.',
      escalationMessage: 'Let me find a colleague.',
      voicemailMessage: 'Please call us back.',
      language: 'en-GB',
      gender: 'FEMALE',
      voiceProvider: 'flite',
      voiceId: 'kal16',
      voiceSpeed: 1.25,
      sttMode: 'GLOBAL',
      supportedLanguageGroup: 'English',
      languageSelectionMode: 'language',
      supportedLanguage: 'en-GB',
      timezone: 'Europe/London',
      backgroundNoise: 'office',
      backgroundNoiseVolume: 0.2,
      customVariables: { name: 'there', plan: { tier: 'pro' } },
      contextMemory: { custom_instructions: 'Remember returning visitors.' },
      handoverData: { handover_enabled: true, handover_number: '+442079460018' },
      webCallEnabled: true,
      resultsConfig: {
        outcomes: [{ key: 'signed_up', label: 'Signed up' }],
        fields: [{ key: 'plan', label: 'Plan', type: 'choice', choices: ['basic', 'pro'] }],
      },
      callingNumber: '+442079460018',
      telephonyProvider: 'carrier-b',
    };
    const data = await created(every);
    expect(data).toMatchObject(every);
    expect((await get(org.key, data.id)).json().data).toMatchObject(every);
  });

  it('records as creator the user whose key made the agent', async () => {
    const member = await seedMember(t.db.sql, org.organisationId, 'EDITOR', ['agents:read', 'agents:write']);
    const data = await created({}, member.key);
    expect(data.createdById).toBe(member.userId);
    expect(data.createdBy).toMatchObject({ id: member.userId, name: 'editor member' });
  });

  it('gives 404 for an unknown agent and for another organisation’s agent, 403 for another organisationId', async () => {
    const mine = await created();
    expect((await get(org.key, other.organisationId)).statusCode).toBe(404);
    const foreign = await get(other.key, mine.id);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).not.toContain(mine.id);
    const res = await create(org.key, { ...agent, organisationId: other.organisationId });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ success: false, code: 'foreign_organisation' });
  });

  it('answers errors with `error` beside `message`, as the spec has the agent routes do', async () => {
    const res = await create(org.key, { name: 'No identity' });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ success: false, code: 'validation_failed' });
    expect(body.error).toBe(body.message);
    expect((await get(org.key, org.organisationId)).json().error).toBe('Agent not found');
  });
});

describe('updating agents', () => {
  it('changes only the fields sent, and counts every change in version', async () => {
    const data = await created({ agentPersonality: 'Calm' });
    const first = await update(org.key, data.id, { name: 'Front desk' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ success: true, message: 'Agent updated' });
    expect(first.json().data).toMatchObject({ ...agent, name: 'Front desk', agentPersonality: 'Calm', version: 2 });
    expect(Date.parse(first.json().data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(data.updatedAt));
    const second = await update(org.key, data.id, { agentPersonality: 'Cheerful', voiceSpeed: 0.9 });
    expect(second.json().data).toMatchObject({
      name: 'Front desk',
      agentPersonality: 'Cheerful',
      voiceSpeed: 0.9,
      version: 3,
    });
  });

  it('does not count an update that changes nothing', async () => {
    const data = await created();
    const res = await update(org.key, data.id, { name: agent.name, agentTask: agent.agentTask });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.version).toBe(1);
    expect(res.json().data.updatedAt).toBe(data.updatedAt);
  });

  it('pauses an agent with isActive false and resumes it with true; isActive is not a create field', async () => {
    const data = await created();
    const paused = await update(org.key, data.id, { isActive: false });
    expect(paused.json().data).toMatchObject({ isActive: false, version: 2 });
    expect((await get(org.key, data.id)).json().data.isActive).toBe(false);
    expect((await update(org.key, data.id, { isActive: true })).json().data).toMatchObject({
      isActive: true,
      version: 3,
    });
    const refused = await create(org.key, { ...agent, isActive: false });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual([{ field: 'isActive', message: 'is not an accepted field' }]);
  });

  it('serialises concurrent edits: each one is counted', async () => {
    const data = await created();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => update(org.key, data.id, { description: `edit ${i}` })),
    );
    expect(results.every((r) => r.statusCode === 200)).toBe(true);
    expect((await get(org.key, data.id)).json().data.version).toBe(6);
  });

  it('lets another organisation change nothing', async () => {
    const data = await created();
    const res = await update(other.key, data.id, { name: 'Taken over' });
    expect(res.statusCode).toBe(404);
    expect((await get(org.key, data.id)).json().data).toMatchObject({ name: agent.name, version: 1 });
  });
});

describe('listing agents', () => {
  let lister: SeededOrganisation;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    lister = await seedOrganisation(t.db.sql, 'Lister');
    for (const [name, extra] of [
      ['Alpha sales', { description: 'Outbound 100% of the time' }],
      ['Beta support', { agentType: 'CHAT', greetingMessage: null }],
      ['Gamma survey', {}],
      ['Delta chat', { agentType: 'CHAT', description: 'Helps with SALES questions' }],
    ] as const) {
      ids[name] = (await created({ name, ...extra }, lister.key)).id;
    }
    await update(lister.key, ids['Gamma survey']!, { isActive: false });
    await created({ name: 'Not mine' }, other.key);
  });

  const names = (res: { json(): { data: { items: { name: string }[] } } }) => res.json().data.items.map((a) => a.name);

  it('lists the organisation’s agents newest first with the page figures', async () => {
    const res = await list(lister.key);
    expect(res.statusCode, res.body).toBe(200);
    expect(names(res)).toEqual(['Delta chat', 'Gamma survey', 'Beta support', 'Alpha sales']);
    expect(res.json().data).toMatchObject({ total: 4, page: 1, limit: 20, totalPages: 1 });
    expect(res.json().data.items[0]).toMatchObject({ organisationId: lister.organisationId, version: 1 });
  });

  it('pages', async () => {
    const first = await list(lister.key, { limit: '3' });
    expect(names(first)).toEqual(['Delta chat', 'Gamma survey', 'Beta support']);
    expect(first.json().data).toMatchObject({ total: 4, page: 1, limit: 3, totalPages: 2 });
    const second = await list(lister.key, { limit: '3', page: '2' });
    expect(names(second)).toEqual(['Alpha sales']);
    expect(names(await list(lister.key, { limit: '3', page: '3' }))).toEqual([]);
  });

  it('filters by agentType, isActive and search (case-insensitive, name and description, wildcards literal)', async () => {
    expect(names(await list(lister.key, { agentType: 'CHAT' }))).toEqual(['Delta chat', 'Beta support']);
    expect(names(await list(lister.key, { isActive: 'false' }))).toEqual(['Gamma survey']);
    expect(names(await list(lister.key, { isActive: 'true', agentType: 'VOICE' }))).toEqual(['Alpha sales']);
    expect(names(await list(lister.key, { search: 'sales' }))).toEqual(['Delta chat', 'Alpha sales']);
    expect(names(await list(lister.key, { search: '100%' }))).toEqual(['Alpha sales']);
    expect(names(await list(lister.key, { search: '%' }))).toEqual(['Alpha sales']);
    expect((await list(lister.key, { search: 'sales' })).json().data.total).toBe(2);
  });

  it('refuses bad filters and page sizes with 400 naming them', async () => {
    const res = await list(lister.key, { agentType: 'ROBOT', limit: '101', page: '0' });
    expect(res.statusCode).toBe(400);
    expect(
      res
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['agentType', 'limit', 'page']);
  });
});

describe('deleting agents', () => {
  it('deletes: 404 everywhere afterwards, never listed nor counted', async () => {
    const data = await created({ name: 'Doomed' });
    const res = await remove(org.key, data.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ success: true, data: { deleted: true, id: data.id } });
    expect((await get(org.key, data.id)).statusCode).toBe(404);
    expect((await update(org.key, data.id, { name: 'Back' })).statusCode).toBe(404);
    expect((await remove(org.key, data.id)).statusCode).toBe(404);
    expect((await duplicate(org.key, data.id)).statusCode).toBe(404);
    expect((await list(org.key, { search: 'Doomed' })).json().data).toMatchObject({ items: [], total: 0 });
    const budget = await t.call(org.key, {
      method: 'GET',
      url: '/api/v1/voice/agent-instruction-budget',
      query: { agentId: data.id },
    });
    expect(budget.statusCode).toBe(404);
    const asCallback = await create(org.key, { ...agent, agentType: 'CHAT', callbackAgentId: data.id });
    expect(asCallback.statusCode).toBe(400);
    expect(asCallback.json().errors).toEqual([
      { field: 'callbackAgentId', message: 'is not an agent of this organisation' },
    ]);
  });

  it('revokes the agent’s widget tokens and clears it as chat agents’ callback agent', async () => {
    const voice = await created({ name: 'Callback voice' });
    const chat = await created({ name: 'Chat with callback', agentType: 'CHAT', callbackAgentId: voice.id });
    const token = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/api-keys/widget',
      payload: { organisation_id: org.organisationId, agent_id: chat.id },
    });
    expect(token.statusCode).toBe(201);
    expect((await remove(org.key, voice.id)).statusCode).toBe(200);
    expect((await get(org.key, chat.id)).json().data).toMatchObject({ callbackAgentId: null, version: 2 });
    expect((await remove(org.key, chat.id)).statusCode).toBe(200);
    const [key] = await t.db.sql<
      { revoked_at: Date | null }[]
    >`select revoked_at from api_keys where id = ${token.json().data.id}`;
    expect(key!.revoked_at).not.toBeNull();
    expect(await t.keys.authenticate(token.json().data.key)).toBeUndefined();
  });

  it('another organisation cannot delete', async () => {
    const data = await created();
    expect((await remove(other.key, data.id)).statusCode).toBe(404);
    expect((await get(org.key, data.id)).statusCode).toBe(200);
  });
});

describe('duplicating agents', () => {
  it('copies every setting into a new agent at version 1, made by the caller, named "(copy)"', async () => {
    const source = await created({
      name: 'Original',
      customVariables: { city: 'Leeds' },
      handoverData: { handover_number: '+441130000000' },
      resultsConfig: { outcomes: [{ key: 'booked', label: 'Booked' }], fields: [] },
      functionTools: {
        lookup: { description: 'Look up a booking', url: 'https://example.com/lookup', bearerToken: 'tok-123' },
      },
      callingNumber: '+441130000001',
      telephonyProvider: 'carrier-b',
    });
    await update(org.key, source.id, { agentPersonality: 'Brisk' });
    const member = await seedMember(t.db.sql, org.organisationId, 'EDITOR', ['agents:read', 'agents:write']);
    const res = await duplicate(member.key, source.id);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().message).toBe('Agent duplicated');
    const copy = res.json().data;
    const {
      id: _a,
      name: _b,
      createdAt: _c,
      updatedAt: _d,
      version: _e,
      createdById: _f,
      createdBy: _g,
      ...settings
    } = (await get(org.key, source.id)).json().data;
    expect(copy).toMatchObject({
      ...settings,
      name: 'Original (copy)',
      version: 1,
      createdById: member.userId,
      totalCalls: 0,
      lastUsed: null,
    });
    expect(copy.id).not.toBe(source.id);
    const decrypted = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/voice/agents/${copy.id}`,
      query: { includeTools: 'decrypted' },
    });
    expect(decrypted.json().data.functionTools.lookup.bearerToken).toBe('tok-123');
    expect((await get(org.key, source.id)).json().data).toMatchObject({ name: 'Original', version: 2 });
  });

  it('takes a name, refuses unknown fields, and does not copy widget tokens', async () => {
    const source = await created({ agentType: 'CHAT', greetingMessage: null });
    await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/api-keys/widget',
      payload: { organisation_id: org.organisationId, agent_id: source.id },
    });
    const res = await duplicate(org.key, source.id, { name: 'Second site' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.name).toBe('Second site');
    const tokens = await t.call(org.key, {
      method: 'GET',
      url: '/api/v1/api-keys/widget',
      query: { organisation_id: org.organisationId, agent_id: res.json().data.id },
    });
    expect(tokens.json().data.total).toBe(0);
    const bad = await duplicate(org.key, source.id, { name: 'x', includeTokens: true });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([{ field: 'includeTokens', message: 'is not an accepted field' }]);
  });

  it('copies an agent made before today’s rules as it is (a legacy agent without a greeting)', async () => {
    const legacy = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    const res = await duplicate(org.key, legacy);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ name: 'VOICE agent (copy)', greetingMessage: null });
  });
});

describe('agent listeners (the greeting audio cache hook)', () => {
  it('hears every save after it is committed, with the changed fields, and every delete', async () => {
    saved.length = 0;
    deleted.length = 0;
    const data = await created();
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({ kind: 'created', agent: { id: data.id, greetingMessage: agent.greetingMessage } });
    expect(saved[0]!.changedFields).toContain('greetingMessage');
    await update(org.key, data.id, { greetingMessage: 'Good morning!' });
    expect(saved[1]).toMatchObject({
      kind: 'updated',
      agent: { id: data.id, greetingMessage: 'Good morning!', version: 2 },
      changedFields: ['greetingMessage'],
    });
    await update(org.key, data.id, { greetingMessage: 'Good morning!' });
    expect(saved[2]).toMatchObject({ kind: 'updated', changedFields: [] });
    const copy = (await duplicate(org.key, data.id)).json().data;
    expect(saved[3]).toMatchObject({ kind: 'duplicated', agent: { id: copy.id } });
    await remove(org.key, data.id);
    expect(deleted).toEqual([{ agentId: data.id, organisationId: org.organisationId }]);
  });

  it('a failing listener never fails the request', async () => {
    const failing = await startTestApp({
      db: t.db,
      agentListeners: {
        onAgentSaved: () => {
          throw new Error('cache down');
        },
        onAgentDeleted: async () => {
          throw new Error('cache down');
        },
      },
    });
    try {
      const res = await failing.call(org.key, { method: 'POST', url: '/api/v1/voice/agents', payload: agent });
      expect(res.statusCode).toBe(201);
      expect(
        (await failing.call(org.key, { method: 'DELETE', url: `/api/v1/voice/agents/${res.json().data.id}` }))
          .statusCode,
      ).toBe(200);
    } finally {
      await failing.close();
    }
  });
});

describe('OpenAPI document', () => {
  it('documents every agent route with a summary, the Agent and FlowDefinition schemas, and flowErrors', async () => {
    const doc = (await t.call(undefined, { method: 'GET', url: '/api/v1/openapi.json' })).json();
    const routes = [
      ['post', '/api/v1/voice/agents'],
      ['get', '/api/v1/voice/agents'],
      ['get', '/api/v1/voice/agents/{id}'],
      ['put', '/api/v1/voice/agents/{id}'],
      ['delete', '/api/v1/voice/agents/{id}'],
      ['post', '/api/v1/voice/agents/{id}/duplicate'],
      ['get', '/api/v1/voice/agent-instruction-budget'],
      ['get', '/api/v1/voice/organisations/{organisationId}/flow-agents'],
    ];
    for (const [method, path] of routes) {
      const operation = doc.paths[path!]?.[method!];
      expect(operation?.summary, `${method} ${path}`).toEqual(expect.any(String));
      expect(operation.tags).toEqual(['agents']);
    }
    expect(doc.components.schemas.Agent.properties.functionTools).toBeDefined();
    expect(doc.components.schemas.FlowDefinition.properties.steps).toBeDefined();
    expect(doc.components.schemas.AgentErrorBody.properties.flowErrors).toBeDefined();
    const createBody = doc.paths['/api/v1/voice/agents'].post.requestBody.content['application/json'].schema;
    expect(createBody.required).toEqual(['name', 'agentIdentity']);
    expect(createBody.properties.functionTools.description).toMatch(/at most 5/);
  });
});
