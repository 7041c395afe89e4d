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
import { ProviderError } from '../provider-error.ts';
import type { TtsProvider, TtsRequest, TtsVoice } from '../tts-provider.ts';
import {
  ESPEAK_NAME,
  parseEspeakVariants,
  parseEspeakVoices,
  resolveEspeakVoice,
  type EspeakVoiceTable,
} from './espeak-voices.ts';

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
  #table: Promise<EspeakVoiceTable> | undefined;

  /** Use `createEspeakTts`, which checks that espeak-ng is installed. */
  constructor(binary: string, defaultVoice: string) {
    this.#binary = binary;
    this.#defaultVoice = defaultVoice;
  }

  /**
   * PCM16 mono at 22 050 Hz (espeak-ng's rate), streamed as rendered, in slices of at most ~100 ms. The voice is
   * `voiceId` (`en-us`, `en-us+f3`), else the best voice for `language`, else the default. Rejects with
   * `invalid_request` for an unknown voice, a language no voice speaks, a bad speed or an over-long text.
   */
  async *synthesize(request: TtsRequest, signal: AbortSignal): AsyncGenerator<AudioChunk> {
    const wpm = Math.round(ESPEAK_NORMAL_WPM * speedOf(ESPEAK_NAME, request));
    if (request.text.length > ESPEAK_MAX_TEXT_CHARS) {
      throw new ProviderError(
        'invalid_request',
        ESPEAK_NAME,
        `text of ${request.text.length} characters exceeds ${ESPEAK_MAX_TEXT_CHARS}`,
      );
    }
    const voice = resolveEspeakVoice(await this.#voiceTable(), request.voiceId, request.language, this.#defaultVoice);
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
  async voices(): Promise<TtsVoice[]> {
    const table = await this.#voiceTable();
    return table.voices.map(({ id, name, language, gender }) => ({
      id,
      name,
      language,
      ...(gender ? { gender } : {}),
    }));
  }

  #voiceTable(): Promise<EspeakVoiceTable> {
    this.#table ??= this.#listVoices().catch((error: unknown) => {
      this.#table = undefined; // a failed listing is retried next time
      throw error;
    });
    return this.#table;
  }

  async #listVoices(): Promise<EspeakVoiceTable> {
    const [voices, variants] = await Promise.all([
      runForOutput(ESPEAK_NAME, this.#binary, ['--voices'], LIST_TIMEOUT_MS, LIST_MAX_BYTES),
      runForOutput(ESPEAK_NAME, this.#binary, ['--voices=variant'], LIST_TIMEOUT_MS, LIST_MAX_BYTES),
    ]);
    const table = { voices: parseEspeakVoices(voices), variants: parseEspeakVariants(variants) };
    if (table.voices.length === 0)
      throw new ProviderError('provider_failed', ESPEAK_NAME, 'espeak-ng --voices listed no voices');
    return table;
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
