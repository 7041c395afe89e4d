import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AudioChunk } from '../../src/audio/format.ts';
import { ELEVENLABS_DEFAULT_VOICE, ElevenLabsTts } from '../../src/providers/elevenlabs/elevenlabs-tts.ts';
import {
  FAKE_ELEVENLABS_MS_PER_CHAR,
  startFakeElevenLabs,
  type FakeElevenLabs,
} from '../fakes/fake-elevenlabs-server.ts';
import { tone } from '../fakes/pcm-audio.ts';
import { collect, collectFailure, expectProviderError, within } from './support.ts';

const KEY = 'xi-test-key';
const SHORT = { firstOutputMs: 300, stallMs: 300, totalMs: 3_000 };
let eleven: FakeElevenLabs;
let tts: ElevenLabsTts;

beforeAll(async () => {
  eleven = await startFakeElevenLabs({ apiKey: KEY });
  tts = new ElevenLabsTts({ apiKey: KEY, baseUrl: eleven.baseUrl, timeouts: SHORT });
});
afterAll(() => eleven.close());

function join(chunks: AudioChunk[]): Int16Array {
  const out = new Int16Array(chunks.reduce((n, c) => n + c.samples.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk.samples, at);
    at += chunk.samples.length;
  }
  return out;
}

describe('ElevenLabsTts', () => {
  it('streams pcm_16000 as 16 kHz chunks, whole samples each, from the default voice and model', async () => {
    const text = 'Thanks for calling.';
    eleven.enqueue({ chunkDelayMs: 15 });
    const before = eleven.requests.length;
    let firstChunkAt = Number.POSITIVE_INFINITY;
    const chunks: AudioChunk[] = [];
    for await (const chunk of tts.synthesize({ text }, new AbortController().signal)) {
      firstChunkAt = Math.min(firstChunkAt, performance.now());
      chunks.push(chunk);
    }
    expect(firstChunkAt).toBeLessThan((await eleven.requests[before]!.outcome).finishedAt ?? 0);
    for (const chunk of chunks) expect(chunk.sampleRate).toBe(16_000);
    expect(Array.from(join(chunks))).toEqual(Array.from(tone(text.length * FAKE_ELEVENLABS_MS_PER_CHAR, 16_000)));
    const request = eleven.requests[before];
    expect(request?.voiceId).toBe(ELEVENLABS_DEFAULT_VOICE);
    expect(request?.query.get('output_format')).toBe('pcm_16000');
    expect(request?.headers['xi-api-key']).toBe(KEY);
    expect(request?.body).toEqual({ text, model_id: 'eleven_flash_v2_5' });
  });

  it('sends the requested voice and the speed, clamped to the range ElevenLabs takes', async () => {
    const before = eleven.requests.length;
    await collect(
      tts.synthesize({ text: 'Hi.', voiceId: 'pNInz6obpgDQGcFmaJgB', speed: 2 }, new AbortController().signal),
    );
    expect(eleven.requests[before]).toMatchObject({
      voiceId: 'pNInz6obpgDQGcFmaJgB',
      body: { text: 'Hi.', model_id: 'eleven_flash_v2_5', voice_settings: { speed: 1.2 } },
    });
  });

  it('lists the account voices with gender and language where ElevenLabs says them', async () => {
    expect(await tts.voices()).toEqual([
      { id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', language: 'mul', gender: 'FEMALE' },
      { id: 'pNInz6obpgDQGcFmaJgB', name: 'Adam', language: 'mul', gender: 'MALE' },
      { id: 'clonedHindi000000001', name: 'Asha', language: 'hi-IN', gender: 'FEMALE' },
    ]);
  });

  it('maps errors: wrong key, unknown voice, unknown model, server failure', async () => {
    const wrong = new ElevenLabsTts({ apiKey: 'nope', baseUrl: eleven.baseUrl });
    const unauthorized = (await collectFailure(wrong.synthesize({ text: 'x' }, new AbortController().signal))).error;
    expectProviderError(unauthorized, 'unauthorized', 401);
    expect((unauthorized as Error).message).toContain('invalid_api_key');
    await expect(wrong.voices()).rejects.toMatchObject({ code: 'unauthorized', status: 401 });

    const unknownVoice = tts.synthesize({ text: 'x', voiceId: 'no-such-voice' }, new AbortController().signal);
    expectProviderError((await collectFailure(unknownVoice)).error, 'invalid_request', 404);
    const badModel = new ElevenLabsTts({ apiKey: KEY, baseUrl: eleven.baseUrl, modelId: 'eleven_nope' });
    expectProviderError(
      (await collectFailure(badModel.synthesize({ text: 'x' }, new AbortController().signal))).error,
      'invalid_request',
      400,
    );
    eleven.enqueue({ status: 503 });
    expectProviderError(
      (await collectFailure(tts.synthesize({ text: 'x' }, new AbortController().signal))).error,
      'upstream_failed',
      503,
    );
  });

  it('ends without an error and closes the connection when aborted mid-clause', async () => {
    eleven.enqueue({ chunkDelayMs: 30 });
    const before = eleven.requests.length;
    const controller = new AbortController();
    const chunks: AudioChunk[] = [];
    await within(
      (async () => {
        for await (const chunk of tts.synthesize({ text: 'A long enough clause to stream.' }, controller.signal)) {
          chunks.push(chunk);
          controller.abort();
        }
      })(),
      'the aborted synthesis to end',
    );
    expect(chunks).toHaveLength(1);
    expect(await within(eleven.requests[before]!.outcome, 'the fake to see the client leave')).toEqual({
      clientClosedEarly: true,
    });
  });

  it('times out when the audio stalls, and fails when the connection drops', async () => {
    eleven.enqueue({ stallAfterChunks: 1 });
    expectProviderError(
      (await collectFailure(tts.synthesize({ text: 'A long enough clause.' }, new AbortController().signal))).error,
      'upstream_timeout',
    );
    eleven.enqueue({ dropAfterChunks: 1, chunkDelayMs: 10 });
    expectProviderError(
      (await collectFailure(tts.synthesize({ text: 'A long enough clause.' }, new AbortController().signal))).error,
      'upstream_failed',
    );
  });
});
