/**
 * EspeakWasmTtsProvider with the real npm package espeak-ng running in its own program: format, length and level
 * of its speech, voice choice, and the program's life (one child serving many requests, started again after it
 * dies, stopped by close). Needs no Debian package, so it runs on every machine `npm ci` has set up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEspeakWasmTts, type EspeakWasmTtsProvider } from '../../src/providers/espeak-wasm/index.ts';
import { childProcesses, collectAudio, eventually, rms } from './support/offline-speech-kit.ts';

const never = () => new AbortController().signal;
/** The first request waits for node to start and compile the 18 MB module: seconds on a busy two-core machine. */
const FIRST_REQUEST_MS = 60_000;

/** Share of 20 ms frames louder than `level`: speech has words and gaps; a tone or noise would be all or nothing. */
function voicedShare(samples: Int16Array, sampleRate: number, level = 300): number {
  const frame = Math.round(sampleRate * 0.02);
  let voiced = 0;
  let frames = 0;
  for (let at = 0; at + frame <= samples.length; at += frame) {
    frames += 1;
    if (rms(samples.subarray(at, at + frame)) > level) voiced += 1;
  }
  return voiced / Math.max(1, frames);
}

describe('EspeakWasmTtsProvider', () => {
  const made: EspeakWasmTtsProvider[] = [];
  const tts = () => {
    const provider = createEspeakWasmTts();
    made.push(provider);
    return provider;
  };
  afterEach(async () => {
    await Promise.all(made.splice(0).map((provider) => provider.close()));
  });

  it(
    'speaks "Hello world" as 22 050 Hz speech of a plausible length and level',
    async () => {
      const audio = await collectAudio(tts().synthesize({ text: 'Hello world' }, never()));
      expect(audio.sampleRate).toBe(22_050);
      const seconds = audio.samples.length / audio.sampleRate;
      expect(seconds).toBeGreaterThan(0.6);
      expect(seconds).toBeLessThan(2.5);
      expect(rms(audio.samples)).toBeGreaterThan(500);
      const voiced = voicedShare(audio.samples, audio.sampleRate);
      expect(voiced).toBeGreaterThan(0.3);
      expect(voiced).toBeLessThan(0.98);
      expect(audio.chunks).toBeGreaterThan(1); // handed out in ~100 ms slices
    },
    FIRST_REQUEST_MS,
  );

  it(
    'serves many requests from one program, each in well under a second once it runs',
    async () => {
      const provider = tts();
      await collectAudio(provider.synthesize({ text: 'Warming up.' }, never()));
      const started = performance.now();
      for (const text of ['Please call me back tomorrow morning.', 'Your order has shipped.', 'Goodbye.'])
        expect(rms((await collectAudio(provider.synthesize({ text }, never()))).samples)).toBeGreaterThan(500);
      // ~40 ms each on an idle machine; the bound is for a starved one, and far below a restart per request (~2 s).
      expect((performance.now() - started) / 3).toBeLessThan(1_500);
      expect(childProcesses('node')).toHaveLength(1);
    },
    FIRST_REQUEST_MS,
  );

  it(
    'maps speed to words per minute, picks voices by id, variant and language, and lists them',
    async () => {
      const provider = tts();
      const length = async (speed: number) =>
        (await collectAudio(provider.synthesize({ text: 'Please call me back tomorrow morning.', speed }, never())))
          .samples.length;
      const normal = await length(1);
      expect((await length(2)) / normal).toBeLessThan(0.7);
      const german = await collectAudio(provider.synthesize({ text: 'Guten Morgen', language: 'de-DE' }, never()));
      const female = await collectAudio(provider.synthesize({ text: 'Good morning', voiceId: 'en-us+f3' }, never()));
      expect(rms(german.samples)).toBeGreaterThan(500);
      expect(rms(female.samples)).toBeGreaterThan(500);
      const voices = await provider.voices();
      expect(voices).toContainEqual(expect.objectContaining({ id: 'en-us', language: 'en-US' }));
      expect(voices).toContainEqual(expect.objectContaining({ id: 'fr-fr', language: 'fr-FR' }));
    },
    FIRST_REQUEST_MS,
  );

  it(
    'speaks text with a leading dash, quotes and non-ASCII characters, and refuses an unknown voice',
    async () => {
      const provider = tts();
      const text = `-v "quoted" it's $HOME; café — naïve “smart” 日本\nsecond line`;
      const audio = await collectAudio(provider.synthesize({ text }, never()));
      expect(audio.samples.length / audio.sampleRate).toBeGreaterThan(1);
      await expect(
        collectAudio(provider.synthesize({ text: 'Hi', voiceId: 'xx-nobody' }, never())),
      ).rejects.toMatchObject({ code: 'invalid_request', provider: 'espeak-wasm' });
    },
    FIRST_REQUEST_MS,
  );

  it(
    'starts the program again after it dies, and close() leaves no program behind',
    async () => {
      const provider = tts();
      await collectAudio(provider.synthesize({ text: 'Hello' }, never()));
      const [first] = childProcesses('node');
      expect(first).toBeDefined();
      process.kill(first!, 'SIGKILL');
      expect(await eventually(() => !childProcesses('node').includes(first!), 5_000)).toBe(true);
      const again = await collectAudio(provider.synthesize({ text: 'Hello again' }, never()));
      expect(rms(again.samples)).toBeGreaterThan(500);
      expect(childProcesses('node')).toHaveLength(1);
      await provider.close();
      expect(childProcesses('node')).toEqual([]);
    },
    2 * FIRST_REQUEST_MS,
  );
});
