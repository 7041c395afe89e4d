/**
 * The greeting cache end to end: agents saved through the REST API, greetings synthesised by a real TTS worker role
 * (flite) over the bus and stored in Postgres, served as WAV, and handed to a real engine role while a call rings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeWav } from '@parley/engine/audio';
import { startEngineRole, startSttWorkerRole, type EngineRole, type WorkerRoleHandle } from '@parley/engine';
import type { Bus } from '@parley/engine/bus';
import { callCodecs, greetingCodecs, isAudioFrame, subjects, type CallSpec } from '@parley/engine/protocol';
import { GreetingCache } from '../src/greetings/greeting-cache.ts';
import { findGreeting, saveGreeting } from '../src/greetings/greeting-repository.ts';
import { toAgentSnapshot } from '../src/agents/snapshot.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { seedOrganisation, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus, OFFLINE_SPEECH, startTestTts } from './support/workers.ts';

let bus: Bus;
let tts: WorkerRoleHandle;
let greetings: GreetingCache;
let t: TestApp;
let db: TestDatabase;
let org: SeededOrganisation;

beforeAll(async () => {
  bus = await createIsolatedBus();
  tts = await startTestTts(bus);
  db = await createTestDatabase();
  greetings = new GreetingCache(db.sql, bus).listen();
  // The cache hears the app's saves the way server.ts wires it.
  t = await startTestApp({ db, bus, agentListeners: greetings.agentListeners() });
  org = await seedOrganisation(t.db.sql, 'Sunrise');
}, 60_000);
afterAll(async () => {
  await greetings?.close();
  await t?.close();
  await db?.close();
  await tts?.close();
  await bus?.close();
});

const reception = {
  name: 'Reception',
  agentIdentity: 'You are the receptionist of Sunrise Dental.',
  agentTask: 'Answer questions about opening hours.',
  greetingMessage: 'Hello {{caller}}, thank you for calling Sunrise Dental.',
  customVariables: { caller: 'there' },
};

async function createAgent(body: Record<string, unknown> = {}) {
  const res = await t.call(org.key, {
    method: 'POST',
    url: '/api/v1/voice/agents',
    payload: { ...reception, ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; version: number };
}
const update = (id: string, body: Record<string, unknown>) =>
  t.call(org.key, { method: 'PUT', url: `/api/v1/voice/agents/${id}`, payload: body });
const state = async (id: string) =>
  (await t.call(org.key, { method: 'GET', url: `/api/v1/voice/agents/${id}/greeting` })).json().data;

/** Waits until the agent's greeting leaves `pending` for its current version. */
async function settledState(id: string) {
  await greetings.settled();
  for (let i = 0; i < 200; i += 1) {
    const s = await state(id);
    if (s.status !== 'pending') return s;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the greeting stayed pending');
}

describe('the greeting cache', () => {
  it('synthesises a new agent’s greeting with its default variables and serves it as WAV', async () => {
    const agent = await createAgent();
    const ready = await settledState(agent.id);
    expect(ready).toMatchObject({
      status: 'ready',
      agentVersion: 1,
      text: 'Hello there, thank you for calling Sunrise Dental.',
      error: null,
    });
    expect(ready.durationMs).toBeGreaterThan(1_000);
    const audio = await t.call(org.key, { method: 'GET', url: `/api/v1/voice/agents/${agent.id}/greeting/audio` });
    expect(audio.statusCode).toBe(200);
    expect(audio.headers['content-type']).toBe('audio/wav');
    const wav = decodeWav(audio.rawPayload);
    expect(wav.sampleRate).toBe(16_000);
    expect(Math.max(...wav.samples.subarray(0, 16_000).map(Math.abs))).toBeGreaterThan(1_000);
  });

  it('carries the audio over to a new version when an edit leaves the greeting the same', async () => {
    const agent = await createAgent();
    const first = await settledState(agent.id);
    const before = await findGreeting(t.db.sql, agent.id);
    expect((await update(agent.id, { description: 'Front desk' })).statusCode).toBe(200);
    await greetings.settled();
    const after = await settledState(agent.id);
    expect(after).toMatchObject({ status: 'ready', agentVersion: 2, text: first.text });
    expect((await findGreeting(t.db.sql, agent.id))!.audio!.equals(before!.audio!)).toBe(true);
  });

  it('synthesises again when the greeting changes, and marks a greeting without defaults per call', async () => {
    const agent = await createAgent();
    await settledState(agent.id);
    await update(agent.id, { greetingMessage: 'Good morning, Sunrise Dental.' });
    expect(await settledState(agent.id)).toMatchObject({
      status: 'ready',
      agentVersion: 2,
      text: 'Good morning, Sunrise Dental.',
    });
    await update(agent.id, { greetingMessage: 'Hello {{patient_name}}, this is Sunrise Dental.' });
    expect(await settledState(agent.id)).toMatchObject({ status: 'per_call', agentVersion: 3 });
    const audio = await t.call(org.key, { method: 'GET', url: `/api/v1/voice/agents/${agent.id}/greeting/audio` });
    expect(audio.statusCode).toBe(404);
    expect(audio.json().message).toMatch(/per_call/);
  });

  it('records a failed synthesis with its reason, and never lets an old version overwrite a newer one', async () => {
    const agent = await createAgent({ voiceProvider: 'no-such-voice-provider' });
    const failed = await settledState(agent.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/no-such-voice-provider/);
    await update(agent.id, { voiceProvider: null });
    await settledState(agent.id);
    expect(
      await saveGreeting(t.db.sql, {
        agentId: agent.id,
        agentVersion: 1,
        text: 'stale',
        status: 'per_call',
        voiceProvider: null,
        voiceId: null,
        voiceSpeed: 1,
      }),
    ).toBe(false);
    expect((await findGreeting(t.db.sql, agent.id))!.agentVersion).toBe(2);
  });

  it('answers an engine’s lookup only for this version, voice and text', async () => {
    const agent = await createAgent();
    const ready = await settledState(agent.id);
    const ask = async (overrides: Record<string, unknown>) =>
      (
        await bus.request(
          subjects.greetingAudio(),
          greetingCodecs.request.encode({
            agentId: agent.id,
            agentVersion: 1,
            text: ready.text,
            voiceProvider: null,
            voiceId: null,
            voiceSpeed: 1,
            ...overrides,
          }),
          { timeoutMs: 2_000 },
        )
      ).data;
    expect(isAudioFrame(await ask({}))).toBe(true);
    for (const miss of [
      { agentVersion: 2 },
      { text: 'Hello Ravi, thank you for calling Sunrise Dental.' },
      { voiceSpeed: 1.2 },
      { voiceId: 'slt' },
    ]) {
      expect(greetingCodecs.miss.decode(await ask(miss)), JSON.stringify(miss)).toEqual({ found: false });
    }
  });

  it('drops a deleted agent’s audio, and resume() synthesises what a stop left undone', async () => {
    const agent = await createAgent();
    await settledState(agent.id);
    expect((await t.call(org.key, { method: 'DELETE', url: `/api/v1/voice/agents/${agent.id}` })).statusCode).toBe(200);
    await greetings.settled();
    expect(await findGreeting(t.db.sql, agent.id)).toBeUndefined();

    const orphan = await createAgent({ greetingMessage: 'Welcome back to Sunrise Dental.' });
    await greetings.settled();
    await t.db.sql`delete from greeting_audio where agent_id = ${orphan.id}`; // as if the process died mid-synthesis
    expect(await greetings.resume()).toBeGreaterThanOrEqual(1);
    expect(await state(orphan.id)).toMatchObject({ status: 'ready', text: 'Welcome back to Sunrise Dental.' });
  });
});

describe('a call of an agent with a cached greeting', () => {
  let engine: EngineRole;
  let stt: WorkerRoleHandle;
  const logged: { event: string; detail?: object }[] = [];

  beforeAll(async () => {
    stt = await startSttWorkerRole(OFFLINE_SPEECH, bus, () => {});
    engine = await startEngineRole({ ...OFFLINE_SPEECH, vad: 'energy' }, bus, (event, detail) =>
      logged.push({ event, detail }),
    );
  });
  afterAll(async () => {
    await engine?.close();
    await stt?.close();
  });

  async function dispatch(agentId: string, variables: Record<string, unknown>): Promise<string> {
    const res = await t.call(org.key, { method: 'GET', url: `/api/v1/voice/agents/${agentId}?includeTools=decrypted` });
    const spec: CallSpec = {
      callId: `call${Math.random().toString(16).slice(2, 14)}`,
      organisationId: org.organisationId,
      direction: 'INBOUND',
      participant: {},
      variables,
      limits: { maxDurationMs: 60_000, inactivityMs: 30_000 },
      agent: toAgentSnapshot(res.json().data, t.secrets),
    };
    const reply = callCodecs.dispatchReply.decode(
      (await bus.request(subjects.dispatch(), callCodecs.spec.encode(spec), { timeoutMs: 10_000 })).data,
    );
    expect(reply.ok, JSON.stringify(reply)).toBe(true);
    return spec.callId;
  }

  it('takes the greeting from the cache when the call says the cached text, and synthesises a different one', async () => {
    const agent = await createAgent();
    await settledState(agent.id);
    const cachedCall = await dispatch(agent.id, { caller: 'there' });
    const personalCall = await dispatch(agent.id, { caller: 'Ravi' });
    await new Promise((r) => setTimeout(r, 1_000));
    const fromCache = logged
      .filter((l) => l.event === 'greeting from cache')
      .map((l) => (l.detail as { callId: string }).callId);
    expect(fromCache).toContain(cachedCall);
    expect(fromCache).not.toContain(personalCall);
  });
});
