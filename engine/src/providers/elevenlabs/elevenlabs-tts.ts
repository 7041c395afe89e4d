/**
 * TtsProvider over ElevenLabs' streaming HTTP endpoint: `POST /v1/text-to-speech/{voice_id}/stream` with
 * `output_format=pcm_16000` — raw 16 kHz PCM16LE, the engine's own rate, so the audio needs no resampling — and
 * the key in `xi-api-key`. The body is streamed as it is synthesised; each chunk becomes an AudioChunk at once.
 * Voices come from `GET /v1/voices`.
 */
import type { AudioChunk } from '../../audio/format.ts';
import type { ErrorMessageReader } from '../cloud/error-response.ts';
import { pcmChunks, ttsCallTimeouts } from '../cloud/streaming-tts.ts';
import { VendorCall, type CallTimeouts } from '../cloud/vendor-call.ts';
import { ProviderError } from '../provider-error.ts';
import type { TtsProvider, TtsRequest, TtsVoice } from '../tts-provider.ts';

export const ELEVENLABS_URL = 'https://api.elevenlabs.io';
/** `pcm_16000`: the engine's rate, so clauses go to the pacer without resampling. */
export const ELEVENLABS_SAMPLE_RATE = 16_000;
/** Flash v2.5: ElevenLabs' lowest-latency model (~75 ms to first audio), multilingual. */
export const ELEVENLABS_DEFAULT_MODEL = 'eleven_flash_v2_5';
/** "Rachel", one of the premade voices every account has. */
export const ELEVENLABS_DEFAULT_VOICE = '21m00Tcm4TlvDq8ikWAM';
/** Listing voices, in ms: a settings page waits on it, nobody on a call does. */
export const ELEVENLABS_VOICES_TIMEOUT_MS = 10_000;
/** The speed range ElevenLabs accepts in voice_settings; values outside are clamped rather than refused. */
const SPEED_MIN = 0.7;
const SPEED_MAX = 1.2;
const NAME = 'elevenlabs';
const GENDERS: Readonly<Record<string, TtsVoice['gender']>> = { male: 'MALE', female: 'FEMALE', neutral: 'NEUTRAL' };

export interface ElevenLabsTtsConfig {
  apiKey: string;
  /** Default ELEVENLABS_URL (no `/v1`); tests point it at a local fake. */
  baseUrl?: string;
  /** Default ELEVENLABS_DEFAULT_MODEL. */
  modelId?: string;
  /** Voice used when a request names none. Default ELEVENLABS_DEFAULT_VOICE. */
  defaultVoiceId?: string;
  /** Overrides of the TTS_* deadlines the cloud TTS providers share (cloud/streaming-tts.ts). */
  timeouts?: Partial<CallTimeouts>;
}

/** ElevenLabs' `{detail: {status, message}}`, or FastAPI's `{detail: [{loc, msg}]}` for a malformed request. */
const readElevenLabsError: ErrorMessageReader = (body) => {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d: { loc?: unknown[]; msg?: unknown }) => `${(d.loc ?? []).join('.')}: ${String(d.msg)}`)
      .join('; ');
  }
  if (typeof detail === 'object' && detail !== null) {
    const { status, message } = detail as { status?: unknown; message?: unknown };
    return [status, message].filter((part) => typeof part === 'string').join(': ') || undefined;
  }
  return undefined;
};

export class ElevenLabsTts implements TtsProvider {
  readonly name = NAME;
  readonly #config: ElevenLabsTtsConfig;
  readonly #base: string;
  readonly #timeouts: CallTimeouts;

  constructor(config: ElevenLabsTtsConfig) {
    this.#config = config;
    this.#base = new URL(config.baseUrl ?? ELEVENLABS_URL).href.replace(/\/+$/, '');
    this.#timeouts = ttsCallTimeouts(config.timeouts);
  }

  synthesize(request: TtsRequest, signal: AbortSignal): AsyncIterable<AudioChunk> {
    return this.#synthesize(request, signal);
  }

  async *#synthesize(request: TtsRequest, signal: AbortSignal): AsyncGenerator<AudioChunk, void, undefined> {
    if (signal.aborted || request.text.trim() === '') return;
    const voice = encodeURIComponent(request.voiceId ?? this.#config.defaultVoiceId ?? ELEVENLABS_DEFAULT_VOICE);
    const url = `${this.#base}/v1/text-to-speech/${voice}/stream?output_format=pcm_${ELEVENLABS_SAMPLE_RATE}`;
    const body: Record<string, unknown> = {
      text: request.text,
      model_id: this.#config.modelId ?? ELEVENLABS_DEFAULT_MODEL,
    };
    if (request.speed !== undefined) {
      body.voice_settings = { speed: Math.min(SPEED_MAX, Math.max(SPEED_MIN, request.speed)) };
    }
    const call = new VendorCall(NAME, signal, this.#timeouts);
    try {
      const headers = this.#headers({ 'content-type': 'application/json' });
      const response = await call.send(
        url,
        { method: 'POST', headers, body: JSON.stringify(body) },
        readElevenLabsError,
      );
      if (response === undefined) return;
      yield* pcmChunks(response, call, ELEVENLABS_SAMPLE_RATE, NAME);
    } finally {
      call.dispose();
    }
  }

  /** The account's voices (premade, cloned, library), from `GET /v1/voices`. */
  async voices(): Promise<TtsVoice[]> {
    const limit = ELEVENLABS_VOICES_TIMEOUT_MS;
    const timeouts = { firstOutputMs: limit, stallMs: limit, totalMs: limit };
    const call = new VendorCall(NAME, new AbortController().signal, timeouts);
    try {
      const response = await call.send(`${this.#base}/v1/voices`, { headers: this.#headers({}) }, readElevenLabsError);
      let body: unknown;
      try {
        body = await response?.json();
      } catch (err) {
        if (err instanceof SyntaxError) throw new ProviderError('bad_response', NAME, 'the voice list is not JSON');
        throw call.failure(err, 'connection broke off mid-response') ?? err;
      }
      const voices = (body as { voices?: unknown } | undefined)?.voices;
      if (!Array.isArray(voices)) throw new ProviderError('bad_response', NAME, 'the voice list has no `voices` array');
      return voices.flatMap(toVoice);
    } finally {
      call.dispose();
    }
  }

  #headers(extra: Record<string, string>): Record<string, string> {
    return { ...extra, 'xi-api-key': this.#config.apiKey };
  }
}

interface ElevenLabsVoice {
  voice_id?: unknown;
  name?: unknown;
  labels?: Record<string, unknown> | null;
  verified_languages?: { language?: unknown; locale?: unknown }[] | null;
}

function toVoice(raw: ElevenLabsVoice): TtsVoice[] {
  if (typeof raw.voice_id !== 'string' || typeof raw.name !== 'string') return [];
  const gender = GENDERS[String(raw.labels?.gender ?? '').toLowerCase()];
  const verified = raw.verified_languages?.[0];
  const language = [verified?.locale, verified?.language, raw.labels?.language].find(
    (l) => typeof l === 'string' && l !== '',
  );
  // Multilingual models let any voice speak every supported language: `mul` unless the voice says otherwise.
  const voice: TtsVoice = {
    id: raw.voice_id,
    name: raw.name,
    language: typeof language === 'string' ? language : 'mul',
  };
  return [gender === undefined ? voice : { ...voice, gender }];
}
