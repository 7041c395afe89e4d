import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_SAMPLE_RATE } from '../../src/audio/format.ts';
import { DeepgramStt, listenUrl } from '../../src/providers/deepgram/deepgram-stt.ts';
import type { SttEvent, SttStream } from '../../src/providers/stt-provider.ts';
import { startFakeDeepgram, type FakeDeepgram } from '../fakes/fake-deepgram-server.ts';
import { silence, tone } from '../fakes/pcm-audio.ts';
import { collect, collectFailure, expectProviderError, within } from './support.ts';

const KEY = 'dg-test-key';
let deepgram: FakeDeepgram;
let stt: DeepgramStt;

beforeAll(async () => {
  deepgram = await startFakeDeepgram({ apiKey: KEY, transcripts: ['I need to change my order.'] });
  stt = new DeepgramStt({ apiKey: KEY, baseUrl: deepgram.baseUrl });
});
afterAll(() => deepgram.close());

/** Pushes `audio` as 20 ms engine frames. */
function push(stream: SttStream, audio: Int16Array): void {
  for (let at = 0; at < audio.length; at += 320) stream.push(audio.subarray(at, at + 320));
}
const speech = (ms: number) => tone(ms, ENGINE_SAMPLE_RATE);
const quiet = (ms: number) => silence(ms, ENGINE_SAMPLE_RATE);

describe('DeepgramStt', () => {
  it('streams partials, then one final with offsets in ms, and ends after CloseStream when the server closes', async () => {
    const before = deepgram.connections.length;
    const stream = stt.open({ language: 'en-US', keywords: ['Parley'] }, new AbortController().signal);
    push(stream, quiet(300));
    push(stream, speech(800));
    push(stream, quiet(400));
    stream.end();
    const events = await collect(stream);
    expect(events.filter((e) => e.type === 'partial').map((e) => e.text)).toEqual([
      'I',
      'I need',
      'I need to',
      'I need to change',
    ]);
    expect(events.at(-1)).toEqual({
      type: 'final',
      text: 'I need to change my order.',
      startMs: 300,
      endMs: 1_100,
      confidence: 0.97,
    });

    const connection = deepgram.connections[before]!;
    expect(connection.headers.authorization).toBe(`Token ${KEY}`);
    expect(Object.fromEntries(connection.query)).toEqual({
      encoding: 'linear16',
      sample_rate: '16000',
      channels: '1',
      model: 'nova-3',
      language: 'en-US',
      interim_results: 'true',
      punctuate: 'true',
      keyterm: 'Parley',
    });
    expect(connection.audioBytes).toBe(1_500 * 32);
    expect(connection.closeStreamReceived).toBe(true);
    expect(await connection.closed).toEqual({ code: 1000, byServer: true });
  });

  it('sends Finalize at the end of an utterance and emits the final without waiting for endpointing', async () => {
    const before = deepgram.connections.length;
    const stream = stt.open({ language: 'en' }, new AbortController().signal);
    const events: SttEvent[] = [];
    const reading = (async () => {
      for await (const event of stream) events.push(event);
    })();
    push(stream, speech(500));
    stream.endOfUtterance();
    await within(
      (async () => {
        while (!events.some((e) => e.type === 'final')) await sleep(5);
      })(),
      'the final after Finalize',
    );
    expect(deepgram.connections[before]?.finalizes).toBe(1);
    expect(events.find((e) => e.type === 'final')).toMatchObject({ startMs: 0, endMs: 500 });
    stream.end();
    await within(reading, 'the stream to end');
  });

  it('joins an utterance Deepgram settles in several segments into one final', async () => {
    const segmented = await startFakeDeepgram({ apiKey: KEY, transcripts: ['one two three four'], finalSegments: 2 });
    try {
      const stream = new DeepgramStt({ apiKey: KEY, baseUrl: segmented.baseUrl }).open(
        { language: 'en' },
        new AbortController().signal,
      );
      push(stream, speech(400));
      push(stream, quiet(400));
      stream.end();
      const finals = (await collect(stream)).filter((e) => e.type === 'final');
      expect(finals).toEqual([{ type: 'final', text: 'one two three four', startMs: 0, endMs: 400, confidence: 0.97 }]);
      expect(segmented.connections[0]?.sent.filter((m) => m.is_final === true)).toHaveLength(2);
    } finally {
      await segmented.close();
    }
  });

  it('keeps a silent stream open with KeepAlive text messages', async () => {
    // Idle limit 400 ms, KeepAlive every 60 ms: wide margins, so a busy machine's late timers cannot flake it.
    const strict = await startFakeDeepgram({ apiKey: KEY, idleTimeoutMs: 400 });
    try {
      const stream = new DeepgramStt({ apiKey: KEY, baseUrl: strict.baseUrl, keepAliveMs: 60 }).open(
        { language: 'en' },
        new AbortController().signal,
      );
      await sleep(900);
      stream.end();
      expect(await collect(stream)).toEqual([]);
      expect(strict.connections[0]?.keepAlives).toBeGreaterThanOrEqual(3);
      expect(await strict.connections[0]?.closed).toEqual({ code: 1000, byServer: true });
    } finally {
      await strict.close();
    }
  });

  it('fails with upstream_failed when the server closes an idle stream (NET-0001)', async () => {
    const strict = await startFakeDeepgram({ apiKey: KEY, idleTimeoutMs: 100 });
    try {
      const stream = new DeepgramStt({ apiKey: KEY, baseUrl: strict.baseUrl, keepAliveMs: 60_000 }).open(
        { language: 'en' },
        new AbortController().signal,
      );
      const { error } = await collectFailure(stream);
      expectProviderError(error, 'upstream_failed');
      expect((error as Error).message).toContain('1011 NET-0001');
    } finally {
      await strict.close();
    }
  });

  it('delivers what was settled before a server-side failure', async () => {
    const before = deepgram.connections.length;
    const stream = stt.open({ language: 'en' }, new AbortController().signal);
    push(stream, speech(300));
    push(stream, quiet(400));
    await within(
      (async () => {
        while (!deepgram.connections[before]?.sent.some((m) => m.speech_final === true)) await sleep(5);
      })(),
      'the fake to settle the utterance',
    );
    deepgram.connections[before]?.serverClose(1011, 'internal');
    const { items, error } = await collectFailure(stream);
    expect(items.at(-1)).toMatchObject({ type: 'final', startMs: 0, endMs: 300 });
    expectProviderError(error, 'upstream_failed');
  });

  it('maps refused handshakes: wrong key, too many streams, unknown model', async () => {
    const wrong = new DeepgramStt({ apiKey: 'nope', baseUrl: deepgram.baseUrl }).open(
      { language: 'en' },
      new AbortController().signal,
    );
    const unauthorized = (await collectFailure(wrong)).error;
    expectProviderError(unauthorized, 'unauthorized', 401);
    expect((unauthorized as Error).message).toContain('INVALID_AUTH');

    deepgram.refuseNext(429, 'TOO_MANY_REQUESTS', 'Too many requests.');
    expectProviderError(
      (await collectFailure(stt.open({ language: 'en' }, new AbortController().signal))).error,
      'rate_limited',
      429,
    );

    const badModel = new DeepgramStt({ apiKey: KEY, baseUrl: deepgram.baseUrl, model: 'nova-9' });
    expectProviderError(
      (await collectFailure(badModel.open({ language: 'en' }, new AbortController().signal))).error,
      'invalid_request',
      400,
    );
  });

  it('times out a handshake nobody answers', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `ws://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
      const stream = new DeepgramStt({ apiKey: KEY, baseUrl, connectTimeoutMs: 150 }).open(
        { language: 'en' },
        new AbortController().signal,
      );
      expectProviderError((await collectFailure(stream)).error, 'upstream_timeout');
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('ends quietly and closes the socket when aborted', async () => {
    const controller = new AbortController();
    const before = deepgram.connections.length;
    const stream = stt.open({ language: 'en' }, controller.signal);
    push(stream, quiet(300));
    await within(
      (async () => {
        while ((deepgram.connections[before]?.audioBytes ?? 0) === 0) await sleep(5);
      })(),
      'audio to reach the fake',
    );
    const connection = deepgram.connections[before]!;
    const reading = collect(stream);
    controller.abort();
    expect(await reading).toEqual([]);
    expect(await within(connection.closed, 'the socket to close')).toEqual({ code: 1000, byServer: false });
  });

  it('closes the socket when the reader stops early', async () => {
    const before = deepgram.connections.length;
    const stream = stt.open({ language: 'en' }, new AbortController().signal);
    push(stream, speech(600));
    for await (const event of stream) {
      expect(event.type).toBe('partial');
      break;
    }
    expect(await within(deepgram.connections[before]!.closed, 'the socket to close')).toMatchObject({
      byServer: false,
    });
  });

  it('picks the model by sttMode and boosts keywords the way older models take them', () => {
    const url = new URL(
      listenUrl(
        { apiKey: KEY, modelByMode: { INDIA: 'nova-2' }, extraParams: { smart_format: 'true' } },
        { language: 'hi', mode: 'INDIA', keywords: ['Parley', 'UPI'] },
      ),
    );
    expect(url.origin + url.pathname).toBe('wss://api.deepgram.com/v1/listen');
    expect(url.searchParams.get('model')).toBe('nova-2');
    expect(url.searchParams.getAll('keywords')).toEqual(['Parley', 'UPI']);
    expect(url.searchParams.get('smart_format')).toBe('true');
  });
});
