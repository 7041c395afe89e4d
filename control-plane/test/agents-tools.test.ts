/** Webhook function tools: the schema, bearer tokens encrypted at rest, decrypted reads, rotation, the engine's form. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { AgentSnapshot } from '@parley/engine/protocol';
import { KeyRing } from '../src/secrets/key-ring.ts';
import { agentRecord, type AgentRow } from '../src/agents/records.ts';
import { findAgent } from '../src/agents/repository.ts';
import { toAgentSnapshot } from '../src/agents/snapshot.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation, type SeededOrganisation } from './support/seed.ts';

const oldKey = `old:${randomBytes(32).toString('base64')}`;
let t: TestApp;
let org: SeededOrganisation;
let other: SeededOrganisation;

beforeAll(async () => {
  t = await startTestApp({ secrets: KeyRing.parse(oldKey) });
  org = await seedOrganisation(t.db.sql, 'Tools');
  other = await seedOrganisation(t.db.sql, 'Other');
});
afterAll(() => t?.close());

const agent = {
  name: 'Orders',
  agentIdentity: 'You take orders.',
  agentTask: 'Take the order.',
  greetingMessage: 'Hello',
};
const lookup = {
  name: 'Order lookup',
  description: 'Look up an order by its number',
  parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
  url: 'https://shop.example/orders',
  method: 'GET',
  headers: { 'X-Shop': 'main' },
  bearerToken: 'sk-live-secret-123',
  timeoutMs: 5000,
};
const create = (body: Record<string, unknown>, key = org.key, app = t) =>
  app.call(key, { method: 'POST', url: '/api/v1/voice/agents', payload: body });
const update = (id: string, body: Record<string, unknown>, key = org.key) =>
  t.call(key, { method: 'PUT', url: `/api/v1/voice/agents/${id}`, payload: body });
const read = (id: string, decrypted = false, app = t, key = org.key) =>
  app.call(key, {
    method: 'GET',
    url: `/api/v1/voice/agents/${id}`,
    ...(decrypted ? { query: { includeTools: 'decrypted' } } : {}),
  });
const fields = (res: { json(): { errors?: { field: string }[] } }) =>
  (res.json().errors ?? []).map((e) => e.field).sort();

async function withTools(functionTools: Record<string, unknown>, app = t) {
  const res = await create({ ...agent, functionTools }, org.key, app);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

describe('bearer tokens at rest', () => {
  it('are encrypted in the database and in every answer, under the first key, with its id beside the ciphertext', async () => {
    const data = await withTools({ lookup });
    const { bearerToken, ...rest } = lookup;
    expect(data.functionTools.lookup).toEqual({ ...rest, bearerToken: expect.stringMatching(/^enc:v1:old:/) });
    const [row] = await t.db.sql<
      { tools: string }[]
    >`select function_tools::text as tools from agents where id = ${data.id}`;
    expect(row!.tools).not.toContain(bearerToken);
    expect(row!.tools).toContain('enc:v1:old:');
    expect((await read(data.id)).body).not.toContain(bearerToken);
    const listed = await t.call(org.key, { method: 'GET', url: '/api/v1/voice/agents' });
    expect(listed.body).not.toContain(bearerToken);
  });

  it('come back in clear only with includeTools=decrypted', async () => {
    const data = await withTools({ lookup, notify: { description: 'Tell the team', url: 'https://hooks.example/n' } });
    const res = await read(data.id, true);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.functionTools).toEqual({
      lookup,
      notify: { description: 'Tell the team', url: 'https://hooks.example/n' },
    });
    const bad = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/voice/agents/${data.id}`,
      query: { includeTools: 'plain' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([{ field: 'includeTools', message: 'must be one of: decrypted' }]);
  });

  it('sending the encrypted value back keeps the token; sending a new one replaces it', async () => {
    const data = await withTools({ lookup });
    const returned = data.functionTools;
    const kept = await update(data.id, {
      functionTools: { ...returned, lookup: { ...returned.lookup, timeoutMs: 9000 } },
    });
    expect(kept.statusCode, kept.body).toBe(200);
    expect((await read(data.id, true)).json().data.functionTools.lookup).toMatchObject({
      bearerToken: lookup.bearerToken,
      timeoutMs: 9000,
    });
    await update(data.id, { functionTools: { lookup: { ...lookup, bearerToken: 'sk-new' } } });
    expect((await read(data.id, true)).json().data.functionTools.lookup.bearerToken).toBe('sk-new');
  });

  it('refuses a ciphertext that does not open for this organisation (copied from another, or altered)', async () => {
    const theirs = (await create({ ...agent, functionTools: { lookup } }, other.key)).json().data;
    const copied = await create({
      ...agent,
      functionTools: { lookup: { ...lookup, bearerToken: theirs.functionTools.lookup.bearerToken } },
    });
    expect(copied.statusCode).toBe(400);
    expect(copied.json().errors).toEqual([
      {
        field: 'functionTools.lookup.bearerToken',
        message: 'is an encrypted value this server cannot open for this organisation; send the token itself',
      },
    ]);
    expect(copied.body).not.toContain(lookup.bearerToken);
    const altered = await create({
      ...agent,
      functionTools: {
        lookup: { ...lookup, bearerToken: 'enc:v1:old:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
      },
    });
    expect(fields(altered)).toEqual(['functionTools.lookup.bearerToken']);
  });

  it('survive key rotation: old tokens open after a new first key is added, new ones use the new key', async () => {
    const before = await withTools({ lookup });
    const rotated = await startTestApp({
      db: t.db,
      secrets: KeyRing.parse(`new:${randomBytes(32).toString('base64')},${oldKey}`),
    });
    try {
      expect((await read(before.id, true, rotated)).json().data.functionTools.lookup.bearerToken).toBe(
        lookup.bearerToken,
      );
      const after = (await create({ ...agent, functionTools: { lookup } }, org.key, rotated)).json().data;
      expect(after.functionTools.lookup.bearerToken).toMatch(/^enc:v1:new:/);
      expect((await read(after.id, true, rotated)).json().data.functionTools.lookup.bearerToken).toBe(
        lookup.bearerToken,
      );
    } finally {
      await rotated.close();
    }
    const dropped = await startTestApp({
      db: t.db,
      secrets: KeyRing.parse(`new:${randomBytes(32).toString('base64')}`),
    });
    try {
      const res = await read(before.id, true, dropped);
      expect(res.statusCode).toBe(500);
      expect(res.json().message).toBe('A stored webhook token could not be decrypted');
      expect((await read(before.id, false, dropped)).statusCode).toBe(200);
    } finally {
      await dropped.close();
    }
  });
});

describe('the function tool schema', () => {
  it('allows at most 5 tools', async () => {
    const six = Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [`tool_${i}`, { description: 'x', url: 'https://x.example' }]),
    );
    const res = await create({ ...agent, functionTools: six });
    expect(res.statusCode).toBe(400);
    expect(fields(res)).toEqual(['functionTools']);
    const five = Object.fromEntries(Object.entries(six).slice(0, 5));
    expect((await create({ ...agent, functionTools: five })).statusCode).toBe(201);
  });

  it('names every problem: keys, reserved built-in names, Authorization headers, parameters, url, method, timeout', async () => {
    const res = await create({
      ...agent,
      functionTools: {
        '1bad': { description: 'x', url: 'https://x.example' },
        end_call: { description: 'x', url: 'https://x.example' },
        auth: { description: 'x', url: 'https://x.example', headers: { Authorization: 'Bearer plain' } },
        params: { description: 'x', url: 'https://x.example', parameters: { type: 'string' } },
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      {
        field: 'functionTools.1bad',
        message: 'a tool key must start with a letter and hold only letters, digits, _ and - (at most 64)',
      },
      {
        field: 'functionTools.end_call',
        message: '"end_call" is a built-in tool the server provides; give the webhook another key',
      },
      {
        field: 'functionTools.auth.headers.Authorization',
        message: 'send the token as bearerToken, which is stored encrypted',
      },
      {
        field: 'functionTools.params.parameters',
        message: 'must be a JSON Schema of an object (type "object"): the model sends named arguments',
      },
    ]);
    const schema = await create({
      ...agent,
      functionTools: {
        p: { description: 'x', url: 'https://x.example', parameters: { type: 'object', properties: 5 } },
      },
    });
    expect(schema.json().errors[0]).toMatchObject({
      field: 'functionTools.p.parameters',
      message: expect.stringContaining('is not a valid JSON Schema'),
    });
    const shape = await create({
      ...agent,
      functionTools: { s: { url: 'ftp://x.example', method: 'FETCH', timeoutMs: 60_000, extra: 1 } },
    });
    expect(fields(shape)).toEqual([
      'functionTools.s.description',
      'functionTools.s.extra',
      'functionTools.s.method',
      'functionTools.s.timeoutMs',
      'functionTools.s.url',
    ]);
  });

  it('a sent functionTools replaces all tools; null removes them', async () => {
    const data = await withTools({ lookup, other: { description: 'x', url: 'https://x.example' } });
    expect(
      Object.keys(
        (await update(data.id, { functionTools: { other: { description: 'y', url: 'https://y.example' } } })).json()
          .data.functionTools,
      ),
    ).toEqual(['other']);
    expect((await update(data.id, { functionTools: null })).json().data.functionTools).toEqual({});
  });

  it('built-in tools stored on an agent are never handed out as webhooks', async () => {
    const data = await withTools({ lookup });
    await t.db
      .sql`update agents set function_tools = function_tools || ${t.db.sql.json({ knowledge_search: { description: 'server side', url: 'https://internal' } })}
                   where id = ${data.id}`;
    const res = await read(data.id, true);
    expect(Object.keys(res.json().data.functionTools)).toEqual(['lookup']);
  });
});

describe("the engine's view of an agent", () => {
  it('maps onto AgentSnapshot: webhook tools as a keyed list with tokens in clear, the handover number', async () => {
    const data = await withTools({ lookup });
    await update(data.id, {
      handoverData: { handover_enabled: true, handover_number: '+15550199' },
      customVariables: { city: 'Leeds' },
    });
    const row = await findAgent(t.db.sql, org.organisationId, data.id);
    const snapshot = toAgentSnapshot(agentRecord(row as AgentRow), t.secrets);
    expect(Value.Errors(AgentSnapshot, snapshot).First()).toBeUndefined();
    const { name: _display, ...spec } = lookup;
    expect(snapshot.functionTools).toEqual([{ key: 'lookup', ...spec }]);
    expect(snapshot).toMatchObject({
      id: data.id,
      agentType: 'VOICE',
      builderMode: 'PROMPT',
      handoverNumber: '+15550199',
      customVariables: { city: 'Leeds' },
      flowDefinition: null,
    });
    await update(data.id, { handoverData: { handover_enabled: false } });
    const off = toAgentSnapshot(
      agentRecord((await findAgent(t.db.sql, org.organisationId, data.id)) as AgentRow),
      t.secrets,
    );
    expect(off.handoverNumber).toBeNull();
  });
});
