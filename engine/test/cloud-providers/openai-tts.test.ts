import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AudioChunk } from '../../src/audio/format.ts';
import { OPENAI_VOICES, OpenAiCompatTts } from '../../src/providers/openai-compat/openai-tts.ts';
import { FAKE_SPEECH_SAMPLE_RATE, OPENAI_VOICE_IDS, speechMs } from '../fakes/fake-openai-audio.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai-server.ts';
import { tone } from '../fakes/pcm-audio.ts';
import { collect, collectFailure, expectProviderError, within } from './support.ts';

const KEY = 'sk-test-key';
const SHORT = { firstOutputMs: 300, stallMs: 300, totalMs: 3_000 };
let openai: FakeOpenAi;
let tts: OpenAiCompatTts;

beforeAll(async () => {
  openai = await startFakeOpenAi({ apiKey: KEY });
  tts = new OpenAiCompatTts({ baseUrl: openai.baseUrl, apiKey: KEY, model: 'tts-1', timeouts: SHORT });
});
afterAll(() => openai.close());

const samplesOf = (chunks: AudioChunk[]): number => chunks.reduce((n, c) => n + c.samples.length, 0);

describe('OpenAiCompatTts', () => {
  it('streams the clause as 24 kHz chunks, whole samples each, as the body arrives', async () => {
    const text = 'Your order shipped yesterday.';
    openai.speech.enqueue({ chunkDelayMs: 15 });
    const before = openai.speech.requests.length;
    let firstChunkAt = Number.POSITIVE_INFINITY;
    const chunks: AudioChunk[] = [];
    for await (const chunk of tts.synthesize({ text }, new AbortController().signal)) {
      firstChunkAt = Math.min(firstChunkAt, performance.now());
      chunks.push(chunk);
    }
    // The first audio came while the fake was still sending: streamed, not buffered whole.
    expect(firstChunkAt).toBeLessThan((await openai.speech.requests[before]!.outcome).finishedAt ?? 0);
    for (const chunk of chunks) expect(chunk.sampleRate).toBe(24_000);
    expect(samplesOf(chunks)).toBe((speechMs(text) * FAKE_SPEECH_SAMPLE_RATE) / 1000);
    // The fake sends odd-sized pieces: a client that dropped or misaligned the straddling byte would differ here.
    const joined = new Int16Array(samplesOf(chunks));
    let at = 0;
    for (const chunk of chunks) {
      joined.set(chunk.samples, at);
      at += chunk.samples.length;
    }
    expect(Array.from(joined)).toEqual(Array.from(tone(speechMs(text), FAKE_SPEECH_SAMPLE_RATE)));
  });

  it('asks for pcm with the default voice, or the requested one, and clamps the speed to the API range', async () => {
    const before = openai.speech.requests.length;
    await collect(tts.synthesize({ text: 'One.' }, new AbortController().signal));
    await collect(tts.synthesize({ text: 'Two.', voiceId: 'nova', speed: 9 }, new AbortController().signal));
    expect(openai.speech.requests.slice(before).map((r) => r.body)).toEqual([
      { model: 'tts-1', input: 'One.', voice: 'alloy', response_format: 'pcm' },
      { model: 'tts-1', input: 'Two.', voice: 'nova', response_format: 'pcm', speed: 4 },
    ]);
  });

  it('lists the fixed OpenAI voices, each one the endpoint accepts', async () => {
    const voices = await tts.voices();
    expect(voices.map((v) => v.id)).toEqual([
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
    expect(voices).toEqual(OPENAI_VOICES);
    for (const voice of voices) expect(OPENAI_VOICE_IDS).toContain(voice.id);
  });

  it('maps errors: wrong key, unknown voice, server failure, a JSON answer instead of audio', async () => {
    const wrong = new OpenAiCompatTts({ baseUrl: openai.baseUrl, apiKey: 'sk-wrong', model: 'tts-1' });
    expectProviderError(
      (await collectFailure(wrong.synthesize({ text: 'x' }, new AbortController().signal))).error,
      'unauthorized',
      401,
    );
    const unknownVoice = tts.synthesize({ text: 'x', voiceId: 'nobody' }, new AbortController().signal);
    expectProviderError((await collectFailure(unknownVoice)).error, 'invalid_request', 400);
    openai.speech.enqueue({ status: 500 });
    expectProviderError(
      (await collectFailure(tts.synthesize({ text: 'x' }, new AbortController().signal))).error,
      'upstream_failed',
      500,
    );
    openai.speech.enqueue({ wrongContentType: true });
    expectProviderError(
      (await collectFailure(tts.synthesize({ text: 'x' }, new AbortController().signal))).error,
      'bad_response',
    );
  });

  it('ends without an error and closes the connection when aborted mid-clause', async () => {
    openai.speech.enqueue({ chunkDelayMs: 30 });
    const before = openai.speech.requests.length;
    const controller = new AbortController();
    const chunks: AudioChunk[] = [];
    await within(
      (async () => {
        for await (const chunk of tts.synthesize(
          { text: 'A long clause that takes a while to say.' },
          controller.signal,
        )) {
          chunks.push(chunk);
          controller.abort();
        }
      })(),
      'the aborted synthesis to end',
    );
    expect(chunks).toHaveLength(1);
    expect(await within(openai.speech.requests[before]!.outcome, 'the fake to see the client leave')).toEqual({
      clientClosedEarly: true,
    });
  });

  it('times out when the audio stops flowing, after the audio that came', async () => {
    openai.speech.enqueue({ stallAfterChunks: 2 });
    const { items, error } = await collectFailure(
      tts.synthesize({ text: 'A clause long enough for several pieces.' }, new AbortController().signal),
    );
    expect(items.length).toBeGreaterThan(0);
    expectProviderError(error, 'upstream_timeout');
  });

  it('fails with upstream_failed when the connection drops mid-clause', async () => {
    openai.speech.enqueue({ dropAfterChunks: 2, chunkDelayMs: 10 });
    const { items, error } = await collectFailure(
      tts.synthesize({ text: 'A clause long enough for several pieces.' }, new AbortController().signal),
    );
    expect(items.length).toBeGreaterThan(0);
    expectProviderError(error, 'upstream_failed');
  });

  it('sends nothing for blank text', async () => {
    const before = openai.speech.requests.length;
    expect(await collect(tts.synthesize({ text: '  ' }, new AbortController().signal))).toEqual([]);
    expect(openai.speech.requests.length).toBe(before);
  });
});
