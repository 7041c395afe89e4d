/**
 * Text to speech with espeak-ng (Debian package `espeak-ng`), offline, in ~130 languages. One
 * `espeak-ng --stdout --stdin` run per clause: the text goes in on stdin (no argument-length limit, and a text that
 * starts with `-` cannot be taken for an option), and the WAV comes out on stdout as it is rendered, at 22 050 Hz
 * (the caller resamples). Its header declares an unknown length (0x7ffff000); local/wav-stream.ts reads to the end.
 */
import type { AudioChunk } from '../../audio/format.ts';
import { processStdout, resolveExecutable, runForOutput } from '../local/local-process.ts';
import { speedOf } from '../local/speech-request.ts';
import { wavAudioChunks } from '../local/wav-stream.ts';
import type { TtsProvider, TtsRequest, TtsVoice } from '../tts-provider.ts';
import { assertTextFits, EspeakVoiceCatalogue } from './espeak-voice-catalogue.ts';
import { ESPEAK_NAME, resolveEspeakVoice } from './espeak-voices.ts';

/** US English, the language of the rest of the offline stack (pocketsphinx's model). */
export const ESPEAK_DEFAULT_VOICE = 'en-us';
/** espeak-ng's own default rate, in words per minute: speed 1. */
export const ESPEAK_NORMAL_WPM = 175;
/** Longest text one request may carry: a clause is far shorter, and this bounds one request's work (~15 min of speech). */
export const ESPEAK_MAX_TEXT_CHARS = 20_000;
/** espeak-ng renders 16 800 characters in ~1 s; 30 s only trips on a stuck or starved machine. */
const SYNTHESIS_TIMEOUT_MS = 30_000;
/** The voice listings answer in milliseconds; 10 s means the program is hanging. */
const LIST_TIMEOUT_MS = 10_000;
/** The voice table is ~10 KB; far more is not espeak-ng talking. */
const LIST_MAX_BYTES = 1024 * 1024;
/** espeak-ng writes as it renders, in pieces of varying size; slices of at most 100 ms keep the pacer's input even. */
const CHUNK_MS = 100;
const INSTALL_HINT = 'install the Debian package espeak-ng, or set the espeak-ng binary path';

export interface EspeakTtsOptions {
  /** The espeak-ng program: a path, or a name looked up on PATH. Default `espeak-ng` (Debian: /usr/bin/espeak-ng). */
  binary?: string;
  /** Voice for requests that name neither a voice nor a language. Default ESPEAK_DEFAULT_VOICE. */
  defaultVoice?: string;
}

export class EspeakTtsProvider implements TtsProvider {
  readonly name = ESPEAK_NAME;
  readonly #binary: string;
  readonly #defaultVoice: string;
  readonly #catalogue: EspeakVoiceCatalogue;

  /** Use `createEspeakTts`, which checks that espeak-ng is installed. */
  constructor(binary: string, defaultVoice: string) {
    this.#binary = binary;
    this.#defaultVoice = defaultVoice;
    this.#catalogue = new EspeakVoiceCatalogue(ESPEAK_NAME, (which) =>
      runForOutput(
        ESPEAK_NAME,
        binary,
        [which === 'voices' ? '--voices' : '--voices=variant'],
        LIST_TIMEOUT_MS,
        LIST_MAX_BYTES,
      ),
    );
  }

  /**
   * PCM16 mono at 22 050 Hz (espeak-ng's rate), streamed as rendered, in slices of at most ~100 ms. The voice is
   * `voiceId` (`en-us`, `en-us+f3`), else the best voice for `language`, else the default. Rejects with
   * `invalid_request` for an unknown voice, a language no voice speaks, a bad speed or an over-long text.
   */
  async *synthesize(request: TtsRequest, signal: AbortSignal): AsyncGenerator<AudioChunk> {
    const wpm = Math.round(ESPEAK_NORMAL_WPM * speedOf(ESPEAK_NAME, request));
    assertTextFits(ESPEAK_NAME, request.text, ESPEAK_MAX_TEXT_CHARS);
    const voice = resolveEspeakVoice(
      await this.#catalogue.table(),
      request.voiceId,
      request.language,
      this.#defaultVoice,
    );
    if (request.text.trim() === '' || signal.aborted) return;
    // -b 1: the text is UTF-8, whatever the process locale says.
    const args = ['--stdout', '--stdin', '-b', '1', '-v', voice, '-s', String(wpm)];
    const wav = processStdout(ESPEAK_NAME, this.#binary, args, {
      signal,
      timeoutMs: SYNTHESIS_TIMEOUT_MS,
      input: request.text,
    });
    yield* wavAudioChunks(ESPEAK_NAME, wav, CHUNK_MS);
  }

  /** The voices of `espeak-ng --voices`, one per language row. Variants (`+f3`) are not listed but accepted. */
  voices(): Promise<TtsVoice[]> {
    return this.#catalogue.voices();
  }
}

/**
 * An espeak-ng provider, after checking the program is installed.
 * @throws ProviderError `provider_unavailable` when the espeak-ng program cannot be found or run
 */
export function createEspeakTts(options: EspeakTtsOptions = {}): EspeakTtsProvider {
  const binary = resolveExecutable(ESPEAK_NAME, options.binary ?? 'espeak-ng', INSTALL_HINT);
  return new EspeakTtsProvider(binary, options.defaultVoice ?? ESPEAK_DEFAULT_VOICE);
}
