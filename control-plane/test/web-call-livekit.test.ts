/**
 * Browser calls in LiveKit mode (LIVEKIT_URL and keys set), as far as they can run here: no LiveKit server can be
 * installed, so the room's media is not exercised. What is: POST /voice/session answers the visitor's LiveKit access
 * token and LIVEKIT_URL; both tokens (the visitor's, and the agent's handed to the engine in the dispatched spec)
 * verify with the API secret and carry the claims LiveKit enforces — one room (the call's roomName), join, publish
 * the microphone and subscribe, a 120 s life; a token under another secret is refused. The engine then really
 * tries to join the room with @livekit/rtc-node; the server is not there, so the call ends media_failed and the
 * record FAILED, with nothing left live.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TokenVerifier } from 'livekit-server-sdk';
import { startEngineRole, startSttWorkerRole, type EngineRole, type WorkerRoleHandle } from '@parley/engine';
import type { Bus } from '@parley/engine/bus';
import { callCodecs, subjects, type CallSpec } from '@parley/engine/protocol';
import { CallEventPersister } from '../src/calls/events/call-event-persister.ts';
import { LIVEKIT_TOKEN_TTL_SECONDS } from '../src/calls/launch/livekit-tokens.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { waitFor } from './support/phone-call-rig.ts';
import { seedAgent, seedOrganisation, seedWallet, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus, OFFLINE_SPEECH, startTestTts } from './support/workers.ts';

const API_KEY = 'APIparleytest';
const API_SECRET = 'parley-test-secret-of-at-least-32-characters';

let bus: Bus;
let t: TestApp;
let org: SeededOrganisation;
let engine: EngineRole;
let stt: WorkerRoleHandle;
let tts: WorkerRoleHandle;
let persister: CallEventPersister;
let livekitUrl = '';

/** A port nothing listens on: the LiveKit server that is not there. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  livekitUrl = `ws://127.0.0.1:${await closedPort()}`;
  bus = await createIsolatedBus();
  t = await startTestApp({
    bus,
    languageModel: false,
    livekit: { url: livekitUrl, apiKey: API_KEY, apiSecret: API_SECRET },
  });
  org = await seedOrganisation(t.db.sql, 'LiveKit');
  await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 5_000 });
  stt = await startSttWorkerRole(OFFLINE_SPEECH, bus, () => {});
  tts = await startTestTts(bus);
  engine = await startEngineRole(
    { ...OFFLINE_SPEECH, vad: 'energy', media: { port: 0, host: '127.0.0.1' } },
    bus,
    () => {},
  );
  persister = new CallEventPersister(t.db.sql).listen(bus);
}, 60_000);

afterAll(async () => {
  await persister?.close();
  await engine?.close();
  await stt?.close();
  await tts?.close();
  await t?.close();
  await bus?.close();
});

it('answers the visitor a LiveKit token for the call room, hands the engine the agent token, and fails cleanly without a server', async () => {
  const agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
  const dispatched = bus.subscribe(subjects.dispatch());
  const res = await t.call(org.key, {
    method: 'POST',
    url: '/api/v1/voice/session',
    payload: { agentId, callType: 'web', participantName: 'Asha' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const data = res.json().data;
  expect(data).toMatchObject({ callType: 'web', status: 'initiated', wsUrl: livekitUrl });

  const visitor = await new TokenVerifier(API_KEY, API_SECRET).verify(data.token);
  expect(visitor).toMatchObject({
    sub: `visitor-${data.sessionId}`,
    name: 'Asha',
    attributes: { 'parley.role': 'visitor' },
    video: {
      room: data.roomName,
      roomJoin: true,
      canPublish: true,
      canSubscribe: true,
      canPublishData: false,
      canPublishSources: ['microphone'],
    },
  });
  expect(JSON.parse(visitor.metadata!)).toEqual({ callId: data.sessionId });
  const { exp, nbf } = visitor as unknown as { exp: number; nbf: number };
  expect(exp - nbf).toBe(LIVEKIT_TOKEN_TTL_SECONDS);
  await expect(
    new TokenVerifier(API_KEY, 'another-secret-of-at-least-32-characters!').verify(data.token),
  ).rejects.toThrow();

  let spec: CallSpec | undefined;
  for await (const message of dispatched) {
    spec = callCodecs.spec.decode(message.data);
    break;
  }
  expect(spec?.livekit).toMatchObject({ url: livekitUrl, room: data.roomName });
  const agent = await new TokenVerifier(API_KEY, API_SECRET).verify(spec!.livekit!.token);
  expect(agent).toMatchObject({
    sub: `agent-${data.sessionId}`,
    attributes: { 'parley.role': 'agent' },
    video: { room: data.roomName, roomJoin: true, canPublish: true, canSubscribe: true },
  });

  // The engine tried the room at once; nothing is there, so the call is given up and the record finished.
  const row = await waitFor(
    async () =>
      (await t.db.sql<Record<string, unknown>[]>`select * from call_records where id = ${data.sessionId}`)[0]!,
    (r) => r.ended_at !== null,
    'the record to end',
  );
  expect(row).toMatchObject({ call_type: 'web', call_status: 'FAILED', meta_data: { transport: 'livekit' } });
  expect(engine.activeCalls).toBe(0);
}, 30_000);
