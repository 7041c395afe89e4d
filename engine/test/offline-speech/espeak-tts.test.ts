/**
 * EspeakTtsProvider against the real Debian espeak-ng: format, length, level and voice choice of its speech (not
 * recognition: pocketsphinx's model is tuned to natural voices, and espeak-ng's 22 050 Hz would need resampling).
 */
import { expect, it } from 'vitest';
import { createEspeakTts } from '../../src/providers/espeak/espeak-tts.ts';
import { isProviderError } from '../../src/providers/provider-error.ts';
import {
  childProcesses,
  collectAudio,
  describeInstalled,
  rms,
  unavailableReason,
} from './support/offline-speech-kit.ts';

const SENTENCE = 'Please call me back tomorrow morning.';
/** Long enough (~15 min of speech) that espeak-ng is still streaming when the test aborts. */
const LONG_TEXT = 'Please call me back tomorrow morning about the invoice. '.repeat(300);
/** An abort must end the iterable within this: SIGKILL and a reap take milliseconds; the margin is for a busy machine. */
const ABORT_WITHIN_MS = 500;

const never = () => new AbortController().signal;

describeInstalled(
  'EspeakTtsProvider',
  unavailableReason(() => createEspeakTts()),
  () => {
    it('lists espeak-ng voices with BCP-47 languages, en-us among them', async () => {
      const voices = await createEspeakTts().voices();
      expect(voices.length).toBeGreaterThan(50);
      expect(voices).toContainEqual(
        expect.objectContaining({ id: 'en-us', language: 'en-US', name: 'English (America)' }),
      );
      expect(new Set(voices.map((v) => v.id)).size).toBe(voices.length);
    });

    it('speaks a sentence as 22 050 Hz speech of a plausible length', async () => {
      const audio = await collectAudio(createEspeakTts().synthesize({ text: SENTENCE }, never()));
      expect(audio.sampleRate).toBe(22_050);
      const seconds = audio.samples.length / audio.sampleRate;
      expect(seconds).toBeGreaterThan(1.5);
      expect(seconds).toBeLessThan(4);
      expect(rms(audio.samples)).toBeGreaterThan(500);
    });

    it('maps speed to words per minute: speed 2 takes about half the time, 0.5 about twice', async () => {
      const tts = createEspeakTts();
      const length = async (speed: number) =>
        (await collectAudio(tts.synthesize({ text: SENTENCE, speed }, never()))).samples.length;
      const normal = await length(1);
      expect((await length(2)) / normal).toBeLessThan(0.7);
      expect((await length(0.5)) / normal).toBeGreaterThan(1.6);
    });

    it('picks a voice by language, and takes a voice id with a variant', async () => {
      const tts = createEspeakTts();
      const german = await collectAudio(tts.synthesize({ text: 'Guten Morgen', language: 'de-DE' }, never()));
      const female = await collectAudio(tts.synthesize({ text: SENTENCE, voiceId: 'en-us+f3' }, never()));
      expect(rms(german.samples)).toBeGreaterThan(500);
      expect(rms(female.samples)).toBeGreaterThan(500);
    });

    it('speaks text with quotes, a leading dash, newlines and non-ASCII characters without error', async () => {
      const text = `-v "quoted" it's $HOME; \`rm\` café — naïve “smart” 日本\nsecond line`;
      const audio = await collectAudio(createEspeakTts().synthesize({ text }, never()));
      expect(audio.samples.length / audio.sampleRate).toBeGreaterThan(1);
    });

    it('streams: the first chunk arrives long before a long text is fully rendered', async () => {
      const abort = new AbortController();
      const started = performance.now();
      for await (const chunk of createEspeakTts().synthesize({ text: LONG_TEXT }, abort.signal)) {
        expect(chunk.samples.length).toBeGreaterThan(0);
        break;
      }
      expect(performance.now() - started).toBeLessThan(1_000); // ~40 ms here; the whole text takes ~1 s
      expect(childProcesses('espeak-ng')).toEqual([]);
    });

    it('ends the iterable promptly when aborted mid-stream and leaves no espeak-ng process behind', async () => {
      const abort = new AbortController();
      let samples = 0;
      let abortedAt = 0;
      for await (const chunk of createEspeakTts().synthesize({ text: LONG_TEXT }, abort.signal)) {
        samples += chunk.samples.length;
        if (abortedAt === 0 && samples > 22_050) {
          abortedAt = performance.now();
          abort.abort();
        }
      }
      expect(performance.now() - abortedAt).toBeLessThan(ABORT_WITHIN_MS);
      // ~15 minutes of speech were asked for; far less than a minute came out.
      expect(samples / 22_050).toBeLessThan(60);
      expect(childProcesses('espeak-ng')).toEqual([]);
    });

    it('refuses an unknown voice or variant, a language no voice speaks, and a bad speed', async () => {
      const tts = createEspeakTts();
      for (const request of [
        { text: 'x', voiceId: 'nobody' },
        { text: 'x', voiceId: 'en-us+nobody' },
        { text: 'x', language: 'tlh' },
        { text: 'x', speed: -1 },
      ]) {
        const error = await collectAudio(tts.synthesize(request, never())).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isProviderError(error, 'invalid_request'), `${JSON.stringify(request)} → ${String(error)}`).toBe(true);
      }
    });

    it('reports a missing program as provider_unavailable when created', () => {
      expect(() => createEspeakTts({ binary: '/nonexistent/espeak-ng' })).toThrow(
        expect.objectContaining({ code: 'provider_unavailable' }),
      );
    });
  },
);
