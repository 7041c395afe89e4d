/**
 * GET /voice/voices end to end: the control plane asks the TTS workers over the bus (`v1.tts.voices`), and a real
 * tts-worker role answers with this machine's flite and espeak-ng voices.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Bus } from '@parley/engine/bus';
import type { WorkerRoleHandle } from '@parley/engine';
import { VOICES_CACHE_TTL_MS } from '../src/voices/voice-catalogue.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedMember, seedOrganisation, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus, OFFLINE_SPEECH, startFakeElevenLabs, startTestTts } from './support/workers.ts';

interface Voice {
  provider: string;
  id: string;
  name: string;
  language: string;
  gender?: string;
}

let bus: Bus;
let t: TestApp;
let tts: WorkerRoleHandle;
let org: SeededOrganisation;

beforeAll(async () => {
  bus = await createIsolatedBus();
  t = await startTestApp({ bus });
  tts = await startTestTts(bus);
  org = await seedOrganisation(t.db.sql);
});
afterAll(async () => {
  await tts?.close();
  await t?.close();
  await bus?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

const voices = (app: TestApp, key: string, query: Record<string, string> = {}) =>
  app.call(key, { method: 'GET', url: '/api/v1/voice/voices', query });

describe('GET /voice/voices', () => {
  it("lists the TTS workers' real flite and espeak-ng voices, the default provider first", async () => {
    const res = await voices(t, org.key);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as { voices: Voice[]; total: number; providers: unknown[] };
    expect(data.providers).toEqual([
      { name: 'flite', default: true, available: true },
      { name: 'espeak', default: false, available: true },
    ]);
    expect(data.total).toBe(data.voices.length);
    expect(data.voices[0]!.provider).toBe('flite');
    expect(data.voices).toContainEqual({
      provider: 'flite',
      id: 'kal16',
      name: 'Kal (16 kHz, diphone)',
      language: 'en-US',
      gender: 'MALE',
    });
    expect(data.voices).toContainEqual(expect.objectContaining({ provider: 'espeak', id: 'en-us', language: 'en-US' }));
    expect(data.voices.filter((v) => v.provider === 'espeak').length).toBeGreaterThan(50);
  });

  it('filters by provider, language and gender', async () => {
    const espeak = (await voices(t, org.key, { provider: 'espeak' })).json().data.voices as Voice[];
    expect(espeak.length).toBeGreaterThan(50);
    expect(espeak.every((v) => v.provider === 'espeak')).toBe(true);

    const french = (await voices(t, org.key, { language: 'fr' })).json().data.voices as Voice[];
    expect(french.length).toBeGreaterThan(0);
    expect(french.every((v) => v.language.toLowerCase().startsWith('fr'))).toBe(true);
    expect(french).toContainEqual(expect.objectContaining({ provider: 'espeak', id: 'fr-fr' }));

    const usEnglish = (await voices(t, org.key, { language: 'EN-us' })).json().data.voices as Voice[];
    expect(usEnglish.map((v) => v.id)).toEqual(expect.arrayContaining(['kal16', 'slt', 'en-us']));
    expect(usEnglish.map((v) => v.id)).not.toContain('awb'); // Scottish English: en-GB

    const femaleFlite = await voices(t, org.key, { provider: 'flite', gender: 'FEMALE' });
    expect(femaleFlite.json().data).toMatchObject({
      total: 1,
      voices: [{ provider: 'flite', id: 'slt', gender: 'FEMALE' }],
    });

    const nobody = (await voices(t, org.key, { provider: 'no-such-provider' })).json().data;
    expect(nobody).toMatchObject({ voices: [], total: 0 });
    expect(nobody.providers).toHaveLength(2); // the providers there are, to pick from
  });

  it('refuses a malformed filter, naming it', async () => {
    const gender = await voices(t, org.key, { gender: 'female' });
    expect(gender.statusCode).toBe(400);
    expect(gender.json().errors).toEqual([{ field: 'gender', message: 'must be one of: MALE, FEMALE, NEUTRAL' }]);
    const language = await voices(t, org.key, { language: 'English please' });
    expect(language.statusCode).toBe(400);
    expect(language.json().errors[0].field).toBe('language');
  });

  it('needs agents:read', async () => {
    const reader = await seedMember(t.db.sql, org.organisationId, 'VIEWER', ['agents:read']);
    expect((await voices(t, reader.key)).statusCode).toBe(200);
    const other = await seedMember(t.db.sql, org.organisationId, 'VIEWER', ['calls:read']);
    const refused = await voices(t, other.key);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('insufficient_scope');
  });

  it('is documented in the OpenAPI document with its response shape', async () => {
    const doc = (await t.call(undefined, { method: 'GET', url: '/api/v1/openapi.json' })).json();
    const operation = doc.paths['/api/v1/voice/voices'].get;
    const data = operation.responses['200'].content['application/json'].schema.properties.data;
    expect(Object.keys(data.properties)).toEqual(['voices', 'total', 'providers']);
    expect(Object.keys(data.properties.voices.items.properties)).toEqual([
      'provider',
      'id',
      'name',
      'language',
      'gender',
    ]);
    expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual(['provider', 'language', 'gender']);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '503']));
  });
});

describe('GET /voice/voices without a TTS worker', () => {
  it('answers 503 saying no TTS worker answered', async () => {
    const lonely = await startTestApp({ db: t.db, bus: await createIsolatedBus() });
    try {
      const res = await voices(lonely, org.key);
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({
        success: false,
        code: 'unavailable',
        message: expect.stringContaining('No text-to-speech worker answered'),
      });
    } finally {
      await lonely.close();
      await lonely.bus.close();
    }
  });

  it('serves the cached list for a minute after the workers went away, then 503', async () => {
    const ownBus = await createIsolatedBus();
    const app = await startTestApp({ db: t.db, bus: ownBus });
    const worker = await startTestTts(ownBus);
    try {
      expect((await voices(app, org.key)).statusCode).toBe(200);
      await worker.close();
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + VOICES_CACHE_TTL_MS - 1_000);
      expect((await voices(app, org.key)).statusCode).toBe(200);
      vi.setSystemTime(Date.now() + 2_000);
      expect((await voices(app, org.key)).statusCode).toBe(503);
    } finally {
      await worker.close();
      await app.close();
      await ownBus.close();
    }
  });
});

describe('GET /voice/voices with a cloud provider that cannot list its voices', () => {
  it('reports that provider unavailable with its reason, and still lists the others', async () => {
    const eleven = await startFakeElevenLabs({ apiKey: 'xi-right-key' });
    const ownBus = await createIsolatedBus();
    const app = await startTestApp({ db: t.db, bus: ownBus });
    const worker = await startTestTts(ownBus, {
      ...OFFLINE_SPEECH,
      ttsProvider: 'elevenlabs',
      elevenlabsApiKey: 'xi-wrong-key',
      ttsBaseUrl: eleven.baseUrl,
    });
    try {
      const data = (await voices(app, org.key)).json().data as { voices: Voice[]; providers: unknown[] };
      expect(data.providers).toEqual([
        { name: 'flite', default: false, available: true },
        { name: 'espeak', default: false, available: true },
        { name: 'elevenlabs', default: true, available: false, message: expect.stringContaining('Invalid API key') },
      ]);
      expect(data.voices.some((v) => v.provider === 'elevenlabs')).toBe(false);
      expect(data.voices).toContainEqual(expect.objectContaining({ provider: 'flite', id: 'kal16' }));
    } finally {
      await worker.close();
      await app.close();
      await ownBus.close();
      await eleven.close();
    }
  });

  it("lists the account's voices when the key is right, multilingual ones matching any language", async () => {
    const eleven = await startFakeElevenLabs({ apiKey: 'xi-right-key' });
    const ownBus = await createIsolatedBus();
    const app = await startTestApp({ db: t.db, bus: ownBus });
    const worker = await startTestTts(ownBus, {
      ...OFFLINE_SPEECH,
      ttsProvider: 'elevenlabs',
      elevenlabsApiKey: 'xi-right-key',
      ttsBaseUrl: eleven.baseUrl,
    });
    try {
      const hindi = (await voices(app, org.key, { language: 'hi', provider: 'elevenlabs' })).json().data
        .voices as Voice[];
      // Rachel and Adam speak every language of the multilingual model (`mul`); Asha is verified for hi-IN.
      expect(hindi.map((v) => v.name)).toEqual(['Rachel', 'Adam', 'Asha']);
      const all = (await voices(app, org.key)).json().data.voices as Voice[];
      expect(all[0]!.provider).toBe('elevenlabs'); // the default provider first
    } finally {
      await worker.close();
      await app.close();
      await ownBus.close();
      await eleven.close();
    }
  });
});
