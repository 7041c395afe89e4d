/**
 * PocketsphinxSttProvider against the real Debian pocketsphinx, fed real speech: flite's kal16 voice (16 kHz, the
 * engine's rate, so no resampling) in 20 ms engine frames, as the STT worker feeds it.
 */
import { expect, it } from 'vitest';
import { ENGINE_FRAME_SAMPLES, ENGINE_SAMPLE_RATE, FRAME_MS } from '../../src/audio/format.ts';
import { createFliteTts } from '../../src/providers/flite/flite-tts.ts';
import { isProviderError } from '../../src/providers/provider-error.ts';
import {
  createPocketsphinxStt,
  MAX_WAITING_UTTERANCES,
  type PocketsphinxStream,
} from '../../src/providers/pocketsphinx/pocketsphinx-stt.ts';
import type { SttEvent } from '../../src/providers/stt-provider.ts';
import {
  childProcesses,
  collectAudio,
  describeInstalled,
  eventually,
  frames,
  unavailableReason,
  wordOverlap,
} from './support/offline-speech-kit.ts';

/** Sentences kal16 speaks and pocketsphinx's en-us model hears well (checked by hand; see the report for misses). */
const FIRST = 'please call me back tomorrow morning';
const SECOND = 'thank you very much goodbye';
/** Share of words that must come back: synthetic speech and a small model miss a word now and then. */
const MIN_WORD_OVERLAP = 0.6;
/** A run's child may take a moment to be reaped after SIGKILL. */
const REAP_WITHIN_MS = 1_000;

const never = () => new AbortController().signal;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function speak(text: string): Promise<Int16Array> {
  const audio = await collectAudio(createFliteTts().synthesize({ text }, never()));
  expect(audio.sampleRate).toBe(ENGINE_SAMPLE_RATE);
  return audio.samples;
}

/** Pushes `samples` in engine frames, in real time when `paced` (as a call delivers them), else all at once. */
async function feed(stream: PocketsphinxStream, samples: Int16Array, paced: boolean): Promise<void> {
  for (const frame of frames(samples, ENGINE_FRAME_SAMPLES)) {
    stream.push(frame);
    if (paced) await sleep(FRAME_MS);
  }
}

async function readAll(stream: AsyncIterable<SttEvent>): Promise<SttEvent[]> {
  const events: SttEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const installed = unavailableReason(() => {
  createFliteTts();
  createPocketsphinxStt();
});

describeInstalled('PocketsphinxSttProvider', installed, () => {
  it('transcribes a spoken sentence fed in real time, and answers soon after the utterance ends', async () => {
    const speech = await speak(FIRST);
    const stream = createPocketsphinxStt().open({ language: 'en-US' }, never());
    const first = stream[Symbol.asyncIterator]().next();
    await feed(stream, speech, true);
    const ended = performance.now();
    stream.endOfUtterance();
    const { value } = await first;
    const latency = performance.now() - ended;
    console.info(`pocketsphinx heard "${value?.text}" ${latency.toFixed(0)} ms after endOfUtterance (real-time feed)`);
    expect(value?.type).toBe('final');
    expect(wordOverlap(FIRST, value?.text ?? ''), `heard "${value?.text}"`).toBeGreaterThanOrEqual(MIN_WORD_OVERLAP);
    expect(value).toMatchObject({ startMs: 0, endMs: Math.round((speech.length * 1000) / ENGINE_SAMPLE_RATE) });
    stream.end();
  });

  it('gives two utterances two finals, in order, with increasing offsets from the stream start', async () => {
    const [one, two] = await Promise.all([speak(FIRST), speak(SECOND)]);
    const stream = createPocketsphinxStt().open({ language: 'en-US' }, never());
    const events = readAll(stream);
    const started = performance.now();
    await feed(stream, one, false);
    stream.endOfUtterance();
    await feed(stream, new Int16Array(ENGINE_SAMPLE_RATE / 2), false); // half a second of silence, its own utterance
    stream.endOfUtterance();
    await feed(stream, two, false);
    stream.end();
    const finals = (await events).filter((e) => e.type === 'final');
    console.info(
      `two utterances fed at once: ${JSON.stringify(finals)} in ${(performance.now() - started).toFixed(0)} ms`,
    );
    expect(finals, JSON.stringify(finals)).toHaveLength(2);
    const [a, b] = finals as Extract<SttEvent, { type: 'final' }>[];
    expect(wordOverlap(FIRST, a!.text), `first heard "${a!.text}"`).toBeGreaterThanOrEqual(MIN_WORD_OVERLAP);
    expect(wordOverlap(SECOND, b!.text), `second heard "${b!.text}"`).toBeGreaterThanOrEqual(MIN_WORD_OVERLAP);
    const msOf = (samples: number) => Math.round((samples * 1000) / ENGINE_SAMPLE_RATE);
    expect(a).toMatchObject({ startMs: 0, endMs: msOf(one.length) });
    expect(b).toMatchObject({
      startMs: msOf(one.length + ENGINE_SAMPLE_RATE / 2),
      endMs: msOf(one.length + ENGINE_SAMPLE_RATE / 2 + two.length),
    });
  });

  it(`holds at most ${MAX_WAITING_UTTERANCES} utterances behind the one being recognised, dropping the oldest waiting`, async () => {
    const speech = await speak(FIRST);
    const stream = createPocketsphinxStt().open({ language: 'en-US' }, never());
    const events = readAll(stream);
    // The first is being recognised; then the same sentence again, which must be the one dropped, then silences.
    for (const utterance of [
      speech,
      speech,
      ...Array.from({ length: MAX_WAITING_UTTERANCES }, () => new Int16Array(4_800)),
    ]) {
      await feed(stream, utterance, false);
      stream.endOfUtterance();
    }
    stream.end();
    const finals = await events;
    expect(finals.map((e) => e.type === 'final' && e.startMs)).toEqual([0]);
    expect(stream.droppedUtterances).toBe(1);
  });

  it('gives no final for an utterance of silence or faint noise, and ends after end()', async () => {
    const stream = createPocketsphinxStt().open({ language: 'en-US' }, never());
    const events = readAll(stream);
    await feed(stream, new Int16Array(ENGINE_SAMPLE_RATE), false);
    stream.endOfUtterance();
    const noise = Int16Array.from({ length: ENGINE_SAMPLE_RATE }, () => Math.round((Math.random() - 0.5) * 60));
    await feed(stream, noise, false);
    stream.end();
    expect(await events).toEqual([]);
  });

  it('ends at once on end() with no audio, and ignores audio pushed after end()', async () => {
    const stream = createPocketsphinxStt().open({ language: 'en-US' }, never());
    stream.end();
    stream.push(new Int16Array(ENGINE_FRAME_SAMPLES));
    expect(await readAll(stream)).toEqual([]);
    expect(childProcesses('pocketsphinx_continuous')).toEqual([]);
  });

  it('on abort ends the iterator without a final and kills the run in progress', async () => {
    const speech = await speak(FIRST);
    const abort = new AbortController();
    const stream = createPocketsphinxStt().open({ language: 'en-US' }, abort.signal);
    const events = readAll(stream);
    await feed(stream, speech, false);
    stream.endOfUtterance();
    await sleep(100); // the run is loading its model now
    expect(childProcesses('pocketsphinx_continuous').length).toBe(1);
    abort.abort();
    expect(await events).toEqual([]);
    expect(await eventually(() => childProcesses('pocketsphinx_continuous').length === 0, REAP_WITHIN_MS)).toBe(true);
  });

  it('stops when the reader stops reading (break out of for await)', async () => {
    const speech = await speak(FIRST);
    const stream = createPocketsphinxStt().open({ language: 'en-US' }, never());
    await feed(stream, speech, false);
    stream.endOfUtterance();
    await feed(stream, speech, false); // a second run, which the break must kill
    for await (const event of stream) {
      expect(event.type).toBe('final');
      break;
    }
    expect(await eventually(() => childProcesses('pocketsphinx_continuous').length === 0, REAP_WITHIN_MS)).toBe(true);
  });

  it('refuses a stream in a language the model does not know', () => {
    expect(() => createPocketsphinxStt().open({ language: 'fr-FR' }, never())).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  });

  it('reports a missing program or model as provider_unavailable when created', () => {
    for (const options of [
      { binary: '/nonexistent/pocketsphinx_continuous' },
      { hmm: '/nonexistent/en-us' },
      { lm: '/nonexistent.lm.bin' },
    ]) {
      let error: unknown;
      try {
        createPocketsphinxStt(options);
      } catch (e) {
        error = e;
      }
      expect(isProviderError(error, 'provider_unavailable'), JSON.stringify(options)).toBe(true);
    }
  });
});
