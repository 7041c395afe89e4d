/**
 * `v1.tts.voices` end to end: a TTS worker role, started as `parley start` starts it, answers over the bus with the
 * voices of its providers — the real flite and espeak-ng programs, and the cloud vendors through their documented
 * APIs (here, their local fakes).
 */
import { afterAll, afterEach, expect, it } from 'vitest';
import type { Bus } from '../../src/bus/index.ts';
import { subjects, ttsVoicesCodecs, TTS_VOICES_TIMEOUT_MS, type TtsVoicesReply } from '../../src/protocol/index.ts';
import type { EngineConfig } from '../../src/roles/engine-config.ts';
import { startTtsWorkerRole, type WorkerRoleHandle } from '../../src/roles/worker-roles.ts';
import { createEspeakTts } from '../../src/providers/espeak/espeak-tts.ts';
import { createFliteTts } from '../../src/providers/flite/flite-tts.ts';
import { startFakeElevenLabs, startFakeOpenAi } from '../fakes/index.ts';
import { describeInstalled, unavailableReason } from '../offline-speech/support/offline-speech-kit.ts';
import { fabrics } from '../support/bus-fabric.ts';

const OFFLINE: EngineConfig = { sttProvider: 'pocketsphinx', ttsProvider: 'flite' };
const ELEVENLABS_KEY = 'xi-test-key';

const offlineMissing = unavailableReason(() => createFliteTts()) ?? unavailableReason(() => createEspeakTts());

async function ask(bus: Bus, payload = ttsVoicesCodecs.request.encode({})): Promise<TtsVoicesReply> {
  const message = await bus.request(subjects.ttsVoices(), payload, { timeoutMs: TTS_VOICES_TIMEOUT_MS });
  return ttsVoicesCodecs.reply.decode(message.data);
}

async function listed(bus: Bus): Promise<Extract<TtsVoicesReply, { ok: true }>> {
  const reply = await ask(bus);
  if (!reply.ok) throw new Error(`the worker refused: ${reply.message}`);
  return reply;
}

for (const fabric of fabrics()) {
  describeInstalled(`TTS voice listing on the ${fabric.name}`, offlineMissing, () => {
    const roles: WorkerRoleHandle[] = [];
    const start = async (config: EngineConfig = OFFLINE) => {
      const role = await startTtsWorkerRole(config, await fabric.connect(), () => {});
      roles.push(role);
      return role;
    };
    afterEach(async () => {
      for (const role of roles.splice(0)) await role.close();
    });
    afterAll(() => fabric.close());

    it('answers with the real flite and espeak-ng voices, the default provider first', async () => {
      await start();
      const reply = await listed(await fabric.connect());
      expect(reply.defaultProvider).toBe('flite');
      expect(reply.providers).toEqual(['flite', 'espeak']);
      expect(reply.failures).toEqual([]);
      expect(reply.voices).toContainEqual({
        provider: 'flite',
        id: 'kal16',
        name: 'Kal (16 kHz, diphone)',
        language: 'en-US',
        gender: 'MALE',
      });
      expect(reply.voices).toContainEqual(expect.objectContaining({ provider: 'flite', id: 'slt', gender: 'FEMALE' }));
      expect(reply.voices).toContainEqual(
        expect.objectContaining({ provider: 'espeak', id: 'en-us', language: 'en-US' }),
      );
      expect(reply.voices).toContainEqual(
        expect.objectContaining({ provider: 'espeak', id: 'fr-fr', language: 'fr-FR' }),
      );
      expect(reply.voices.filter((v) => v.provider === 'espeak').length).toBeGreaterThan(50);
      expect(reply.voices.map((v) => v.id)).not.toContain('awb_time');
      // Only the contract's fields travel: espeak's own bookkeeping (priorities, served languages) stays home.
      const fields = new Set(reply.voices.flatMap((v) => Object.keys(v)));
      expect([...fields].sort()).toEqual(['gender', 'id', 'language', 'name', 'provider']);
    });

    it("lists an ElevenLabs account's voices from its API beside the offline ones", async () => {
      const eleven = await startFakeElevenLabs({ apiKey: ELEVENLABS_KEY });
      try {
        await start({
          ...OFFLINE,
          ttsProvider: 'elevenlabs',
          elevenlabsApiKey: ELEVENLABS_KEY,
          ttsBaseUrl: eleven.baseUrl,
        });
        const reply = await listed(await fabric.connect());
        expect(reply.defaultProvider).toBe('elevenlabs');
        expect(reply.providers).toEqual(['flite', 'espeak', 'elevenlabs']);
        expect(reply.voices.filter((v) => v.provider === 'elevenlabs')).toEqual([
          { provider: 'elevenlabs', id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', language: 'mul', gender: 'FEMALE' },
          { provider: 'elevenlabs', id: 'pNInz6obpgDQGcFmaJgB', name: 'Adam', language: 'mul', gender: 'MALE' },
          { provider: 'elevenlabs', id: 'clonedHindi000000001', name: 'Asha', language: 'hi-IN', gender: 'FEMALE' },
        ]);
      } finally {
        await eleven.close();
      }
    });

    it("lists OpenAI's fixed voices without a request: OpenAI's API has no voice listing", async () => {
      const openai = await startFakeOpenAi({ apiKey: 'sk-test' });
      try {
        await start({ ...OFFLINE, ttsProvider: 'openai', openaiApiKey: 'sk-test', ttsBaseUrl: openai.baseUrl });
        const reply = await listed(await fabric.connect());
        expect(reply.voices.filter((v) => v.provider === 'openai').map((v) => v.id)).toEqual([
          'alloy',
          'echo',
          'fable',
          'onyx',
          'nova',
          'shimmer',
          'ash',
          'coral',
          'sage',
        ]);
        expect(reply.voices.find((v) => v.provider === 'openai')?.language).toBe('mul');
        expect(openai.unauthorized).toBe(0);
      } finally {
        await openai.close();
      }
    });

    it('reports a provider whose listing fails and still lists the others', async () => {
      const eleven = await startFakeElevenLabs({ apiKey: ELEVENLABS_KEY });
      try {
        await start({
          ...OFFLINE,
          ttsProvider: 'elevenlabs',
          elevenlabsApiKey: 'wrong-key',
          ttsBaseUrl: eleven.baseUrl,
        });
        const reply = await listed(await fabric.connect());
        expect(reply.failures).toEqual([
          {
            provider: 'elevenlabs',
            code: 'unauthorized',
            message: expect.stringContaining('Invalid API key'),
            retryable: false,
          },
        ]);
        expect(reply.voices.some((v) => v.provider === 'elevenlabs')).toBe(false);
        expect(reply.voices).toContainEqual(expect.objectContaining({ provider: 'flite', id: 'kal16' }));
      } finally {
        await eleven.close();
      }
    });

    it('is answered by one of several workers, and by the others when one stops', async () => {
      const first = await start();
      const second = await start();
      const client = await fabric.connect();
      const answeredBy = new Set<string>();
      for (let i = 0; i < 12; i += 1) answeredBy.add((await listed(client)).workerId);
      const ids = [first.worker!.workerId, second.worker!.workerId];
      expect([...answeredBy].every((id) => ids.includes(id))).toBe(true);
      await first.close();
      for (let i = 0; i < 3; i += 1) expect((await listed(client)).workerId).toBe(second.worker!.workerId);
    });

    it('stops answering once the role is closed', async () => {
      const role = await start();
      const client = await fabric.connect();
      await listed(client);
      await role.close();
      await expect(ask(client)).rejects.toMatchObject({ code: 'no_responders' });
    });

    it('refuses a malformed request, saying so', async () => {
      await start();
      const reply = await ask(await fabric.connect(), 'not json');
      expect(reply).toMatchObject({ ok: false, code: 'bad_message', retryable: false });
    });
  });
}
