/**
 * Everything an end-to-end phone call test needs, on one isolated test bus: the control plane listening on a real
 * port (carriers fetch its webhooks), the carrier simulator as the carriers' APIs and phones, an engine role with its
 * media server, real TTS (flite), STT (pocketsphinx) and LLM (the fake OpenAI server) worker roles, the event
 * persister told to the carrier control (an engine's end hangs the carrier call up, transfers reach the carrier),
 * and an organisation with a funded wallet, the simulator's account at each carrier connected, a number at each,
 * and a VOICE agent.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { startEngineRole, startSttWorkerRole, type EngineRole, type WorkerRoleHandle } from '@parley/engine';
import type { Bus } from '@parley/engine/bus';
import { callCodecs, subjects, type CallEvent } from '@parley/engine/protocol';
import { CarrierSimulator } from '@parley/engine/testing';
import { buildApp } from '../../src/app.ts';
import { KeyStore } from '../../src/auth/key-store.ts';
import { CARRIERS, type Carrier } from '../../src/telephony/carrier.ts';
import { CallEventPersister } from '../../src/calls/events/call-event-persister.ts';
import { CarrierCallControl } from '../../src/calls/jobs/carrier-call-control.ts';
import { EngineWatch } from '../../src/calls/jobs/engine-watch.ts';
import type { VoiceCarrierName } from '../../src/carriers/voice-carriers.ts';
import { RATE_LIMIT_DEFAULTS } from '../../src/rate-limits.ts';
import { KeyRing } from '../../src/secrets/key-ring.ts';
import { IntegrationStore } from '../../src/telephony/integration-repository.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { seedOrganisation, seedPhoneNumber, seedWallet, updateAgentColumns, type SeededOrganisation } from './seed.ts';
import {
  createIsolatedBus,
  OFFLINE_SPEECH,
  startTestLlm,
  startTestTts,
  TEST_LLM_MODEL,
  type TestLlm,
} from './workers.ts';

/** Our number at each carrier. */
export const OUR_NUMBERS: Record<VoiceCarrierName, string> = {
  'carrier-a': '+14155550110',
  'carrier-b': '+14155550100',
  'carrier-c': '+919876500100',
};

export interface PhoneCallRigOptions {
  /** PARLEY_DEFAULT_CONCURRENT_CALLS: live calls the organisation may have at once (pay-as-you-go). */
  defaultConcurrentCalls?: number;
  /** The engine's recordings folder the recording route serves from; default none. */
  recordingsDir?: string;
  /** The bus to run on (a test's own NATS server, which engine processes share); default an isolated test bus. */
  bus?: Bus;
  /** Start an engine role in this process; false when the test runs its engines as processes of their own. */
  engine?: boolean;
  /** Run the control plane's engine watch (docs/architecture.md §18), told to hang carrier calls up. */
  watchEngines?: boolean;
}

export class PhoneCallRig {
  bus!: Bus;
  db!: TestDatabase;
  app!: FastifyInstance;
  publicUrl!: string;
  sim!: CarrierSimulator;
  llm!: TestLlm;
  engine: EngineRole | undefined;
  persister!: CallEventPersister;
  org!: SeededOrganisation;
  readonly secrets = KeyRing.generate('test').ring;
  #tts: WorkerRoleHandle | undefined;
  #stt: WorkerRoleHandle | undefined;
  #control: CarrierCallControl | undefined;
  #watch: EngineWatch | undefined;
  #tmp = '';
  #numberSeq = 100;

  static async start(options: PhoneCallRigOptions = {}): Promise<PhoneCallRig> {
    const rig = new PhoneCallRig();
    await rig.#start(options);
    return rig;
  }

  async #start(options: PhoneCallRigOptions): Promise<void> {
    this.#tmp = await mkdtemp(join(tmpdir(), 'parley-phone-calls-'));
    this.bus = options.bus ?? (await createIsolatedBus());
    this.db = await createTestDatabase();
    this.sim = await CarrierSimulator.start();
    this.#tts = await startTestTts(this.bus);
    this.llm = await startTestLlm(this.bus);
    this.#stt = await startSttWorkerRole(OFFLINE_SPEECH, this.bus, () => {});
    if (options.engine !== false) this.engine = await this.startEngine();
    const port = await freePort();
    this.publicUrl = `http://127.0.0.1:${port}`;
    const keys = new KeyStore(this.db.sql, this.bus, (error) => {
      throw error;
    });
    keys.listen();
    const simulated = Object.fromEntries(
      CARRIERS.map((c) => [c, c === 'carrier-a' || c === 'carrier-b' || c === 'carrier-c' ? this.sim.url : undefined]),
    ) as Record<Carrier, string | undefined>;
    this.app = await buildApp({
      config: {
        publicUrl: this.publicUrl,
        rateLimits: { ...RATE_LIMIT_DEFAULTS, callPlacement: 10_000 },
        carrierApiUrls: simulated,
        defaultConcurrentCalls: options.defaultConcurrentCalls,
      },
      sql: this.db.sql,
      bus: this.bus,
      keys,
      logger: false,
      secrets: this.secrets,
      recordingsDir: options.recordingsDir,
    });
    this.#control = new CarrierCallControl(this.app.phoneCalls.carrierCalls).listen(this.bus);
    const control = this.#control;
    if (options.watchEngines)
      this.#watch = new EngineWatch(this.db.sql, this.bus, () => {}, {
        hangUpCarrier: (callId) => control.hangUp(callId),
      }).start();
    this.persister = new CallEventPersister(this.db.sql, () => {}, { onApplied: this.#control.onEventApplied }).listen(
      this.bus,
    );
    await this.app.listen({ port, host: '127.0.0.1' });
    this.org = await seedOrganisation(this.db.sql, 'Sunrise');
    await seedWallet(this.db.sql, this.org.organisationId, { balanceMinor: 5_000 });
    await this.connectCarriers();
  }

  /** An engine role with a media server, whose turns the LLM worker role answers (against the fake). */
  startEngine(): Promise<EngineRole> {
    const languageModel = { baseUrl: this.llm.fake.baseUrl, apiKey: 'sk-test-key', model: TEST_LLM_MODEL };
    return startEngineRole(
      { ...OFFLINE_SPEECH, llm: languageModel, vad: 'energy', media: { port: 0, host: '127.0.0.1' } },
      this.bus,
      () => {},
    );
  }

  /** The simulator's account at each carrier, connected for the organisation, with our number there. */
  async connectCarriers(): Promise<void> {
    const store = new IntegrationStore(this.secrets);
    const accounts = this.sim.accounts;
    const saved = {
      'carrier-a': await store.save(this.db.sql, {
        organisationId: this.org.organisationId,
        provider: 'carrier-a',
        accountRef: accounts['carrier-a'].authId,
        config: { label: 'test' },
        credentials: { auth_id: accounts['carrier-a'].authId, auth_token: accounts['carrier-a'].authToken },
      }),
      'carrier-b': await store.save(this.db.sql, {
        organisationId: this.org.organisationId,
        provider: 'carrier-b',
        accountRef: accounts['carrier-b'].accountSid,
        config: { label: 'test' },
        credentials: { account_sid: accounts['carrier-b'].accountSid, auth_token: accounts['carrier-b'].authToken },
      }),
      'carrier-c': await store.save(this.db.sql, {
        organisationId: this.org.organisationId,
        provider: 'carrier-c',
        accountRef: accounts['carrier-c'].accountSid,
        config: { label: 'test', app_id: '1001' },
        credentials: {
          account_sid: accounts['carrier-c'].accountSid,
          api_key: accounts['carrier-c'].apiKey,
          api_token: accounts['carrier-c'].apiToken,
        },
      }),
    };
    for (const carrier of Object.keys(OUR_NUMBERS) as VoiceCarrierName[]) {
      await seedPhoneNumber(this.db.sql, this.org.organisationId, {
        provider: carrier,
        phoneNumber: OUR_NUMBERS[carrier],
      });
      await this.db.sql`update phone_numbers set integration_id = ${saved[carrier].id}
        where phone_number = ${OUR_NUMBERS[carrier]} and organisation_id = ${this.org.organisationId}`;
    }
  }

  async close(): Promise<void> {
    await this.sim?.close();
    await this.app?.close();
    await this.persister?.close();
    await this.#watch?.stop();
    await this.#control?.close();
    await this.engine?.close();
    await this.#stt?.close();
    await this.llm?.close();
    await this.#tts?.close();
    await this.db?.close();
    await this.bus?.close();
    if (this.#tmp) await rm(this.#tmp, { recursive: true, force: true });
  }

  /** The STT worker dies without a word, as a killed process does (its streams are not handed back). */
  async killSttWorker(): Promise<void> {
    await this.#stt?.worker?.stop({ handBack: false });
  }

  /** A VOICE agent calling from `callingNumber`. */
  async createAgent(callingNumber: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await this.app.inject({
      method: 'POST',
      url: '/api/v1/voice/agents',
      headers: { authorization: `Bearer ${this.org.key}` },
      payload: {
        name: 'Booking line',
        agentIdentity: 'You are the booking assistant of Sunrise Dental.',
        agentTask: 'Book appointments.',
        greetingMessage: 'Hello {{participantName}}, this is Sunrise Dental.',
        ...extra,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().data.id as string;
    await updateAgentColumns(this.db.sql, id, { calling_number: callingNumber });
    return id;
  }

  /** A fresh number to call in the country of `like` (so every call is new to the 5-second duplicate window). */
  nextNumber(like = '+1415555'): string {
    return like.startsWith('+91')
      ? `+9198765${String(this.#numberSeq++).padStart(5, '0')}`
      : `+1415555${String(this.#numberSeq++).padStart(4, '0')}`;
  }

  place(body: Record<string, unknown>, key = this.org.key) {
    return this.app.inject({
      method: 'POST',
      url: '/api/v1/voice/session',
      headers: { authorization: `Bearer ${key}` },
      payload: { participantName: 'Ravi', callType: 'sip', ...body },
    });
  }

  callback(body: Record<string, unknown>, key = this.org.key) {
    return this.app.inject({
      method: 'POST',
      url: '/api/v1/voice/callback',
      headers: { authorization: `Bearer ${key}` },
      payload: body,
    });
  }

  async record(id: string): Promise<Record<string, unknown>> {
    const [row] = await this.db.sql<Record<string, unknown>[]>`select * from call_records where id = ${id}`;
    return row!;
  }

  async transcript(callId: string): Promise<{ speaker: string; text: string }[]> {
    return this.db.sql<
      { speaker: string; text: string }[]
    >`select speaker, text from call_transcripts where call_id = ${callId} order by start_ms`;
  }

  /** The call's events as the engine publishes them. */
  watchEvents(callId: string): { events: CallEvent[]; stop(): void } {
    const events: CallEvent[] = [];
    const subscription = this.bus.subscribe(subjects.callEvents(callId));
    void (async () => {
      for await (const message of subscription) events.push(callCodecs.event.decode(message.data));
    })();
    return { events, stop: () => subscription.unsubscribe() };
  }

  /** `text` spoken by flite, as a WAV file's bytes. */
  async fliteWav(text: string): Promise<Uint8Array> {
    const file = join(this.#tmp, `say-${Date.now()}-${Math.random().toString(36).slice(2)}.wav`);
    await promisify(execFile)('flite', ['-t', text, '-o', file]);
    return readFile(file);
  }
}

export async function waitFor<T>(
  read: () => Promise<T> | T,
  ok: (value: T) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
