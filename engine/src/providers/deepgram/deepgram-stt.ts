/**
 * SttProvider over Deepgram's live streaming API: one websocket per stream to `/v1/listen` with the audio format in
 * the query (`encoding=linear16&sample_rate=16000&channels=1`) and `Authorization: Token <key>`. Audio goes up as
 * binary frames; Deepgram answers `Results` messages (interim and final). Control messages are text frames:
 * `Finalize` when our VAD ends an utterance (Deepgram flushes what it holds), `KeepAlive` during silence (it
 * closes a socket idle for 10 s), `CloseStream` at the end (it sends its last results, then closes).
 * Reconnecting is not this layer's job: a failed stream fails its iteration, and the session fails over.
 */
import WebSocket from 'ws';
import type { IncomingMessage } from 'node:http';
import { ENGINE_SAMPLE_RATE } from '../../audio/format.ts';
import { pcm16ToBytesLE } from '../../audio/pcm16.ts';
import { codeForStatus, ERROR_BODY_LIMIT_BYTES, parseRetryAfter } from '../cloud/error-response.ts';
import { Channel } from '../../streams/channel.ts';
import { ProviderError } from '../provider-error.ts';
import type { SttEvent, SttOptions, SttProvider, SttStream } from '../stt-provider.ts';
import { UtteranceAssembler, type DeepgramResults } from './deepgram-results.ts';

export const DEEPGRAM_URL = 'wss://api.deepgram.com/v1';
/** Handshake deadline, in ms: the socket opens while the phone rings, so slow costs nothing, but dead must fail. */
export const DEEPGRAM_CONNECT_TIMEOUT_MS = 5_000;
/** KeepAlive when no audio went up for this long, in ms: Deepgram asks for one every 3–5 s and closes after 10 s. */
export const DEEPGRAM_KEEPALIVE_MS = 4_000;
/** After CloseStream, how long we wait for the last results and the server's close, in ms. */
export const DEEPGRAM_CLOSE_TIMEOUT_MS = 5_000;
/** Audio held while the socket opens, in ms; older audio is dropped (a handshake this slow fails anyway). */
const PENDING_AUDIO_MS = 5_000;
/** Transcripts waiting for the reader. Full: the oldest partial goes (a newer one supersedes it); finals stay. */
const EVENT_QUEUE_CAPACITY = 256;
const NAME = 'deepgram';

export interface DeepgramSttConfig {
  apiKey: string;
  /** Default DEEPGRAM_URL; tests point it at a local fake (`ws://127.0.0.1:<port>/v1`). */
  baseUrl?: string;
  /** Default `nova-3`. */
  model?: string;
  /** Model per agent sttMode (GLOBAL, INDIA, …) where it should differ from `model`. */
  modelByMode?: Readonly<Record<string, string>>;
  /** More query parameters (`smart_format`, `endpointing`, …), as Deepgram documents them. */
  extraParams?: Readonly<Record<string, string>>;
  /** Overrides of DEEPGRAM_CONNECT_TIMEOUT_MS, DEEPGRAM_KEEPALIVE_MS, DEEPGRAM_CLOSE_TIMEOUT_MS. */
  connectTimeoutMs?: number;
  keepAliveMs?: number;
  closeTimeoutMs?: number;
}

export class DeepgramStt implements SttProvider {
  readonly name = NAME;
  readonly #config: DeepgramSttConfig;

  constructor(config: DeepgramSttConfig) {
    new URL(config.baseUrl ?? DEEPGRAM_URL);
    this.#config = config;
  }

  open(options: SttOptions, signal: AbortSignal): SttStream {
    return new DeepgramStream(this.#config, listenUrl(this.#config, options), signal);
  }
}

/** The `/listen` URL with the audio format and recognition options in its query. */
export function listenUrl(config: DeepgramSttConfig, options: SttOptions): string {
  const model =
    (options.mode === undefined ? undefined : config.modelByMode?.[options.mode]) ?? config.model ?? 'nova-3';
  const query = new URLSearchParams({
    encoding: 'linear16',
    sample_rate: String(ENGINE_SAMPLE_RATE),
    channels: '1',
    model,
    language: options.language,
    interim_results: 'true',
    punctuate: 'true',
    ...config.extraParams,
  });
  // Nova-3 takes `keyterm` prompting; earlier models take `keywords` boosting.
  const keywordParam = model.startsWith('nova-3') ? 'keyterm' : 'keywords';
  for (const keyword of options.keywords ?? []) query.append(keywordParam, keyword);
  return `${(config.baseUrl ?? DEEPGRAM_URL).replace(/\/+$/, '')}/listen?${query.toString()}`;
}

type Pending = Buffer | 'finalize';

class DeepgramStream implements SttStream {
  readonly #ws: WebSocket;
  readonly #events: Channel<SttEvent>;
  readonly #utterance = new UtteranceAssembler();
  readonly #signal: AbortSignal;
  readonly #keepAliveMs: number;
  readonly #closeTimeoutMs: number;
  readonly #onAbort = (): void => this.#shutDown('discard');
  /** Audio and Finalize requests made before the socket opened, sent in order once it does. */
  #pending: Pending[] = [];
  #pendingBytes = 0;
  #connectTimer: NodeJS.Timeout | undefined;
  #keepAliveTimer: NodeJS.Timeout | undefined;
  #closeTimer: NodeJS.Timeout | undefined;
  #audioSinceKeepAlive = false;
  /** end() was called: CloseStream is sent (or will be, on open), and the server's close is the normal end. */
  #ending = false;
  #finished = false;

  constructor(config: DeepgramSttConfig, url: string, signal: AbortSignal) {
    this.#signal = signal;
    this.#keepAliveMs = config.keepAliveMs ?? DEEPGRAM_KEEPALIVE_MS;
    this.#closeTimeoutMs = config.closeTimeoutMs ?? DEEPGRAM_CLOSE_TIMEOUT_MS;
    // A reader that falls behind loses the oldest partials, never a final.
    this.#events = new Channel<SttEvent>(EVENT_QUEUE_CAPACITY, 'drop-oldest', {
      evictable: (event) => event.type === 'partial',
      onReturn: () => this.#shutDown('discard'),
    });
    this.#ws = new WebSocket(url, { headers: { authorization: `Token ${config.apiKey}` } });
    const connectTimeoutMs = config.connectTimeoutMs ?? DEEPGRAM_CONNECT_TIMEOUT_MS;
    this.#connectTimer = setTimeout(
      () => this.#fail(new ProviderError('upstream_timeout', NAME, `no websocket within ${connectTimeoutMs} ms`)),
      connectTimeoutMs,
    );
    this.#ws.on('open', () => this.#opened());
    this.#ws.on('message', (data, isBinary) => {
      if (!isBinary) this.#message(data.toString());
    });
    this.#ws.on('unexpected-response', (_req, res) => void this.#refused(res));
    this.#ws.on('error', (err) =>
      this.#fail(new ProviderError('upstream_failed', NAME, 'websocket failed', { cause: err })),
    );
    this.#ws.on('close', (code, reason) => this.#closed(code, reason.toString()));
    if (signal.aborted) this.#shutDown('discard');
    else signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  push(samples: Int16Array): void {
    if (this.#ending || this.#finished) return;
    // A copy (pcm16ToBytesLE shares nothing): ws masks client frames in place, and the caller reuses its frames.
    const bytes = pcm16ToBytesLE(samples);
    if (this.#ws.readyState === WebSocket.OPEN) {
      this.#ws.send(bytes);
      this.#audioSinceKeepAlive = true;
      return;
    }
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    const limit = (PENDING_AUDIO_MS * ENGINE_SAMPLE_RATE * 2) / 1000;
    while (this.#pendingBytes > limit) {
      const index = this.#pending.findIndex((item) => item !== 'finalize');
      const [dropped] = this.#pending.splice(index, 1);
      this.#pendingBytes -= (dropped as Buffer).length;
    }
  }

  endOfUtterance(): void {
    if (this.#ending || this.#finished) return;
    if (this.#ws.readyState === WebSocket.OPEN) this.#control('Finalize');
    else this.#pending.push('finalize');
  }

  end(): void {
    if (this.#ending || this.#finished) return;
    this.#ending = true;
    if (this.#ws.readyState === WebSocket.OPEN) this.#closeStream();
  }

  [Symbol.asyncIterator](): AsyncIterator<SttEvent> {
    return this.#events[Symbol.asyncIterator]();
  }

  #opened(): void {
    clearTimeout(this.#connectTimer);
    if (this.#finished) return;
    for (const item of this.#pending) {
      if (item === 'finalize') this.#control('Finalize');
      else this.#ws.send(item);
    }
    this.#audioSinceKeepAlive = this.#pending.length > 0;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#keepAliveTimer = setInterval(() => {
      if (!this.#audioSinceKeepAlive) this.#control('KeepAlive');
      this.#audioSinceKeepAlive = false;
    }, this.#keepAliveMs);
    if (this.#ending) this.#closeStream();
  }

  #closeStream(): void {
    this.#control('CloseStream');
    clearInterval(this.#keepAliveTimer);
    this.#closeTimer = setTimeout(() => this.#shutDown('end'), this.#closeTimeoutMs);
  }

  #control(type: 'Finalize' | 'KeepAlive' | 'CloseStream'): void {
    // Text frames: Deepgram mishandles control messages sent as binary.
    this.#ws.send(JSON.stringify({ type }));
  }

  #message(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (err) {
      this.#fail(new ProviderError('bad_response', NAME, 'a message is not JSON', { cause: err }));
      return;
    }
    const type = (message as { type?: unknown } | null)?.type;
    if (type === 'Results') {
      for (const event of this.#utterance.take(message as DeepgramResults)) this.#events.push(event);
    } else if (type === 'Error') {
      const { description } = message as { description?: unknown };
      this.#fail(
        new ProviderError('upstream_failed', NAME, `error message: ${String(description ?? 'no description')}`),
      );
    }
    // Metadata, SpeechStarted, UtteranceEnd: nothing a transcript needs.
  }

  /** The handshake was answered with an HTTP error (401 bad key, 400 bad parameters, 429 too many streams). */
  async #refused(res: IncomingMessage): Promise<void> {
    let detail = '';
    try {
      const parts: Buffer[] = [];
      let size = 0;
      for await (const part of res as AsyncIterable<Buffer>) {
        parts.push(part);
        size += part.length;
        if (size >= ERROR_BODY_LIMIT_BYTES) break;
      }
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { err_msg?: unknown; err_code?: unknown };
      detail = `: ${String(body.err_code ?? '')} ${String(body.err_msg ?? '')}`.trimEnd();
    } catch {
      detail = '';
    }
    const status = res.statusCode ?? 0;
    const retryAfter = res.headers['retry-after'];
    this.#fail(
      new ProviderError(codeForStatus(status), NAME, `handshake refused with HTTP ${status}${detail}`, {
        status,
        retryAfterMs: parseRetryAfter(typeof retryAfter === 'string' ? retryAfter : null),
      }),
    );
  }

  #closed(code: number, reason: string): void {
    if (this.#finished) return;
    if (this.#ending) {
      this.#shutDown('end');
      return;
    }
    // Deepgram closes with 1008 for data it cannot decode and 1011 for its own failures (NET-0001: no audio).
    const errorCode = code === 1008 ? 'invalid_request' : 'upstream_failed';
    this.#fail(
      new ProviderError(errorCode, NAME, `closed by the server (${code}${reason === '' ? '' : ` ${reason}`})`),
    );
  }

  #fail(error: ProviderError): void {
    if (this.#finished) return;
    if (this.#signal.aborted) {
      this.#shutDown('discard');
      return;
    }
    for (const event of this.#utterance.flush()) this.#events.push(event);
    this.#events.fail(error);
    this.#shutDown('keep');
  }

  /**
   * Stops everything once: timers, the abort listener, the socket.
   * @param events 'end' delivers what is settled then ends, 'discard' drops it (abort), 'keep' leaves the queue as is
   */
  #shutDown(events: 'end' | 'discard' | 'keep'): void {
    if (this.#finished) return;
    this.#finished = true;
    clearTimeout(this.#connectTimer);
    clearTimeout(this.#closeTimer);
    clearInterval(this.#keepAliveTimer);
    this.#signal.removeEventListener('abort', this.#onAbort);
    this.#pending = [];
    if (events === 'end') {
      for (const event of this.#utterance.flush()) this.#events.push(event);
      this.#events.end();
    } else if (events === 'discard') {
      this.#events.discard();
    }
    if (this.#ws.readyState === WebSocket.OPEN) this.#ws.close(1000);
    else if (this.#ws.readyState === WebSocket.CONNECTING) this.#ws.terminate();
  }
}
