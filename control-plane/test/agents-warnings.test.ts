/**
 * docs/architecture.md §2: without a language model, saving a PROMPT agent answers with a warning; a FLOW agent needs
 * none. Whether there is one is what the engines go by: an llm worker alive on the bus, announcing its model.
 */
import { WorkerPool } from '@parley/engine/clients';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_LANGUAGE_MODEL_WARNING } from '../src/routes/v1/agents/index.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { enableFeatures, seedOrganisation, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus, startTestLlm } from './support/workers.ts';

let withoutModel: TestApp;
let withModel: TestApp;
let org: SeededOrganisation;

beforeAll(async () => {
  withoutModel = await startTestApp({ languageModel: false });
  withModel = await startTestApp({ db: withoutModel.db, bus: withoutModel.bus, languageModel: true });
  org = await seedOrganisation(withoutModel.db.sql, 'Sunrise');
  await enableFeatures(withoutModel.db.sql, org.organisationId, ['flow_agents']);
});
afterAll(async () => {
  await withModel?.close();
  await withoutModel?.close();
});

const prompt = {
  name: 'Reception',
  agentIdentity: 'You are the receptionist.',
  agentTask: 'Answer questions about opening hours.',
  greetingMessage: 'Hello, how can I help?',
};
const flow = {
  name: 'Menu',
  agentIdentity: 'You are the phone menu.',
  greetingMessage: 'Hello.',
  builderMode: 'FLOW',
  flowDefinition: {
    version: 1,
    start: 'bye',
    steps: { bye: { kind: 'end', text: 'Goodbye.', outcome: { key: 'done', label: 'Done' } } },
  },
};

describe('the no-language-model warning', () => {
  it('is on the creation, update and duplicate of a PROMPT agent when no model is configured', async () => {
    const created = await withoutModel.call(org.key, { method: 'POST', url: '/api/v1/voice/agents', payload: prompt });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().warnings).toEqual([NO_LANGUAGE_MODEL_WARNING]);
    const id = created.json().data.id;
    const updated = await withoutModel.call(org.key, {
      method: 'PUT',
      url: `/api/v1/voice/agents/${id}`,
      payload: { name: 'Front desk' },
    });
    expect(updated.json().warnings).toEqual([NO_LANGUAGE_MODEL_WARNING]);
    const copy = await withoutModel.call(org.key, { method: 'POST', url: `/api/v1/voice/agents/${id}/duplicate` });
    expect(copy.json().warnings).toEqual([NO_LANGUAGE_MODEL_WARNING]);
  });

  it('is absent for a FLOW agent, and whenever a model is configured', async () => {
    const flowAgent = await withoutModel.call(org.key, { method: 'POST', url: '/api/v1/voice/agents', payload: flow });
    expect(flowAgent.statusCode, flowAgent.body).toBe(201);
    expect(flowAgent.json()).not.toHaveProperty('warnings');
    const withLlm = await withModel.call(org.key, { method: 'POST', url: '/api/v1/voice/agents', payload: prompt });
    expect(withLlm.statusCode).toBe(201);
    expect(withLlm.json()).not.toHaveProperty('warnings');
  });
});

describe('the no-language-model warning, asked of the live llm workers', () => {
  it('is there while no llm worker is alive, gone while one is, and back once it has stopped', async () => {
    const bus = await createIsolatedBus();
    const pool = WorkerPool.watch(bus);
    const app = await startTestApp({ db: withoutModel.db, bus, languageModel: () => pool.hasLanguageModel() });
    const save = async () => {
      const res = await app.call(org.key, { method: 'POST', url: '/api/v1/voice/agents', payload: prompt });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().warnings;
    };
    try {
      expect(await save()).toEqual([NO_LANGUAGE_MODEL_WARNING]);
      // The llm-worker role with the model's settings and key; this control plane has neither.
      const llm = await startTestLlm(bus);
      try {
        await expect.poll(() => pool.languageModels(), { timeout: 5_000 }).not.toEqual([]);
        expect(await save()).toBeUndefined();
      } finally {
        await llm.close(); // its last heartbeat says it is draining
      }
      await expect.poll(() => pool.languageModels(), { timeout: 5_000 }).toEqual([]);
      expect(await save()).toEqual([NO_LANGUAGE_MODEL_WARNING]);
    } finally {
      await app.close();
      pool.stop();
      await bus.close();
    }
  }, 30_000);
});
