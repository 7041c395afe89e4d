/**
 * Text to speech with espeak-ng built to WebAssembly (npm package `espeak-ng`), which `npm ci` installs: the voice
 * a machine without Debian's flite or espeak-ng still speaks with. The same espeak-ng as the Debian package, so the
 * same voices, voice ids and rates (../espeak/), at the same 22 050 Hz (the caller resamples); it renders a clause
 * whole (50-100 ms for a sentence) rather than streaming it. It runs in espeak-wasm-program.mjs, a child process kept
 * alive between requests (espeak-wasm-process.ts): espeak-ng is GPL-3.0-or-later and never runs in our process.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { AudioChunk } from '../../audio/format.ts';
import { assertTextFits, EspeakVoiceCatalogue } from '../espeak/espeak-voice-catalogue.ts';
import { resolveEspeakVoice } from '../espeak/espeak-voices.ts';
import { speedOf } from '../local/speech-request.ts';
import { wavAudioChunks } from '../local/wav-stream.ts';
import { ProviderError } from '../provider-error.ts';
import type { TtsProvider, TtsRequest, TtsVoice } from '../tts-provider.ts';
import { ESPEAK_WASM_NAME, EspeakWasmProcess } from './espeak-wasm-process.ts';

/** US English, the language of the rest of the offline stack (pocketsphinx's model), as for Debian's espeak-ng. */
export const ESPEAK_WASM_DEFAULT_VOICE = 'en-us';
/** espeak-ng's own default rate, in words per minute: speed 1. */
const NORMAL_WPM = 175;
/**
 * Longest text one request may carry. Lower than the Debian espeak-ng's 20 000: the program renders the whole
 * text before answering and holds its WAV in memory twice over (~2.6 MB per 1 000 characters); a clause is far
 * shorter.
 */
export const ESPEAK_WASM_MAX_TEXT_CHARS = 5_000;
/**
 * A request's deadline, from when it is queued: it may wait for the program to start (~2 s of CPU, far longer on a
 * starved machine) and for the requests before it. 30 s only trips on a stuck program.
 */
const REQUEST_TIMEOUT_MS = 30_000;
/** The whole clause arrives at once; ~100 ms slices let the pacer start early and an abort land between. */
const CHUNK_MS = 100;
const PROGRAM = fileURLToPath(new URL('./espeak-wasm-program.mjs', import.meta.url));

export class EspeakWasmTtsProvider implements TtsProvider {
  readonly name = ESPEAK_WASM_NAME;
  readonly #program: EspeakWasmProcess;
  readonly #defaultVoice: string;
  readonly #catalogue: EspeakVoiceCatalogue;

  /** Use `createEspeakWasmTts`, which checks that the npm package is installed. */
  constructor(program: EspeakWasmProcess, defaultVoice: string) {
    this.#program = program;
    this.#defaultVoice = defaultVoice;
    this.#catalogue = new EspeakVoiceCatalogue(
      ESPEAK_WASM_NAME,
      async (which) => (await program.request({ list: which }, REQUEST_TIMEOUT_MS)).text ?? '',
    );
  }

  /** Starts the program now, so that the first call's first words do not wait for it to load. */
  start(): void {
    this.#program.start();
  }

  /**
   * PCM16 mono at 22 050 Hz, in slices of at most ~100 ms. The voice is `voiceId` (`en-us`, `en-us+f3`), else the
   * best voice for `language`, else the default. Rejects with `invalid_request` for an unknown voice, a language no
   * voice speaks, a bad speed or an over-long text.
   */
  async *synthesize(request: TtsRequest, signal: AbortSignal): AsyncGenerator<AudioChunk> {
    const wpm = Math.round(NORMAL_WPM * speedOf(ESPEAK_WASM_NAME, request));
    assertTextFits(ESPEAK_WASM_NAME, request.text, ESPEAK_WASM_MAX_TEXT_CHARS);
    const voice = resolveEspeakVoice(
      await this.#catalogue.table(),
      request.voiceId,
      request.language,
      this.#defaultVoice,
      ESPEAK_WASM_NAME,
    );
    if (request.text.trim() === '' || signal.aborted) return;
    const reply = await untilAborted(
      this.#program.request({ say: { text: request.text, voice, wpm } }, REQUEST_TIMEOUT_MS),
      signal,
    );
    // Aborted: the program finishes the clause (tens of ms) and its reply is dropped.
    if (reply === undefined) return;
    yield* wavAudioChunks(ESPEAK_WASM_NAME, [reply.body], CHUNK_MS);
  }

  /** espeak-ng's voices, one per language row, as the Debian provider lists them. Variants are accepted, not listed. */
  voices(): Promise<TtsVoice[]> {
    return this.#catalogue.voices();
  }

  /** Stops the program (its worker is stopping) and resolves once it has exited. */
  close(): Promise<void> {
    return this.#program.close();
  }
}

export interface EspeakWasmTtsOptions {
  /** Voice for requests that name neither a voice nor a language. Default ESPEAK_WASM_DEFAULT_VOICE. */
  defaultVoice?: string;
}

/**
 * An espeak-wasm provider, after checking that the npm package `espeak-ng` is installed. The program starts on the
 * first request, or on `start()`.
 * @throws ProviderError `provider_unavailable` when the package is missing (`npm ci` installs it)
 */
export function createEspeakWasmTts(options: EspeakWasmTtsOptions = {}): EspeakWasmTtsProvider {
  try {
    createRequire(import.meta.url).resolve('espeak-ng/dist/espeak-ng.wasm');
  } catch (cause) {
    throw new ProviderError(
      'provider_unavailable',
      ESPEAK_WASM_NAME,
      'the npm package espeak-ng is not installed (run npm ci)',
      { cause },
    );
  }
  return new EspeakWasmTtsProvider(new EspeakWasmProcess(PROGRAM), options.defaultVoice ?? ESPEAK_WASM_DEFAULT_VOICE);
}

/** `promise`'s value, or undefined as soon as `signal` aborts (the promise's outcome is then ignored). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.resolve(undefined);
  }
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
