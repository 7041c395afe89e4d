/** The agent rules of spec documents 1–3: required fields, enums, the instruction budget, callback agents, types. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
import {
  enableFeatures,
  seedAgent,
  seedOrganisation,
  setInstructionBudget,
  type SeededOrganisation,
} from './support/seed.ts';

let t: TestApp;
let org: SeededOrganisation;
let other: SeededOrganisation;

beforeAll(async () => {
  t = await startTestApp({ rateLimits: { widget: 1000 } });
  org = await seedOrganisation(t.db.sql, 'Rules');
  other = await seedOrganisation(t.db.sql, 'Other');
  await enableFeatures(t.db.sql, org.organisationId, ['flow_agents']);
});
afterAll(() => t?.close());

const agent = {
  name: 'Reception',
  agentIdentity: 'You are the receptionist.',
  agentTask: 'Book appointments.',
  greetingMessage: 'Hello!',
};
const create = (body: Record<string, unknown>, key = org.key) =>
  t.call(key, { method: 'POST', url: '/api/v1/voice/agents', payload: body });
const update = (id: string, body: Record<string, unknown>, key = org.key) =>
  t.call(key, { method: 'PUT', url: `/api/v1/voice/agents/${id}`, payload: body });
const fields = (res: { json(): { errors?: { field: string }[] } }) =>
  (res.json().errors ?? []).map((e) => e.field).sort();

async function created(body: Record<string, unknown> = {}, key = org.key) {
  const res = await create({ ...agent, ...body }, key);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as Record<string, unknown> & { id: string };
}

describe('required fields by agent type and builder mode', () => {
  it('name and agentIdentity are required; agentTask unless FLOW; greetingMessage for VOICE; all listed at once', async () => {
    // The rules that hang on builderMode and agentType are in the body schema too, so they come with its problems.
    const res = await create({ agentTask: '' });
    expect(res.statusCode).toBe(400);
    expect(fields(res)).toEqual(['agentIdentity', 'agentTask', 'greetingMessage', 'name']);
    expect(res.json().errors).toContainEqual({ field: 'agentTask', message: 'is required unless builderMode is FLOW' });
    const wrongType = await create({ ...agent, agentTask: 5, greetingMessage: '  ' });
    expect(wrongType.json().errors).toEqual([
      { field: 'agentTask', message: 'must be a string' },
      { field: 'greetingMessage', message: 'is required for VOICE agents' },
    ]);
    const rules = await create({ name: 'A', agentIdentity: 'B' });
    expect(rules.statusCode).toBe(400);
    expect(rules.json().errors).toEqual([
      { field: 'agentTask', message: 'is required unless builderMode is FLOW' },
      { field: 'greetingMessage', message: 'is required for VOICE agents' },
    ]);
    expect(rules.json().message).toContain('agentTask is required unless builderMode is FLOW');
  });

  it('a CHAT agent needs no greeting; blank names and identities are refused', async () => {
    expect((await create({ ...agent, agentType: 'CHAT', greetingMessage: undefined })).statusCode).toBe(201);
    const blank = await create({ ...agent, name: '   ', agentIdentity: ' ' });
    expect(blank.json().errors).toEqual([
      { field: 'name', message: 'must not be blank' },
      { field: 'agentIdentity', message: 'must not be blank' },
    ]);
  });

  it('on update: emptying the task of a PROMPT agent or the greeting of a VOICE agent is refused', async () => {
    const data = await created();
    const task = await update(data.id, { agentTask: '' });
    expect(task.json().errors).toEqual([{ field: 'agentTask', message: 'must not be empty for a PROMPT agent' }]);
    const greeting = await update(data.id, { greetingMessage: null });
    expect(greeting.json().errors).toEqual([{ field: 'greetingMessage', message: 'is required for VOICE agents' }]);
  });

  it('an agent saved before these rules (no greeting, no task) can still be paused and renamed', async () => {
    const legacy = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    const res = await update(legacy, { isActive: false, name: 'Old line' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ isActive: false, name: 'Old line', version: 2 });
  });

  it('changing a CHAT agent into a VOICE agent needs a greeting', async () => {
    const chat = await created({ agentType: 'CHAT', greetingMessage: null });
    expect((await update(chat.id, { agentType: 'VOICE' })).json().errors).toEqual([
      { field: 'greetingMessage', message: 'is required for VOICE agents' },
    ]);
    expect((await update(chat.id, { agentType: 'VOICE', greetingMessage: 'Hi' })).statusCode).toBe(200);
  });
});

describe('enums and shapes', () => {
  it.each([
    ['agentType', 'ROBOT', 'VOICE, CHAT'],
    ['builderMode', 'WIZARD', 'PROMPT, FLOW'],
    ['gender', 'OTHER', 'MALE, FEMALE, NEUTRAL'],
    ['sttMode', 'FAST', 'GLOBAL, INDIA, HUMANOID, GENERIC'],
    ['supportedLanguageGroup', 'European', 'English, Indian, Global'],
    ['languageSelectionMode', 'auto', 'group, language'],
    ['telephonyProvider', 'carrier-z', 'carrier-a, carrier-b, carrier-c, carrier-d, carrier-e'],
  ])('refuses an unknown %s with 400 listing the values', async (field, value, allowed) => {
    const res = await create({ ...agent, [field]: value });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field, message: `must be one of: ${allowed}` }]);
  });

  it('refuses unknown fields, wrong types, out-of-range numbers, bad languages and time zones, each by name', async () => {
    const res = await create({
      ...agent,
      colour: 'blue',
      voiceSpeed: 9,
      backgroundNoiseVolume: -1,
      language: 'English!',
      webCallEnabled: 'yes',
      callbackAgentId: '42',
    });
    expect(res.statusCode).toBe(400);
    expect(fields(res)).toEqual([
      'backgroundNoiseVolume',
      'callbackAgentId',
      'colour',
      'language',
      'voiceSpeed',
      'webCallEnabled',
    ]);
    const zone = await create({ ...agent, timezone: 'Mars/Olympus' });
    expect(zone.json().errors).toEqual([
      { field: 'timezone', message: 'must be an IANA time zone such as Europe/London' },
    ]);
    expect((await create({ ...agent, timezone: 'Asia/Kolkata' })).statusCode).toBe(201);
  });

  it('clears languageAccent (and other texts) with an empty string or null', async () => {
    const data = await created({ languageAccent: 'Scottish', closingMessage: 'Bye', agentPersonality: 'Dry' });
    const emptied = await update(data.id, { languageAccent: '', closingMessage: '' });
    expect(emptied.json().data).toMatchObject({ languageAccent: null, closingMessage: null, agentPersonality: 'Dry' });
    await update(data.id, { languageAccent: 'Welsh' });
    const nulled = await update(data.id, { languageAccent: null, agentPersonality: null });
    expect(nulled.json().data).toMatchObject({ languageAccent: null, agentPersonality: null, version: 4 });
    expect((await created({ languageAccent: '' })).languageAccent).toBeNull();
  });
});

describe('the instruction budget', () => {
  const budgeted = (length: number) => ({
    ...agent,
    agentIdentity: 'i'.repeat(length - 40),
    agentTask: 't'.repeat(10),
    agentPersonality: 'p'.repeat(10),
    pronunciation: 'r'.repeat(10),
    languageAccent: 'a'.repeat(10),
  });

  it('allows 4,000 characters across the five fields by default and refuses one more, naming the longest field', async () => {
    expect((await create(budgeted(4000))).statusCode).toBe(201);
    const res = await create(budgeted(4001));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      {
        field: 'agentIdentity',
        message:
          "takes the instructions (agentIdentity, agentPersonality, agentTask, pronunciation, languageAccent) to 4,001 characters, over the organisation's instruction budget of 4,000",
      },
    ]);
  });

  it('counts characters as people do: an emoji is one', async () => {
    expect((await create({ ...agent, agentIdentity: '🙂'.repeat(4000 - agent.agentTask.length) })).statusCode).toBe(
      201,
    );
  });

  it('is per organisation, and reported by GET /voice/agent-instruction-budget', async () => {
    const small = await seedOrganisation(t.db.sql, 'Small budget');
    await setInstructionBudget(t.db.sql, small.organisationId, 100);
    const over = await create({ ...agent, agentIdentity: 'x'.repeat(90) }, small.key);
    expect(over.statusCode).toBe(400);
    expect(over.json().errors[0].message).toContain('instruction budget of 100');
    const ok = await created({ agentIdentity: 'x'.repeat(80) }, small.key);
    const report = await t.call(small.key, {
      method: 'GET',
      url: '/api/v1/voice/agent-instruction-budget',
      query: { agentId: ok.id },
    });
    expect(report.statusCode).toBe(200);
    expect(report.json().data).toEqual({
      budget: 100,
      defaultBudget: 4000,
      countedFields: ['agentIdentity', 'agentPersonality', 'agentTask', 'pronunciation', 'languageAccent'],
      usage: { agentId: ok.id, used: 80 + agent.agentTask.length, remaining: 100 - 80 - agent.agentTask.length },
    });
    const plain = await t.call(org.key, { method: 'GET', url: '/api/v1/voice/agent-instruction-budget' });
    expect(plain.json().data).toMatchObject({ budget: 4000, usage: null });
    const foreign = await t.call(other.key, {
      method: 'GET',
      url: '/api/v1/voice/agent-instruction-budget',
      query: { agentId: ok.id },
    });
    expect(foreign.statusCode).toBe(404);
  });

  it('lets an agent already over budget be saved when the edit does not make it longer', async () => {
    const shrinking = await seedOrganisation(t.db.sql, 'Shrinking');
    const data = await created({ agentIdentity: 'x'.repeat(300) }, shrinking.key);
    await setInstructionBudget(t.db.sql, shrinking.organisationId, 100);
    const rename = await update(data.id, { name: 'Renamed', greetingMessage: 'Hi again' }, shrinking.key);
    expect(rename.statusCode, rename.body).toBe(200);
    const shorter = await update(data.id, { agentIdentity: 'x'.repeat(250) }, shrinking.key);
    expect(shorter.statusCode).toBe(200);
    const same = await update(data.id, { agentIdentity: 'y'.repeat(250) }, shrinking.key);
    expect(same.statusCode).toBe(200);
    const longer = await update(data.id, { agentPersonality: 'p' }, shrinking.key);
    expect(longer.statusCode).toBe(400);
    expect(longer.json().errors[0]).toMatchObject({
      field: 'agentIdentity',
      message: expect.stringContaining('(268 before this edit)'),
    });
    const within = await update(data.id, { agentIdentity: 'z'.repeat(50) }, shrinking.key);
    expect(within.statusCode).toBe(200);
    expect((await update(data.id, { agentIdentity: 'z'.repeat(60) }, shrinking.key)).statusCode).toBe(200);
    expect((await update(data.id, { agentIdentity: 'z'.repeat(101) }, shrinking.key)).statusCode).toBe(400);
  });
});

describe('callback agents', () => {
  it('must be a VOICE agent of the same organisation, not deleted, not the agent itself; null clears', async () => {
    const voice = await created({ name: 'Caller' });
    const chat = await created({ agentType: 'CHAT', callbackAgentId: voice.id });
    expect(chat.callbackAgentId).toBe(voice.id);
    const notVoice = await create({ ...agent, agentType: 'CHAT', callbackAgentId: chat.id });
    expect(notVoice.json().errors).toEqual([
      { field: 'callbackAgentId', message: 'must be a VOICE agent: it places the callbacks' },
    ]);
    const foreignVoice = await created({ name: 'Foreign caller' }, other.key);
    const foreign = await create({ ...agent, agentType: 'CHAT', callbackAgentId: foreignVoice.id });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().errors).toEqual([
      { field: 'callbackAgentId', message: 'is not an agent of this organisation' },
    ]);
    expect(foreign.body).not.toContain('Foreign caller');
    const itself = await update(voice.id, { callbackAgentId: voice.id });
    expect(itself.json().errors).toEqual([{ field: 'callbackAgentId', message: 'cannot be the agent itself' }]);
    expect((await update(chat.id, { callbackAgentId: null })).json().data.callbackAgentId).toBeNull();
  });

  it('an agent that places callbacks for chat agents must stay VOICE', async () => {
    const voice = await created({ name: 'Caller' });
    const chat = await created({ agentType: 'CHAT', callbackAgentId: voice.id });
    const res = await update(voice.id, { agentType: 'CHAT' });
    expect(res.json().errors).toEqual([
      { field: 'agentType', message: `must stay VOICE: the agent places callbacks for chat agents ${chat.id}` },
    ]);
  });
});

describe('rules by agent type', () => {
  it('a CHAT agent cannot have a call flow', async () => {
    const flow = { version: 1, start: 'bye', steps: { bye: { kind: 'end', outcome: { key: 'done', label: 'Done' } } } };
    const asFlow = await create({ ...agent, agentType: 'CHAT', builderMode: 'FLOW', flowDefinition: flow });
    expect(asFlow.json().errors).toEqual([
      { field: 'builderMode', message: 'FLOW is for VOICE agents: a CHAT agent cannot have a call flow' },
    ]);
    const withDraft = await create({ ...agent, agentType: 'CHAT', flowDefinition: flow });
    expect(withDraft.json().errors).toEqual([
      { field: 'flowDefinition', message: 'a CHAT agent cannot have a call flow' },
    ]);
    const voice = await created({ builderMode: 'FLOW', flowDefinition: flow });
    const toChat = await update(voice.id, { agentType: 'CHAT', builderMode: 'PROMPT' });
    expect(toChat.json().errors).toEqual([
      {
        field: 'flowDefinition',
        message: 'a CHAT agent cannot have a call flow; send flowDefinition null to delete the saved flow',
      },
    ]);
    expect(
      (await update(voice.id, { agentType: 'CHAT', builderMode: 'PROMPT', flowDefinition: null })).statusCode,
    ).toBe(200);
  });

  it('webCallEnabled is for CHAT agents only', async () => {
    const voice = await create({ ...agent, webCallEnabled: true });
    expect(voice.json().errors).toEqual([{ field: 'webCallEnabled', message: 'is for CHAT agents only' }]);
    expect((await create({ ...agent, webCallEnabled: false })).statusCode).toBe(201);
    const chat = await created({ agentType: 'CHAT', webCallEnabled: true });
    expect(chat.webCallEnabled).toBe(true);
    const toVoice = await update(chat.id, { agentType: 'VOICE' });
    expect(toVoice.json().errors).toEqual([
      { field: 'agentType', message: 'a VOICE agent cannot keep webCallEnabled: send webCallEnabled false too' },
    ]);
    expect((await update(chat.id, { agentType: 'VOICE', webCallEnabled: false })).statusCode).toBe(200);
  });

  it('a chat agent with active widget tokens must stay CHAT', async () => {
    const chat = await created({ agentType: 'CHAT' });
    await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/api-keys/widget',
      payload: { organisation_id: org.organisationId, agent_id: chat.id },
    });
    const res = await update(chat.id, { agentType: 'VOICE' });
    expect(res.json().errors).toEqual([
      { field: 'agentType', message: 'must stay CHAT while the agent has active widget tokens: revoke them first' },
    ]);
  });
});

describe('handoverData', () => {
  it('is shallow-merged on update; a key sent as null is removed; null as a whole clears it', async () => {
    const data = await created({
      handoverData: { handover_enabled: true, handover_number: '+15550100', note: 'sales', empty: null },
    });
    expect(data.handoverData).toEqual({ handover_enabled: true, handover_number: '+15550100', note: 'sales' });
    const merged = await update(data.id, { handoverData: { handover_number: null, team: { name: 'Sales' } } });
    expect(merged.json().data.handoverData).toEqual({ handover_enabled: true, note: 'sales', team: { name: 'Sales' } });
    const again = await update(data.id, { handoverData: { handover_enabled: false } });
    expect(again.json().data.handoverData).toEqual({ handover_enabled: false, note: 'sales', team: { name: 'Sales' } });
    expect((await update(data.id, { handoverData: null })).json().data.handoverData).toEqual({});
    const wrong = await update(data.id, { handoverData: { handover_enabled: 'yes' } });
    expect(fields(wrong)).toEqual(['handoverData.handover_enabled']);
  });

  it('customVariables and contextMemory are replaced, not merged', async () => {
    const data = await created({
      customVariables: { a: 1, b: 2 },
      contextMemory: { custom_instructions: 'x', other: true },
    });
    const res = await update(data.id, { customVariables: { c: 3 }, contextMemory: null });
    expect(res.json().data).toMatchObject({ customVariables: { c: 3 }, contextMemory: {} });
  });
});
