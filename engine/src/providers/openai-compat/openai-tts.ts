/**
 * TtsProvider over an OpenAI-compatible `POST {baseUrl}/audio/speech` with `response_format: "pcm"`: raw 24 kHz
 * 16-bit little-endian mono with no header, which the endpoint streams as it synthesises, so each body chunk
 * becomes an AudioChunk at once and the first audio plays before the clause is fully spoken.
 */
import type { AudioChunk } from '../../audio/format.ts';
import type { TtsProvider, TtsRequest, TtsVoice } from '../tts-provider.ts';
import { pcmChunks, ttsCallTimeouts } from '../cloud/streaming-tts.ts';
import { VendorCall, type CallTimeouts } from '../cloud/vendor-call.ts';
import { readChatErrorMessage } from './chat-wire.ts';
import { joinUrl } from './openai-llm.ts';

/** The rate of OpenAI's `pcm` format, fixed by the API, in Hz. */
export const OPENAI_PCM_SAMPLE_RATE = 24_000;
/** The speed range the endpoint accepts; values outside are clamped rather than refused. */
const SPEED_MIN = 0.25;
const SPEED_MAX = 4;

/**
 * OpenAI's built-in voices. The API documents no language or gender for them: each speaks every supported
 * language, hence `mul` (ISO 639 "multiple languages").
 */
export const OPENAI_VOICES: readonly TtsVoice[] = [
  'alloy',
  'echo',
  'fable',
  'onyx',
  'nova',
  'shimmer',
  'ash',
  'coral',
  'sage',
].map((id) => ({ id, name: id[0]?.toUpperCase() + id.slice(1), language: 'mul' }));

export interface OpenAiCompatTtsConfig {
  /** Base URL including the API version, for example `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; undefined for local servers without keys. */
  apiKey?: string;
  /** `tts-1`, `tts-1-hd`, `gpt-4o-mini-tts`… */
  model: string;
  /** Voice used when a request names none. Default `alloy`. */
  defaultVoice?: string;
  /** Overrides of the TTS_* deadlines the cloud TTS providers share (cloud/streaming-tts.ts). */
  timeouts?: Partial<CallTimeouts>;
}

export class OpenAiCompatTts implements TtsProvider {
  readonly name = 'openai';
  readonly #config: OpenAiCompatTtsConfig;
  readonly #url: string;
  readonly #timeouts: CallTimeouts;

  /** @throws TypeError when `baseUrl` is not a URL */
  constructor(config: OpenAiCompatTtsConfig) {
    new URL(config.baseUrl);
    this.#config = config;
    this.#url = joinUrl(config.baseUrl, 'audio/speech');
    this.#timeouts = ttsCallTimeouts(config.timeouts);
  }

  synthesize(request: TtsRequest, signal: AbortSignal): AsyncIterable<AudioChunk> {
    return this.#synthesize(request, signal);
  }

  voices(): Promise<TtsVoice[]> {
    return Promise.resolve([...OPENAI_VOICES]);
  }

  async *#synthesize(request: TtsRequest, signal: AbortSignal): AsyncGenerator<AudioChunk, void, undefined> {
    if (signal.aborted || request.text.trim() === '') return;
    const call = new VendorCall(this.name, signal, this.#timeouts);
    try {
      const body: Record<string, unknown> = {
        model: this.#config.model,
        input: request.text,
        voice: request.voiceId ?? this.#config.defaultVoice ?? 'alloy',
        response_format: 'pcm',
      };
      if (request.speed !== undefined) body.speed = Math.min(SPEED_MAX, Math.max(SPEED_MIN, request.speed));
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (this.#config.apiKey !== undefined && this.#config.apiKey !== '') {
        headers.authorization = `Bearer ${this.#config.apiKey}`;
      }
      const init = { method: 'POST', headers, body: JSON.stringify(body) };
      const response = await call.send(this.#url, init, readChatErrorMessage);
      if (response === undefined) return;
      yield* pcmChunks(response, call, OPENAI_PCM_SAMPLE_RATE, this.name);
    } finally {
      call.dispose();
    }
  }
}
