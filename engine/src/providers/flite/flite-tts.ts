/**
 * Text to speech with CMU flite (Debian package `flite`), offline. One `flite -t <text> -o <file>` run per clause,
 * into a fresh temporary directory that is removed afterwards. Not stdout: flite opens its output by name, and
 * /dev/stdout cannot be opened when stdout is the socket pair Node gives a child. Nothing is lost by the file: with
 * `-t` flite renders the whole text before writing a byte, ~1000x faster than real time (a 2.4 s sentence in
 * ~15 ms, process start included), and the audio is then handed out in ~100 ms slices.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AudioChunk } from '../../audio/format.ts';
import { LocalProcess, resolveExecutable, runForOutput } from '../local/local-process.ts';
import { primaryLanguage, speedOf } from '../local/speech-request.ts';
import { wavAudioChunks } from '../local/wav-stream.ts';
import { ProviderError } from '../provider-error.ts';
import type { TtsProvider, TtsRequest, TtsVoice } from '../tts-provider.ts';

/** kal16: US English male at 16 kHz, the engine's rate (no resampling), and the voice pocketsphinx recognises best. */
export const FLITE_DEFAULT_VOICE = 'kal16';

/**
 * Longest text one request may carry, in UTF-16 code units. It travels as one argument, and Linux caps a single
 * argument at 128 KiB: 20 000 characters of 4-byte UTF-8 is 80 KB. A clause is far shorter.
 */
export const FLITE_MAX_TEXT_CHARS = 20_000;
/** flite renders 16 800 characters (16 min of speech) in 0.8 s; 30 s only trips on a stuck or starved machine. */
const SYNTHESIS_TIMEOUT_MS = 30_000;
/** `flite -lv` answers in milliseconds; 10 s means it is hanging. */
const LIST_TIMEOUT_MS = 10_000;
/** `flite -lv` prints one line; anything near this size is not flite. */
const LIST_MAX_BYTES = 64 * 1024;
/** flite hands over its whole output at once; ~100 ms slices let the pacer start early and an abort land between. */
const CHUNK_MS = 100;
const INSTALL_HINT = 'install the Debian package flite, or set the flite binary path';
const NAME = 'flite';

/** Voices that only speak one domain (awb_time says the time and nothing else): useless to an agent, so hidden. */
const LIMITED_DOMAIN_VOICES = new Set(['awb_time']);

/** What flite's built-in voices are; a voice flite lists that is not here gets its id as name and no gender. */
const KNOWN_VOICES: Record<string, Omit<TtsVoice, 'id'>> = {
  kal16: { name: 'Kal (16 kHz, diphone)', language: 'en-US', gender: 'MALE' },
  kal: { name: 'Kal (8 kHz, diphone)', language: 'en-US', gender: 'MALE' },
  awb: { name: 'AWB (Scottish English)', language: 'en-GB', gender: 'MALE' },
  rms: { name: 'RMS', language: 'en-US', gender: 'MALE' },
  slt: { name: 'SLT', language: 'en-US', gender: 'FEMALE' },
};

export interface FliteTtsOptions {
  /** The flite program: a path, or a name looked up on PATH. Default `flite` (Debian: /usr/bin/flite). */
  binary?: string;
  /** Voice for requests that name none. Default FLITE_DEFAULT_VOICE. */
  defaultVoice?: string;
}

export class FliteTtsProvider implements TtsProvider {
  readonly name = NAME;
  readonly #binary: string;
  readonly #defaultVoice: string;
  #voices: Promise<TtsVoice[]> | undefined;

  /** Use `createFliteTts`, which checks that flite is installed. */
  constructor(binary: string, defaultVoice: string) {
    this.#binary = binary;
    this.#defaultVoice = defaultVoice;
  }

  /**
   * PCM16 mono at the voice's own rate (16 kHz for kal16, awb, rms, slt; 8 kHz for kal), in slices of ~100 ms.
   * Rejects with `invalid_request` for an unknown voice, a non-English language, a bad speed or an over-long text.
   */
  async *synthesize(request: TtsRequest, signal: AbortSignal): AsyncGenerator<AudioChunk> {
    const speed = speedOf(NAME, request);
    if (request.language !== undefined && primaryLanguage(request.language) !== 'en') {
      throw new ProviderError('invalid_request', NAME, `flite speaks English only, not ${request.language}`);
    }
    if (request.text.length > FLITE_MAX_TEXT_CHARS) {
      throw new ProviderError(
        'invalid_request',
        NAME,
        `text of ${request.text.length} characters exceeds ${FLITE_MAX_TEXT_CHARS}`,
      );
    }
    const voice = request.voiceId ?? this.#defaultVoice;
    // Checked against flite's own list: flite silently falls back to kal for an unknown name, and would fetch a
    // URL or load a file for a name that looks like one.
    const known = await this.voices();
    if (!known.some((v) => v.id === voice)) {
      throw new ProviderError(
        'invalid_request',
        NAME,
        `unknown flite voice "${voice}"; available: ${known.map((v) => v.id).join(', ')}`,
      );
    }
    if (request.text.trim() === '' || signal.aborted) return;
    const dir = await mkdtemp(path.join(tmpdir(), 'parley-flite-'));
    try {
      const file = path.join(dir, 'speech.wav');
      const args = [
        '-voice',
        voice,
        '--setf',
        `duration_stretch=${(1 / speed).toFixed(3)}`,
        '-t',
        request.text,
        '-o',
        file,
      ];
      const run = new LocalProcess(NAME, this.#binary, args, { signal, timeoutMs: SYNTHESIS_TIMEOUT_MS });
      await run.finished;
      if (signal.aborted) return;
      yield* wavAudioChunks(NAME, [await readFile(file)], CHUNK_MS);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The voices `flite -lv` lists, limited-domain ones left out. Cached after the first successful call. */
  voices(): Promise<TtsVoice[]> {
    this.#voices ??= this.#listVoices().catch((error: unknown) => {
      this.#voices = undefined; // a failed listing is retried next time
      throw error;
    });
    return this.#voices;
  }

  async #listVoices(): Promise<TtsVoice[]> {
    const output = await runForOutput(NAME, this.#binary, ['-lv'], LIST_TIMEOUT_MS, LIST_MAX_BYTES);
    return parseFliteVoices(output);
  }
}

/** Parses `flite -lv` ("Voices available: kal awb_time kal16 awb rms slt"). */
export function parseFliteVoices(output: string): TtsVoice[] {
  const colon = output.indexOf(':');
  if (colon < 0)
    throw new ProviderError('provider_failed', NAME, `unexpected output of flite -lv: ${output.slice(0, 200)}`);
  return output
    .slice(colon + 1)
    .trim()
    .split(/\s+/)
    .filter((id) => id !== '' && !LIMITED_DOMAIN_VOICES.has(id))
    .map((id) => ({ id, ...(KNOWN_VOICES[id] ?? { name: id, language: 'en-US' }) }));
}

/**
 * A flite provider, after checking the program is installed.
 * @throws ProviderError `provider_unavailable` when the flite program cannot be found or run
 */
export function createFliteTts(options: FliteTtsOptions = {}): FliteTtsProvider {
  const binary = resolveExecutable(NAME, options.binary ?? 'flite', INSTALL_HINT);
  return new FliteTtsProvider(binary, options.defaultVoice ?? FLITE_DEFAULT_VOICE);
}
