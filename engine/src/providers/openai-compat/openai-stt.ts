/**
 * SttProvider over an OpenAI-compatible `POST {baseUrl}/audio/transcriptions` (OpenAI Whisper and gpt-4o
 * transcribe, Groq, a local faster-whisper or whisper.cpp server). The endpoint takes whole files, so each stream
 * buffers the caller's audio and sends one WAV per utterance when the VAD says the caller stopped speaking; the
 * transcript comes back as a single final. Requests run one at a time, so finals arrive in speaking order.
 */
import { ENGINE_SAMPLE_RATE } from '../../audio/format.ts';
import { encodeWav } from '../../audio/wav.ts';
import type { ErrorMessageReader } from '../cloud/error-response.ts';
import { Channel } from '../../streams/channel.ts';
import { VendorCall, type CallTimeouts } from '../cloud/vendor-call.ts';
import { ProviderError } from '../provider-error.ts';
import type { SttEvent, SttOptions, SttProvider, SttStream } from '../stt-provider.ts';
import { joinUrl } from './openai-llm.ts';

/**
 * One transcription request, in ms. Whisper takes ~1 s for a 10 s utterance; 15 s means the service is in
 * trouble and the caller is waiting, so the stream fails and the session can fail over.
 */
export const STT_REQUEST_TIMEOUT_MS = 15_000;
/** Shorter utterances are not sent: OpenAI refuses audio under 0.1 s, and a click is not speech anyway. */
export const STT_MIN_UTTERANCE_MS = 100;
/**
 * Longest utterance buffered, in ms. A caller talking for a minute without a pause is transcribed in pieces
 * rather than held in memory without bound (60 s of 16 kHz PCM16 is 1.9 MB, well under the 25 MB upload limit).
 */
export const STT_MAX_UTTERANCE_MS = 60_000;
/**
 * Transcripts waiting for the reader; each is one utterance, so 64 is minutes of speech nobody read. Full: still
 * kept — a final is what the caller said, and at most one arrives per utterance.
 */
const EVENT_QUEUE_CAPACITY = 64;
/** The provider's name as configured (PARLEY_STT=openai). */
const STT_NAME = 'openai';

export interface OpenAiCompatSttConfig {
  /** Base URL including the API version, for example `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; undefined for local servers without keys. */
  apiKey?: string;
  /** `whisper-1`, `gpt-4o-mini-transcribe`, `whisper-large-v3` (Groq)… */
  model: string;
  /** Override of STT_REQUEST_TIMEOUT_MS. */
  requestTimeoutMs?: number;
}

export class OpenAiCompatStt implements SttProvider {
  readonly name = STT_NAME;
  readonly #config: OpenAiCompatSttConfig;
  readonly #url: string;

  /** @throws TypeError when `baseUrl` is not a URL */
  constructor(config: OpenAiCompatSttConfig) {
    new URL(config.baseUrl);
    this.#config = config;
    this.#url = joinUrl(config.baseUrl, 'audio/transcriptions');
  }

  open(options: SttOptions, signal: AbortSignal): SttStream {
    return new UtteranceStream(this.#config, this.#url, options, signal);
  }
}

/** OpenAI's `{error: {message}}`; local servers' `{detail}` (FastAPI) or `{error: "…"}`. */
const readTranscriptionError: ErrorMessageReader = (body) => {
  if (typeof body !== 'object' || body === null) return undefined;
  const { error, detail } = body as { error?: unknown; detail?: unknown };
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  if (typeof error === 'string') return error;
  return typeof detail === 'string' ? detail : undefined;
};

class UtteranceStream implements SttStream {
  readonly #config: OpenAiCompatSttConfig;
  readonly #url: string;
  readonly #options: SttOptions;
  readonly #signal: AbortSignal;
  readonly #events: Channel<SttEvent>;
  readonly #timeouts: CallTimeouts;
  /** Audio of the utterance in progress. */
  #pending: Int16Array[] = [];
  #pendingSamples = 0;
  /** Samples pushed before the utterance in progress: its start offset. */
  #streamSamples = 0;
  /** Transcriptions run one after another, so finals keep the order of speech. */
  #chain: Promise<void> = Promise.resolve();
  #ended = false;

  constructor(config: OpenAiCompatSttConfig, url: string, options: SttOptions, signal: AbortSignal) {
    this.#config = config;
    this.#url = url;
    this.#options = options;
    this.#signal = signal;
    const timeout = config.requestTimeoutMs ?? STT_REQUEST_TIMEOUT_MS;
    this.#timeouts = { firstOutputMs: timeout, stallMs: timeout, totalMs: timeout };
    this.#events = new Channel<SttEvent>(EVENT_QUEUE_CAPACITY, 'drop-oldest', { evictable: () => false });
    if (signal.aborted) this.#events.discard();
    else signal.addEventListener('abort', () => this.#events.discard(), { once: true });
  }

  push(samples: Int16Array): void {
    if (this.#ended || this.#events.ended) return;
    // Copied: the caller may reuse its frame buffer once push returns.
    this.#pending.push(samples.slice());
    this.#pendingSamples += samples.length;
    if (this.#pendingSamples >= (STT_MAX_UTTERANCE_MS * ENGINE_SAMPLE_RATE) / 1000) this.endOfUtterance();
  }

  endOfUtterance(): void {
    if (this.#events.ended) return;
    const audio = new Int16Array(this.#pendingSamples);
    let offset = 0;
    for (const part of this.#pending) {
      audio.set(part, offset);
      offset += part.length;
    }
    const startMs = samplesToMs(this.#streamSamples);
    this.#streamSamples += audio.length;
    this.#pending = [];
    this.#pendingSamples = 0;
    if (audio.length < (STT_MIN_UTTERANCE_MS * ENGINE_SAMPLE_RATE) / 1000) return;
    const endMs = samplesToMs(this.#streamSamples);
    this.#chain = this.#chain.then(() => this.#transcribe(audio, startMs, endMs));
  }

  end(): void {
    if (this.#ended) return;
    this.endOfUtterance();
    this.#ended = true;
    void this.#chain.then(() => this.#events.end());
  }

  [Symbol.asyncIterator](): AsyncIterator<SttEvent> {
    return this.#events[Symbol.asyncIterator]();
  }

  async #transcribe(audio: Int16Array, startMs: number, endMs: number): Promise<void> {
    if (this.#events.ended) return;
    const call = new VendorCall(STT_NAME, this.#signal, this.#timeouts);
    try {
      const form = new FormData();
      form.append(
        'file',
        new Blob([encodeWav({ samples: audio, sampleRate: ENGINE_SAMPLE_RATE })], { type: 'audio/wav' }),
        'utterance.wav',
      );
      form.append('model', this.#config.model);
      form.append('response_format', 'json');
      // ISO-639-1 is what the endpoint takes: `en-US` → `en`.
      const language = this.#options.language.split('-')[0];
      if (language !== undefined && language !== '') form.append('language', language.toLowerCase());
      // Whisper has no keyword list; a prompt that mentions the words is its documented way to favour them.
      if (this.#options.keywords !== undefined && this.#options.keywords.length > 0) {
        form.append('prompt', this.#options.keywords.join(', '));
      }
      const headers: Record<string, string> = { accept: 'application/json' };
      if (this.#config.apiKey !== undefined && this.#config.apiKey !== '') {
        headers.authorization = `Bearer ${this.#config.apiKey}`;
      }
      const response = await call.send(this.#url, { method: 'POST', headers, body: form }, readTranscriptionError);
      if (response === undefined) return;
      const text = await this.#readText(response, call);
      if (text === undefined) return;
      if (text !== '') this.#events.push({ type: 'final', text, startMs, endMs });
    } catch (err) {
      this.#events.fail(err);
    } finally {
      call.dispose();
    }
  }

  /** The transcript of a `json` answer (`{text}`), or undefined when the caller aborted while it was read. */
  async #readText(response: Response, call: VendorCall): Promise<string | undefined> {
    let body: unknown;
    try {
      body = await response.json();
    } catch (err) {
      if (err instanceof SyntaxError) throw new ProviderError('bad_response', STT_NAME, 'the answer is not JSON');
      const failure = call.failure(err, 'connection broke off mid-response');
      if (failure === undefined) return undefined;
      throw failure;
    }
    const text = (body as { text?: unknown } | null)?.text;
    if (typeof text !== 'string') throw new ProviderError('bad_response', STT_NAME, 'the answer has no `text`');
    return text.trim();
  }
}

function samplesToMs(samples: number): number {
  return Math.round((samples * 1000) / ENGINE_SAMPLE_RATE);
}
