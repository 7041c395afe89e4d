/**
 * A call that cannot be served says why (issue 13): the engine, missing a kind of worker, refuses the dispatch with
 * advice naming what to install or set, and the 503 carries it; with no engine at all the 503 says to run one.
 * Real roles on the test bus (the NATS of NATS_URL when set): an engine role, and the workers each case leaves in.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEngineRole, startSttWorkerRole, type EngineRole, type WorkerRoleHandle } from '@parley/engine';
import type { Bus } from '@parley/engine/bus';
import { startFakeOpenAi, type FakeOpenAi } from '@parley/engine/testing';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation, seedWallet, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus, OFFLINE_SPEECH, startTestTts } from './support/workers.ts';

let bus: Bus;
let t: TestApp;
let org: SeededOrganisation;
const running: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  bus = await createIsolatedBus();
  t = await startTestApp({ bus, languageModel: false });
  org = await seedOrganisation(t.db.sql, 'Refusals');
  await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 5_000 });
}, 60_000);

afterEach(async () => {
  for (const handle of running.splice(0).reverse()) await handle.close();
});

afterAll(async () => {
  await t?.close();
  await bus?.close();
});

async function startEngine(): Promise<EngineRole> {
  const engine = await startEngineRole(
    { ...OFFLINE_SPEECH, vad: 'energy', media: { port: 0, host: '127.0.0.1' } },
    bus,
    () => {},
  );
  running.push(engine);
  return engine;
}

function keep<T extends WorkerRoleHandle | FakeOpenAi>(handle: T): T {
  running.push(handle);
  return handle;
}

/** Places a websocket call on a fresh agent (so no duplicate-dispatch window is in the way). */
async function placeWebsocketCall() {
  const created = await t.call(org.key, {
    method: 'POST',
    url: '/api/v1/voice/agents',
    payload: {
      name: 'Front desk',
      agentIdentity: 'You answer the phone.',
      agentTask: 'Help.',
      greetingMessage: 'Hello.',
    },
  });
  expect(created.statusCode, created.body).toBe(201);
  return t.call(org.key, {
    method: 'POST',
    url: '/api/v1/voice/session',
    payload: { agentId: created.json().data.id, callType: 'websocket', participantName: 'Web visitor' },
  });
}

describe('a websocket call nobody can serve', () => {
  it('names the missing speech recogniser and what to install or set', async () => {
    keep(await startTestTts(bus));
    await startEngine();
    const res = await placeWebsocketCall();
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({
      success: false,
      message: expect.stringContaining('No speech recogniser is running: install pocketsphinx and pocketsphinx-en-us'),
    });
    expect(res.json().message).toMatch(/PARLEY_STT=deepgram with DEEPGRAM_API_KEY/);
  }, 30_000);

  it('names the missing voice and what to install or set', async () => {
    // A real stt-worker role, its recogniser the local fake of OpenAI's transcription API.
    const fake = keep(await startFakeOpenAi({ apiKey: 'sk-test-key' }));
    const stt = keep(
      await startSttWorkerRole(
        { ...OFFLINE_SPEECH, sttProvider: 'openai', sttBaseUrl: fake.baseUrl, openaiApiKey: 'sk-test-key' },
        bus,
        () => {},
      ),
    );
    expect(stt.worker).toBeDefined();
    await startEngine();
    const res = await placeWebsocketCall();
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json().message).toMatch(
      /No voice is running: install flite or espeak-ng \(apt-get install flite espeak-ng\)/,
    );
  }, 30_000);

  it('says to run an engine when none answers', async () => {
    const res = await placeWebsocketCall();
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json().message).toBe(
      'The real-time media service is unavailable: no engine accepted the call ' +
        '(is a process with the engine role running? parley start runs one)',
    );
    const [row] = await t.db.sql<{ call_status: string }[]>`select call_status from call_records
      where organisation_id = ${org.organisationId} order by created_at desc limit 1`;
    expect(row?.call_status).toBe('FAILED');
  }, 30_000);
});
