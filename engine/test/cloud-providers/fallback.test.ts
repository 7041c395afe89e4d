import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_SAMPLE_RATE } from '../../src/audio/format.ts';
import { DeepgramStt } from '../../src/providers/deepgram/deepgram-stt.ts';
import { ElevenLabsTts } from '../../src/providers/elevenlabs/elevenlabs-tts.ts';
import { FallbackLlm } from '../../src/providers/fallback/fallback-llm.ts';
import { FallbackStt } from '../../src/providers/fallback/fallback-stt.ts';
import { FallbackTts } from '../../src/providers/fallback/fallback-tts.ts';
import type { LlmEvent } from '../../src/providers/llm-provider.ts';
import { OpenAiCompatLlm } from '../../src/providers/openai-compat/openai-llm.ts';
import { OpenAiCompatStt } from '../../src/providers/openai-compat/openai-stt.ts';
import { OpenAiCompatTts } from '../../src/providers/openai-compat/openai-tts.ts';
import { isProviderError } from '../../src/providers/provider-error.ts';
import { startFakeDeepgram, type FakeDeepgram } from '../fakes/fake-deepgram-server.ts';
import { startFakeElevenLabs, type FakeElevenLabs } from '../fakes/fake-elevenlabs-server.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai-server.ts';
import { silence, tone } from '../fakes/pcm-audio.ts';
import { collect, collectFailure, expectProviderError, within } from './support.ts';

let primaryLlm: FakeOpenAi;
let secondaryLlm: FakeOpenAi;
let eleven: FakeElevenLabs;
let deepgram: FakeDeepgram;

beforeAll(async () => {
  [primaryLlm, secondaryLlm, eleven, deepgram] = await Promise.all([
    startFakeOpenAi({ apiKey: 'sk-primary', models: ['gpt-4o-mini', 'gpt-4o'] }),
    startFakeOpenAi({ models: ['llama-3.1-8b'] }),
    startFakeElevenLabs({ apiKey: 'xi-key' }),
    startFakeDeepgram({ apiKey: 'dg-key', transcripts: ['hello from deepgram'] }),
  ]);
});
afterAll(() => Promise.all([primaryLlm.close(), secondaryLlm.close(), eleven.close(), deepgram.close()]));

const hello = { messages: [{ role: 'user' as const, content: 'Hi' }] };

function llms(primaryKey = 'sk-primary') {
  const failures: unknown[] = [];
  const provider = new FallbackLlm(
    new OpenAiCompatLlm({
      baseUrl: primaryLlm.baseUrl,
      apiKey: primaryKey,
      model: 'gpt-4o-mini',
      timeouts: { firstOutputMs: 200 },
    }),
    new OpenAiCompatLlm({ baseUrl: secondaryLlm.baseUrl, model: 'llama-3.1-8b' }),
    { onFallback: (error) => failures.push(error) },
  );
  return { provider, failures };
}
const tokens = (events: LlmEvent[]) => events.flatMap((e) => (e.type === 'token' ? [e.text] : [])).join('');

describe('FallbackLlm', () => {
  it('answers from the secondary, with its own model, when the primary fails before any token', async () => {
    primaryLlm.chat.enqueue({ error: { status: 500 } });
    secondaryLlm.chat.enqueue({ tokens: ['From ', 'the secondary.'] });
    const { provider, failures } = llms();
    const before = secondaryLlm.chat.requests.length;
    const events = await collect(provider.stream({ ...hello, model: 'gpt-4o' }, new AbortController().signal));
    expect(tokens(events)).toBe('From the secondary.');
    expect(secondaryLlm.chat.requests[before]?.body.model).toBe('llama-3.1-8b');
    expect(failures).toHaveLength(1);
    expectProviderError(failures[0], 'upstream_failed', 500);
    expect(provider.name).toBe(`${new URL(primaryLlm.baseUrl).host}/gpt-4o-mini`);
  });

  it('falls back on a wrong primary key and on a primary that never sends its first token', async () => {
    secondaryLlm.chat.enqueue({ tokens: ['one'] }, { tokens: ['two'] });
    expect(tokens(await collect(llms('sk-wrong').provider.stream(hello, new AbortController().signal)))).toBe('one');
    primaryLlm.chat.enqueue({ tokens: ['late'], stallAfterChunks: 1 });
    const { provider, failures } = llms();
    expect(tokens(await collect(provider.stream(hello, new AbortController().signal)))).toBe('two');
    expectProviderError(failures[0], 'upstream_timeout');
  });

  it('propagates a failure after tokens flowed, without asking the secondary', async () => {
    primaryLlm.chat.enqueue({ tokens: ['Your order ', 'is ', 'on '], dropAfterChunks: 3, chunkDelayMs: 20 });
    const before = secondaryLlm.chat.requests.length;
    const { provider, failures } = llms();
    const { items, error } = await collectFailure(provider.stream(hello, new AbortController().signal));
    expect(tokens(items)).toBe('Your order is ');
    expectProviderError(error, 'upstream_failed');
    expect(secondaryLlm.chat.requests.length).toBe(before);
    expect(failures).toEqual([]);
  });

  it('does not fall back when the caller aborts', async () => {
    primaryLlm.chat.enqueue({ tokens: ['x'], headerDelayMs: 150 });
    const before = secondaryLlm.chat.requests.length;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    expect(await collect(llms().provider.stream(hello, controller.signal))).toEqual([]);
    await sleep(200);
    expect(secondaryLlm.chat.requests.length).toBe(before);
  });
});

describe('FallbackTts', () => {
  const tts = (failures: unknown[]) =>
    new FallbackTts(
      new ElevenLabsTts({ apiKey: 'xi-key', baseUrl: eleven.baseUrl }),
      new OpenAiCompatTts({ baseUrl: secondaryLlm.baseUrl, model: 'tts-1' }),
      { onFallback: (error) => failures.push(error), secondaryVoice: () => 'nova' },
    );

  it('synthesises with the secondary and its own voice when the primary fails before any audio', async () => {
    eleven.enqueue({ status: 503 });
    const failures: unknown[] = [];
    const before = secondaryLlm.speech.requests.length;
    const chunks = await collect(
      tts(failures).synthesize({ text: 'Hello.', voiceId: '21m00Tcm4TlvDq8ikWAM' }, new AbortController().signal),
    );
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.every((c) => c.sampleRate === 24_000)).toBe(true);
    expect(secondaryLlm.speech.requests[before]?.body.voice).toBe('nova');
    expectProviderError(failures[0], 'upstream_failed', 503);
    expect(await tts([]).voices()).toHaveLength(3);
    expect(tts([]).name).toBe('elevenlabs');
  });

  it('propagates a failure after audio flowed: no second voice saying the clause again', async () => {
    eleven.enqueue({ dropAfterChunks: 2, chunkDelayMs: 10 });
    const before = secondaryLlm.speech.requests.length;
    const { items, error } = await collectFailure(
      tts([]).synthesize({ text: 'A clause long enough to stream.' }, new AbortController().signal),
    );
    expect(items.length).toBeGreaterThan(0);
    expectProviderError(error, 'upstream_failed');
    expect(secondaryLlm.speech.requests.length).toBe(before);
  });
});

describe('FallbackStt', () => {
  const speak = (stream: { push(s: Int16Array): void }, audio: Int16Array) => {
    for (let at = 0; at < audio.length; at += 320) stream.push(audio.subarray(at, at + 320));
  };

  it('replays the audio into the secondary when the primary fails before any transcript', async () => {
    const failures: unknown[] = [];
    const stt = new FallbackStt(
      new DeepgramStt({ apiKey: 'wrong-key', baseUrl: deepgram.baseUrl }),
      new OpenAiCompatStt({ baseUrl: secondaryLlm.baseUrl, model: 'whisper-1' }),
      { onFallback: (error) => failures.push(error) },
    );
    secondaryLlm.transcriptions.enqueue({ text: 'hello from the secondary' });
    const before = secondaryLlm.transcriptions.requests.length;
    const stream = stt.open({ language: 'en' }, new AbortController().signal);
    speak(stream, silence(200, ENGINE_SAMPLE_RATE));
    speak(stream, tone(600, ENGINE_SAMPLE_RATE));
    stream.endOfUtterance();
    stream.end();
    expect(await collect(stream)).toEqual([
      { type: 'final', text: 'hello from the secondary', startMs: 0, endMs: 800 },
    ]);
    expect(secondaryLlm.transcriptions.requests[before]?.wav.durationMs).toBe(800);
    expectProviderError(failures[0], 'unauthorized', 401);
  });

  it('propagates a failure after a transcript was delivered', async () => {
    const stt = new FallbackStt(
      new DeepgramStt({ apiKey: 'dg-key', baseUrl: deepgram.baseUrl }),
      new OpenAiCompatStt({ baseUrl: secondaryLlm.baseUrl, model: 'whisper-1' }),
    );
    const before = secondaryLlm.transcriptions.requests.length;
    const connections = deepgram.connections.length;
    const stream = stt.open({ language: 'en' }, new AbortController().signal);
    speak(stream, tone(300, ENGINE_SAMPLE_RATE));
    const reading = collectFailure(stream);
    await within(
      (async () => {
        while (!deepgram.connections[connections]?.sent.some((m) => m.type === 'Results')) await sleep(5);
      })(),
      'a first partial',
    );
    deepgram.connections[connections]?.serverClose(1011, 'boom');
    const { items, error } = await reading;
    expect(items[0]).toMatchObject({ type: 'partial' });
    expect(isProviderError(error, 'upstream_failed')).toBe(true);
    expect(secondaryLlm.transcriptions.requests.length).toBe(before);
  });
});
