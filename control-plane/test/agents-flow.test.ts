/** FLOW builder mode: the feature flag, flow checks with flowErrors, derived resultsConfig and PROMPT ⇄ FLOW. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
import { disableFeatures, enableFeatures, seedOrganisation, type SeededOrganisation } from './support/seed.ts';

let t: TestApp;
let org: SeededOrganisation;

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql, 'Flows');
  await enableFeatures(t.db.sql, org.organisationId, ['flow_agents']);
});
afterAll(() => t?.close());

const agent = {
  name: 'Reminder',
  agentIdentity: 'You call patients about appointments.',
  greetingMessage: 'Hello {{name}}',
};
const flow = {
  version: 1,
  start: 'confirm',
  steps: {
    confirm: {
      kind: 'ask',
      question: 'Can you come?',
      field: { key: 'confirmed', label: 'Confirmed', type: 'yes_no' },
      next: 'check',
    },
    check: {
      kind: 'branch',
      conditions: [{ kind: 'value', field: 'confirmed', op: 'equals', value: true, next: 'done' }],
      default: 'lookup',
    },
    lookup: { kind: 'tool', tool: 'reschedule', next: 'moved', onFailure: 'moved' },
    moved: { kind: 'end', outcome: { key: 'rescheduled', label: 'Rescheduled' } },
    done: { kind: 'end', outcome: { key: 'confirmed', label: 'Confirmed', description: 'Will come' } },
  },
};
const tools = { reschedule: { description: 'Move the appointment', url: 'https://clinic.example/reschedule' } };
const derived = {
  outcomes: [
    { key: 'confirmed', label: 'Confirmed', description: 'Will come' },
    { key: 'rescheduled', label: 'Rescheduled' },
  ],
  fields: [{ key: 'confirmed', label: 'Confirmed', type: 'yes_no' }],
};
const promptResults = {
  outcomes: [{ key: 'interested', label: 'Interested' }],
  fields: [{ key: 'budget', label: 'Budget', type: 'number' }],
};

const create = (body: Record<string, unknown>, key = org.key) =>
  t.call(key, { method: 'POST', url: '/api/v1/voice/agents', payload: body });
const update = (id: string, body: Record<string, unknown>, key = org.key) =>
  t.call(key, { method: 'PUT', url: `/api/v1/voice/agents/${id}`, payload: body });
const get = (id: string, key = org.key) => t.call(key, { method: 'GET', url: `/api/v1/voice/agents/${id}` });

async function flowAgent(extra: Record<string, unknown> = {}, key = org.key) {
  const res = await create(
    { ...agent, builderMode: 'FLOW', flowDefinition: flow, functionTools: tools, ...extra },
    key,
  );
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

async function promptAgent(extra: Record<string, unknown> = {}) {
  const res = await create({ ...agent, agentTask: 'Confirm the appointment.', functionTools: tools, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

describe('creating FLOW agents', () => {
  it('needs no agentTask, derives resultsConfig from the flow and ignores a sent one', async () => {
    const data = await flowAgent({ resultsConfig: promptResults });
    expect(data).toMatchObject({
      builderMode: 'FLOW',
      agentTask: null,
      flowDefinition: flow,
      resultsConfig: derived,
      version: 1,
    });
  });

  it('needs a flowDefinition', async () => {
    const res = await create({ ...agent, builderMode: 'FLOW' });
    expect(res.json().errors).toEqual([{ field: 'flowDefinition', message: 'is required when builderMode is FLOW' }]);
  });

  it('needs Flow Agents enabled for the organisation: 403 otherwise', async () => {
    const plain = await seedOrganisation(t.db.sql, 'No flows');
    const res = await create({ ...agent, builderMode: 'FLOW', flowDefinition: flow, functionTools: tools }, plain.key);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      success: false,
      code: 'feature_disabled',
      error: 'Flow Agents is not enabled for this organisation',
    });
    const draft = await create({ ...agent, agentTask: 'x', flowDefinition: flow, functionTools: tools }, plain.key);
    expect(draft.statusCode).toBe(403);
  });

  it('rejects a broken flow with every problem at once in flowErrors', async () => {
    const broken = {
      version: 1,
      start: 'hello',
      steps: {
        hello: { kind: 'say', text: 'Hi', next: 'menu' },
        menu: {
          kind: 'branch',
          prompt: 'Press 1 or 2',
          conditions: [
            { kind: 'dtmf', digits: '1', next: 'nowhere' },
            { kind: 'dtmf', digits: '2', next: 'faq' },
          ],
          default: 'transfer',
        },
        faq: { kind: 'knowledge', next: 'stuck' },
        stuck: {
          kind: 'ask',
          question: 'Anything else?',
          field: { key: 'more', label: 'More', type: 'text' },
          next: 'stuck',
        },
        transfer: { kind: 'handover', onFailure: 'order' },
        order: { kind: 'tool', tool: 'place_order', next: 'bye', onFailure: 'bye' },
        orphan: { kind: 'say', text: 'Never said', next: 'bye' },
        bye: { kind: 'end', outcome: { key: 'done', label: 'Done' } },
      },
    };
    const res = await create({ ...agent, builderMode: 'FLOW', flowDefinition: broken });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ success: false, code: 'validation_failed' });
    expect(body.error).toBe(body.message);
    expect(body.errors).toEqual([
      { field: 'flowDefinition', message: `has ${body.flowErrors.length} problems, listed in flowErrors` },
    ]);
    const problems = body.flowErrors as { path: string; message: string }[];
    const at = (path: string, text: string) =>
      expect(problems).toContainEqual({ path, message: expect.stringContaining(text) });
    at('/steps/menu/conditions/0/next', 'there is no step "nowhere"');
    at('/steps/orphan', 'cannot be reached');
    at('/steps/stuck', 'no path leads to an end step');
    at('/steps/order/tool', 'the agent has no tool "place_order"');
    at('/steps/faq', 'needs a knowledge base');
    at('/steps/transfer', 'needs a handover number');
    // faq leads only into stuck, so it cannot reach an end either.
    at('/steps/faq', 'no path leads to an end step');
    expect(problems).toHaveLength(7);
  });

  it('rejects a flow without an end step, and one that is not a flow at all', async () => {
    const endless = {
      version: 1,
      start: 'a',
      steps: { a: { kind: 'ask', question: 'Hm?', field: { key: 'x', label: 'X', type: 'text' }, next: 'a' } },
    };
    const res = await create({ ...agent, builderMode: 'FLOW', flowDefinition: endless });
    expect(res.json().flowErrors).toContainEqual({ path: '/steps', message: expect.stringContaining('no end step') });
    const shapeless = await create({
      ...agent,
      builderMode: 'FLOW',
      flowDefinition: { start: 1, steps: { b: { kind: 'dance' } } },
    });
    expect(shapeless.statusCode).toBe(400);
    expect(shapeless.json().flowErrors.map((p: { path: string }) => p.path)).toEqual(
      expect.arrayContaining(['/version', '/start', '/steps/b/kind']),
    );
  });

  it('checks the flow against the agent: knowledge bases and catalogues from customVariables, the handover number', async () => {
    const steps = {
      faq: { kind: 'knowledge', next: 'shop' },
      shop: { kind: 'tool', tool: 'product_search', next: 'human', onFailure: 'human' },
      human: { kind: 'handover', onFailure: 'bye' },
      bye: { kind: 'end', outcome: { key: 'done', label: 'Done' } },
    };
    const body = { ...agent, builderMode: 'FLOW', flowDefinition: { version: 1, start: 'faq', steps } };
    const without = await create(body);
    expect(without.json().flowErrors).toHaveLength(3);
    const withAll = await create({
      ...body,
      customVariables: { knowledge_base_ids: ['kb1'], catalogue_ids: 'cat1' },
      handoverData: { handover_enabled: true, handover_number: '+441130000000' },
    });
    expect(withAll.statusCode, withAll.body).toBe(201);
    const disabled = await create({
      ...body,
      customVariables: { knowledge_base_id: 'kb1', catalogue_id: 'cat1' },
      handoverData: { handover_enabled: false, handover_number: '+441130000000' },
    });
    expect(disabled.json().flowErrors).toEqual([
      { path: '/steps/human', message: expect.stringContaining('handover number') },
    ]);
  });
});

describe('updating FLOW agents', () => {
  it('re-checks the flow when tools, customVariables or handoverData change, and refuses what no longer fits', async () => {
    const data = await flowAgent({ customVariables: { knowledge_base_ids: 'kb' } });
    const noTool = await update(data.id, { functionTools: { other: { description: 'x', url: 'https://x.example' } } });
    expect(noTool.statusCode).toBe(400);
    expect(noTool.json().flowErrors).toEqual([
      { path: '/steps/lookup/tool', message: expect.stringContaining('no tool "reschedule"') },
    ]);
    const withKnowledge = { ...flow, steps: { ...flow.steps, done: { kind: 'knowledge', next: 'moved' } } };
    expect((await update(data.id, { flowDefinition: withKnowledge })).statusCode).toBe(200);
    const noKb = await update(data.id, { customVariables: {} });
    expect(noKb.json().flowErrors).toEqual([
      { path: '/steps/done', message: expect.stringContaining('knowledge base') },
    ]);
    expect((await get(data.id)).json().data).toMatchObject({
      version: 2,
      customVariables: { knowledge_base_ids: 'kb' },
    });
  });

  it('re-checks on handoverData changes: clearing the number breaks a handover step', async () => {
    const withHandover = { ...flow, steps: { ...flow.steps, lookup: { kind: 'handover', onFailure: 'moved' } } };
    const data = await flowAgent({ flowDefinition: withHandover, handoverData: { handover_number: '+15550123' } });
    const res = await update(data.id, { handoverData: { handover_number: null } });
    expect(res.json().flowErrors).toEqual([
      { path: '/steps/lookup', message: expect.stringContaining('handover number') },
    ]);
  });

  it('re-derives resultsConfig from a changed flow and ignores a sent one', async () => {
    const data = await flowAgent();
    const changed = {
      ...flow,
      steps: { ...flow.steps, moved: { kind: 'end', outcome: { key: 'moved', label: 'Moved' } } },
    };
    const res = await update(data.id, { flowDefinition: changed, resultsConfig: promptResults });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.resultsConfig.outcomes.map((o: { key: string }) => o.key)).toEqual(['confirmed', 'moved']);
    const ignored = await update(data.id, { resultsConfig: promptResults });
    expect(ignored.json().data.resultsConfig.outcomes.map((o: { key: string }) => o.key)).toEqual([
      'confirmed',
      'moved',
    ]);
  });

  it('an empty agentTask sent to a FLOW agent keeps the stored task', async () => {
    const data = await flowAgent({ agentTask: 'Remind about appointments.' });
    const res = await update(data.id, { agentTask: '', name: 'Renamed' });
    expect(res.json().data).toMatchObject({ agentTask: 'Remind about appointments.', name: 'Renamed' });
    expect((await update(data.id, { agentTask: null })).json().data.agentTask).toBe('Remind about appointments.');
    expect((await update(data.id, { agentTask: 'New task' })).json().data.agentTask).toBe('New task');
  });

  it('flowDefinition null cannot delete the flow of a FLOW agent', async () => {
    const data = await flowAgent();
    const res = await update(data.id, { flowDefinition: null });
    expect(res.json().errors).toEqual([
      {
        field: 'flowDefinition',
        message: 'cannot be deleted while builderMode is FLOW: switch the agent to PROMPT first',
      },
    ]);
  });
});

describe('switching between PROMPT and FLOW', () => {
  it('switching to FLOW keeps the prior resultsConfig aside, switching back restores it', async () => {
    const data = await promptAgent({ resultsConfig: promptResults });
    const toFlow = await update(data.id, { builderMode: 'FLOW', flowDefinition: flow });
    expect(toFlow.statusCode, toFlow.body).toBe(200);
    expect(toFlow.json().data).toMatchObject({ builderMode: 'FLOW', resultsConfig: derived, version: 2 });
    const back = await update(data.id, { builderMode: 'PROMPT' });
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().data).toMatchObject({
      builderMode: 'PROMPT',
      resultsConfig: promptResults,
      flowDefinition: flow,
      agentTask: 'Confirm the appointment.',
    });
    const again = await update(data.id, { builderMode: 'FLOW' });
    expect(again.json().data.resultsConfig).toEqual(derived);
    const withNew = await update(data.id, { builderMode: 'PROMPT', resultsConfig: null });
    expect(withNew.json().data.resultsConfig).toBeNull();
  });

  it('switching to FLOW needs a flow, sent or saved', async () => {
    const data = await promptAgent();
    const res = await update(data.id, { builderMode: 'FLOW' });
    expect(res.json().errors).toEqual([{ field: 'flowDefinition', message: 'is required when builderMode is FLOW' }]);
    expect((await update(data.id, { flowDefinition: flow })).json().data).toMatchObject({
      builderMode: 'PROMPT',
      flowDefinition: flow,
      resultsConfig: null,
    });
    const saved = await update(data.id, { builderMode: 'FLOW' });
    expect(saved.json().data).toMatchObject({ builderMode: 'FLOW', resultsConfig: derived });
  });

  it('switching to FLOW checks the saved flow against the agent as it is now', async () => {
    const data = await promptAgent();
    await update(data.id, { flowDefinition: flow });
    await update(data.id, { functionTools: null });
    const res = await update(data.id, { builderMode: 'FLOW' });
    expect(res.json().flowErrors).toEqual([
      { path: '/steps/lookup/tool', message: expect.stringContaining('no tool "reschedule"') },
    ]);
  });

  it('switching back to PROMPT needs a non-empty agentTask', async () => {
    const data = await flowAgent();
    const res = await update(data.id, { builderMode: 'PROMPT' });
    expect(res.json().errors).toEqual([
      { field: 'agentTask', message: 'is required to switch the agent back to PROMPT' },
    ]);
    const empty = await update(data.id, { builderMode: 'PROMPT', agentTask: '' });
    expect(empty.json().errors).toEqual([
      { field: 'agentTask', message: 'is required to switch the agent back to PROMPT' },
    ]);
    const ok = await update(data.id, { builderMode: 'PROMPT', agentTask: 'Talk freely.' });
    expect(ok.json().data).toMatchObject({ builderMode: 'PROMPT', agentTask: 'Talk freely.', resultsConfig: null });
  });

  it('flowDefinition null deletes the saved flow of a PROMPT agent', async () => {
    const data = await promptAgent({ flowDefinition: flow });
    const res = await update(data.id, { flowDefinition: null });
    expect(res.json().data).toMatchObject({ flowDefinition: null, version: 2 });
    const both = await flowAgent({ agentTask: 'Fallback task' });
    const back = await update(both.id, { builderMode: 'PROMPT', flowDefinition: null });
    expect(back.json().data).toMatchObject({ builderMode: 'PROMPT', flowDefinition: null });
  });

  it('a saved draft flow on a PROMPT agent is checked too', async () => {
    const data = await promptAgent();
    const res = await update(data.id, { flowDefinition: { ...flow, start: 'missing' } });
    expect(res.json().flowErrors).toContainEqual({ path: '/start', message: 'there is no step "missing"' });
  });
});

describe('Flow Agents switched off', () => {
  let off: SeededOrganisation;
  let flowId: string;
  let promptId: string;

  beforeAll(async () => {
    off = await seedOrganisation(t.db.sql, 'Turned off');
    await enableFeatures(t.db.sql, off.organisationId, ['flow_agents']);
    flowId = (await flowAgent({ agentTask: 'Fallback' }, off.key)).id;
    const prompt = await create({ ...agent, agentTask: 'x', functionTools: tools, flowDefinition: flow }, off.key);
    promptId = prompt.json().data.id;
    await disableFeatures(t.db.sql, off.organisationId, ['flow_agents']);
  });

  it('refuses turning an agent into FLOW, and changing or deleting a flow, with 403', async () => {
    expect((await update(promptId, { builderMode: 'FLOW' }, off.key)).statusCode).toBe(403);
    expect((await update(promptId, { flowDefinition: null }, off.key)).statusCode).toBe(403);
    const changed = {
      ...flow,
      steps: { ...flow.steps, moved: { kind: 'end', outcome: { key: 'moved', label: 'Moved' } } },
    };
    expect((await update(flowId, { flowDefinition: changed }, off.key)).statusCode).toBe(403);
    expect(
      (await t.call(off.key, { method: 'POST', url: `/api/v1/voice/agents/${flowId}/duplicate` })).statusCode,
    ).toBe(403);
  });

  it('still allows other edits, sending the same flow again, and switching back to PROMPT', async () => {
    expect((await update(flowId, { name: 'Still here', flowDefinition: flow }, off.key)).statusCode).toBe(200);
    const back = await update(flowId, { builderMode: 'PROMPT' }, off.key);
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().data.builderMode).toBe('PROMPT');
  });

  it('GET /voice/organisations/{id}/flow-agents says whether it is on and lists FLOW agents (never deleted ones)', async () => {
    const res = await t.call(off.key, {
      method: 'GET',
      url: `/api/v1/voice/organisations/${off.organisationId}/flow-agents`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ enabled: false, agents: [] });
    const on = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/voice/organisations/${org.organisationId}/flow-agents`,
    });
    const listed = on.json().data;
    expect(listed.enabled).toBe(true);
    const one = await flowAgent({ name: 'Listed flow' });
    const gone = await flowAgent({ name: 'Deleted flow' });
    await t.call(org.key, { method: 'DELETE', url: `/api/v1/voice/agents/${gone.id}` });
    const after = (
      await t.call(org.key, { method: 'GET', url: `/api/v1/voice/organisations/${org.organisationId}/flow-agents` })
    ).json().data;
    expect(after.agents[0]).toEqual({ id: one.id, name: 'Listed flow', isActive: true, updatedAt: one.updatedAt });
    expect(after.agents.map((a: { id: string }) => a.id)).not.toContain(gone.id);
    expect(after.agents.length).toBe(listed.agents.length + 1);
    const foreign = await t.call(off.key, {
      method: 'GET',
      url: `/api/v1/voice/organisations/${org.organisationId}/flow-agents`,
    });
    expect(foreign.statusCode).toBe(403);
  });
});
