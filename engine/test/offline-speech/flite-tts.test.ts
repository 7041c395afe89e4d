/**
 * FliteTtsProvider against the real Debian flite: what it says, how fast it stops, and what it refuses.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { createFliteTts, FLITE_MAX_TEXT_CHARS } from '../../src/providers/flite/flite-tts.ts';
import { isProviderError } from '../../src/providers/provider-error.ts';
import {
  childProcesses,
  collectAudio,
  describeInstalled,
  rms,
  unavailableReason,
} from './support/offline-speech-kit.ts';

const SENTENCE = 'please call me back tomorrow morning';
/** Long enough that flite is still rendering (~0.8 s) when the test aborts. */
const LONG_TEXT = 'Please call me back tomorrow morning about the invoice. '.repeat(300);
/** An abort must end the iterable within this: SIGKILL and a reap take milliseconds, the render ~0.8 s (more on a busy machine). */
const ABORT_WITHIN_MS = 500;

const never = () => new AbortController().signal;

describeInstalled(
  'FliteTtsProvider',
  unavailableReason(() => createFliteTts()),
  () => {
    it('lists its voices with kal16 as a male US English voice, and hides the time-only awb_time', async () => {
      const voices = await createFliteTts().voices();
      expect(voices).toContainEqual(expect.objectContaining({ id: 'kal16', language: 'en-US', gender: 'MALE' }));
      expect(voices.find((v) => v.id === 'slt')?.gender).toBe('FEMALE');
      expect(voices.map((v) => v.id)).not.toContain('awb_time');
    });

    it('speaks a sentence with kal16 as 16 kHz speech of a plausible length, in ~100 ms chunks', async () => {
      const audio = await collectAudio(createFliteTts().synthesize({ text: SENTENCE }, never()));
      expect(audio.sampleRate).toBe(16_000);
      const seconds = audio.samples.length / audio.sampleRate;
      expect(seconds).toBeGreaterThan(1.5);
      expect(seconds).toBeLessThan(4);
      expect(rms(audio.samples)).toBeGreaterThan(500);
      expect(audio.chunks).toBeGreaterThanOrEqual(Math.floor(seconds * 10));
    });

    it('reads the rate from the header: the 8 kHz kal voice comes out at 8 kHz', async () => {
      const audio = await collectAudio(createFliteTts().synthesize({ text: SENTENCE, voiceId: 'kal' }, never()));
      expect(audio.sampleRate).toBe(8_000);
      expect(audio.samples.length / 8_000).toBeGreaterThan(1.5);
    });

    it('speaks faster when asked: speed 2 takes about half the time of speed 1', async () => {
      const tts = createFliteTts();
      const normal = await collectAudio(tts.synthesize({ text: SENTENCE }, never()));
      const fast = await collectAudio(tts.synthesize({ text: SENTENCE, speed: 2 }, never()));
      const ratio = fast.samples.length / normal.samples.length;
      expect(ratio).toBeGreaterThan(0.4);
      expect(ratio).toBeLessThan(0.65);
    });

    it('speaks text with quotes, a leading dash, newlines and non-ASCII characters without error', async () => {
      const text = `-v "quoted" it's $HOME; \`rm\` café — naïve “smart” 日本\nsecond line`;
      const audio = await collectAudio(createFliteTts().synthesize({ text }, never()));
      expect(audio.samples.length / audio.sampleRate).toBeGreaterThan(1);
      expect(rms(audio.samples)).toBeGreaterThan(500);
    });

    it('yields nothing for empty or blank text', async () => {
      const audio = await collectAudio(createFliteTts().synthesize({ text: ' \n ' }, never()));
      expect(audio.samples.length).toBe(0);
    });

    it('ends the iterable promptly when aborted mid-synthesis and leaves no flite process behind', async () => {
      const abort = new AbortController();
      const started = performance.now();
      setTimeout(() => abort.abort(), 100);
      const audio = await collectAudio(createFliteTts().synthesize({ text: LONG_TEXT }, abort.signal));
      const elapsed = performance.now() - started;
      expect(elapsed).toBeLessThan(100 + ABORT_WITHIN_MS);
      expect(audio.samples.length).toBe(0);
      expect(childProcesses('flite')).toEqual([]);
    });

    it('removes its temporary directory, whether it finished or was aborted', async () => {
      const previous = process.env.TMPDIR;
      const scratch = await mkdtemp(path.join(tmpdir(), 'flite-test-'));
      process.env.TMPDIR = scratch; // os.tmpdir() reads it on each call
      try {
        const tts = createFliteTts();
        await collectAudio(tts.synthesize({ text: SENTENCE }, never()));
        const abort = new AbortController();
        setTimeout(() => abort.abort(), 50);
        await collectAudio(tts.synthesize({ text: LONG_TEXT }, abort.signal));
        expect(await readdir(scratch)).toEqual([]);
      } finally {
        process.env.TMPDIR = previous;
        await rm(scratch, { recursive: true, force: true });
      }
    });

    it('does not start when the signal is already aborted', async () => {
      const abort = new AbortController();
      abort.abort();
      const audio = await collectAudio(createFliteTts().synthesize({ text: SENTENCE }, abort.signal));
      expect(audio.samples.length).toBe(0);
    });

    it('refuses an unknown voice, a path or URL as voice, another language, a bad speed and over-long text', async () => {
      const tts = createFliteTts();
      const refusals = [
        { text: 'x', voiceId: 'nobody' },
        { text: 'x', voiceId: '/usr/share/flite/voice.flitevox' },
        { text: 'x', voiceId: 'http://127.0.0.1:9/voice.flitevox' },
        { text: 'x', language: 'fr-FR' },
        { text: 'x', speed: 0 },
        { text: 'x'.repeat(FLITE_MAX_TEXT_CHARS + 1) },
      ];
      for (const request of refusals) {
        const error = await collectAudio(tts.synthesize(request, never())).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(
          isProviderError(error, 'invalid_request'),
          `${JSON.stringify(request).slice(0, 80)} → ${String(error)}`,
        ).toBe(true);
      }
    });

    it('reports a missing program as provider_unavailable when created', () => {
      let error: unknown;
      try {
        createFliteTts({ binary: '/nonexistent/flite' });
      } catch (e) {
        error = e;
      }
      expect(isProviderError(error, 'provider_unavailable')).toBe(true);
    });
  },
);
