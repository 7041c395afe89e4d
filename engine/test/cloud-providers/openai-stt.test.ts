import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_SAMPLE_RATE } from '../../src/audio/format.ts';
import { OpenAiCompatStt } from '../../src/providers/openai-compat/openai-stt.ts';
import type { SttEvent } from '../../src/providers/stt-provider.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai-server.ts';
import { tone } from '../fakes/pcm-audio.ts';
import { collect, collectFailure, expectProviderError, within } from './support.ts';

const KEY = 'sk-test-key';
let openai: FakeOpenAi;
let stt: OpenAiCompatStt;

beforeAll(async () => {
  openai = await startFakeOpenAi({ apiKey: KEY });
  stt = new OpenAiCompatStt({ baseUrl: openai.baseUrl, apiKey: KEY, model: 'whisper-1' });
});
afterAll(() => openai.close());

/** `ms` of tone pushed as 20 ms engine frames, as the session does. */
function speak(stream: { push(samples: Int16Array): void }, ms: number): void {
  const audio = tone(ms, ENGINE_SAMPLE_RATE);
  for (let at = 0; at < audio.length; at += 320) stream.push(audio.subarray(at, at + 320));
}

describe('OpenAiCompatStt', () => {
  it('sends each utterance as a real 16 kHz WAV and emits its transcript as a final with offsets', async () => {
    openai.transcriptions.enqueue({ text: ' I need to change my order. ' });
    const before = openai.transcriptions.requests.length;
    const stream = stt.open({ language: 'en-US', keywords: ['Parley', 'A-1042'] }, new AbortController().signal);
    speak(stream, 1_200);
    stream.endOfUtterance();
    stream.end();
    expect(await collect(stream)).toEqual([
      { type: 'final', text: 'I need to change my order.', startMs: 0, endMs: 1_200 },
    ]);
    const request = openai.transcriptions.requests[before];
    expect(request).toMatchObject({
      model: 'whisper-1',
      language: 'en',
      prompt: 'Parley, A-1042',
      responseFormat: 'json',
    });
    expect(request?.filename).toMatch(/\.wav$/);
    expect(request?.wav).toMatchObject({ sampleRate: 16_000, channels: 1, bitsPerSample: 16, durationMs: 1_200 });
    expect(Array.from(request?.wav.samples.subarray(0, 400) ?? [])).toEqual(Array.from(tone(25, ENGINE_SAMPLE_RATE)));
  });

  it('keeps the order of speech and running offsets across utterances, however slow the first answer', async () => {
    openai.transcriptions.enqueue({ text: 'first', delayMs: 150 }, { text: 'second' });
    const stream = stt.open({ language: 'en' }, new AbortController().signal);
    speak(stream, 500);
    stream.endOfUtterance();
    speak(stream, 300);
    stream.endOfUtterance();
    stream.end();
    expect(await collect(stream)).toEqual([
      { type: 'final', text: 'first', startMs: 0, endMs: 500 },
      { type: 'final', text: 'second', startMs: 500, endMs: 800 },
    ]);
  });

  it('skips utterances too short to be speech, and empty transcripts', async () => {
    openai.transcriptions.enqueue({ text: '' });
    const before = openai.transcriptions.requests.length;
    const stream = stt.open({ language: 'en' }, new AbortController().signal);
    speak(stream, 60);
    stream.endOfUtterance();
    speak(stream, 400);
    stream.end();
    expect(await collect(stream)).toEqual([]);
    expect(openai.transcriptions.requests.length).toBe(before + 1);
    expect(openai.transcriptions.requests[before]?.wav.durationMs).toBe(400);
  });

  it('fails the iteration with unauthorized on a wrong key', async () => {
    const wrong = new OpenAiCompatStt({ baseUrl: openai.baseUrl, apiKey: 'sk-wrong', model: 'whisper-1' });
    const stream = wrong.open({ language: 'en' }, new AbortController().signal);
    speak(stream, 300);
    stream.end();
    expectProviderError((await collectFailure(stream)).error, 'unauthorized', 401);
  });

  it('delivers earlier finals before failing on a later utterance', async () => {
    openai.transcriptions.enqueue({ text: 'ok' }, { status: 503 });
    const stream = stt.open({ language: 'en' }, new AbortController().signal);
    speak(stream, 300);
    stream.endOfUtterance();
    speak(stream, 300);
    stream.end();
    const { items, error } = await collectFailure(stream);
    expect(items).toEqual([{ type: 'final', text: 'ok', startMs: 0, endMs: 300 }]);
    expectProviderError(error, 'upstream_failed', 503);
  });

  it('times out a transcription that takes too long', async () => {
    const impatient = new OpenAiCompatStt({
      baseUrl: openai.baseUrl,
      apiKey: KEY,
      model: 'whisper-1',
      requestTimeoutMs: 100,
    });
    openai.transcriptions.enqueue({ text: 'late', delayMs: 500 });
    const stream = impatient.open({ language: 'en' }, new AbortController().signal);
    speak(stream, 300);
    stream.end();
    expectProviderError((await collectFailure(stream)).error, 'upstream_timeout');
  });

  it('ends quietly, with nothing more, when aborted while a transcription is in flight', async () => {
    openai.transcriptions.enqueue({ text: 'never seen', delayMs: 300 });
    const controller = new AbortController();
    const stream = stt.open({ language: 'en' }, controller.signal);
    speak(stream, 300);
    stream.endOfUtterance();
    const events: SttEvent[] = [];
    const reading = (async () => {
      for await (const event of stream) events.push(event);
    })();
    setTimeout(() => controller.abort(), 50);
    await within(reading, 'the aborted stream to end');
    expect(events).toEqual([]);
  });
});
