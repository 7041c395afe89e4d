/**
 * The carrier's side of one media stream: it opens the websocket the answer XML named, says `start`, streams the
 * caller's audio in real time on a 20 ms clock (silence when the caller says nothing, as carriers do), plays the
 * agent's audio out at real time, echoes marks once their audio has played, honours clears, and records all it
 * receives. Usable on its own against any stream URL (`SimStream.connect`), or as part of a simulated call.
 */
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { decodeWav } from '../../../src/audio/wav.ts';
import { Playout } from './playout.ts';
import {
  bytesPerSample,
  concatPcm,
  decodeSim,
  defaultFormat,
  encodeSim,
  toStreamRate,
  type SimCarrier,
  type SimFormat,
} from './sim-format.ts';
import { STREAM_DIALECTS, type StreamDialect, type StreamIdentity } from './stream-dialects.ts';

/** The stream clock's period, ms: carriers send and play 20 ms frames. */
const TICK_MS = 20;
/** Ticks delivered at once after the event loop stalled; beyond that the clock slips rather than floods. */
const MAX_CATCH_UP_TICKS = 10;
/** Default wait of `until`, ms. */
const DEFAULT_WAIT_MS = 10_000;

export interface SimStreamOptions {
  carrier: SimCarrier;
  /** The websocket URL the answer named (`ws://…` or `wss://…`). */
  url: string;
  /** The stream's audio format; the carrier's usual one by default (carrier-a: from its contentType). */
  format?: SimFormat;
  /** What the start carries as custom parameters (Twilio <Parameter>s, Plivo extraHeaders, Exotel's). */
  parameters?: Record<string, string>;
  callId?: string;
  accountId?: string;
  from?: string;
  to?: string;
  /** Headers of the websocket request (an Exotel-style basic auth, say). */
  headers?: Record<string, string>;
}

/** A mark the engine sent, and what the carrier made of it. */
export interface SimMark {
  name: string;
  /** `played`: echoed after its audio played. `cleared`: a clear dropped it (echoed at once, or not at all). */
  outcome: 'played' | 'cleared';
  /** Stream time, ms since the stream opened. */
  atMs: number;
}

export interface StreamRecord {
  /** The agent's audio as received, PCM at the stream's rate, one piece per media message. */
  audio: Int16Array[];
  /** What was played out of it (a clear drops the rest), PCM at the stream's rate, 20 ms a piece. */
  played: Int16Array[];
  marks: SimMark[];
  /** Stream times (ms) at which a clear arrived. */
  clears: number[];
  /** DTMF the engine asked the carrier to play (carrier-a sendDTMF). */
  digits: string[];
  /** Outbound media messages received. */
  mediaMessages: number;
}

export class SimStream {
  readonly carrier: SimCarrier;
  readonly identity: StreamIdentity;
  readonly record: StreamRecord = { audio: [], played: [], marks: [], clears: [], digits: [], mediaMessages: 0 };
  /** What the engine sent that the carrier would have refused or ignored. A correct engine leaves this empty. */
  readonly violations: string[] = [];
  /** Resolves when the socket closes, with the close code and reason (1006: no close frame). */
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly #socket: WebSocket;
  readonly #dialect: StreamDialect;
  readonly #playout = new Playout();
  readonly #listeners = new Set<() => void>();
  /** Caller audio waiting to be sent, at the stream's rate, with what to resolve when each piece has gone. */
  readonly #speechQueue: { samples: Int16Array; offset: number; done: () => void }[] = [];
  readonly #tickWaiters: { tick: number; done: () => void }[] = [];
  #sequence = 0;
  #chunk = 0;
  /** Samples of caller audio sent since the stream opened: the media timestamps. */
  #sentSamples = 0;
  /** Ticks of inbound audio still owed to a burst (sent ahead of time, so the clock skips them). */
  #burstDebt = 0;
  #pendingInbound: Int16Array[] = [];
  #startedAt = 0;
  #ticks = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  private constructor(ws: WebSocket, dialect: StreamDialect, identity: StreamIdentity) {
    this.#socket = ws;
    this.#dialect = dialect;
    this.carrier = dialect.carrier;
    this.identity = identity;
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        this.#closed = true;
        this.#stopClock();
        for (const item of this.#speechQueue.splice(0)) item.done();
        for (const wait of this.#tickWaiters.splice(0)) wait.done();
        this.#notify();
        resolve({ code, reason: reason.toString('utf8') });
      });
    });
    ws.on('message', (data, binary) => this.#onMessage(binary ? '' : data.toString(), binary));
  }

  /**
   * Opens the stream as the carrier would: connects, sends the opening messages (connected, start), starts the
   * clock. Rejects when the server refuses the websocket itself (HTTP error); a websocket the server accepts and
   * then closes (a refused token, 1008) resolves, and `closed` says how it ended.
   */
  static connect(options: SimStreamOptions): Promise<SimStream> {
    const dialect = STREAM_DIALECTS[options.carrier];
    const identity: StreamIdentity = {
      streamId: options.carrier === 'carrier-b' ? `MZ${randomBytes(16).toString('hex')}` : randomUuid(),
      callId:
        options.callId ?? (options.carrier === 'carrier-b' ? `CA${randomBytes(16).toString('hex')}` : randomUuid()),
      accountId:
        options.accountId ??
        (options.carrier === 'carrier-b'
          ? `AC${randomBytes(16).toString('hex')}`
          : `MA${randomBytes(9).toString('hex').toUpperCase()}`),
      from: options.from,
      to: options.to,
      parameters: options.parameters ?? {},
      format: options.format ?? defaultFormat(options.carrier),
    };
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(options.url, { headers: options.headers, perMessageDeflate: false });
      ws.once('unexpected-response', (_req, res) => {
        reject(
          Object.assign(new Error(`the media server answered HTTP ${res.statusCode}`), { status: res.statusCode }),
        );
        res.resume();
        ws.terminate();
      });
      ws.once('error', reject);
      ws.once('open', () => {
        ws.off('error', reject);
        ws.on('error', () => {}); // a reset after opening is seen as a close
        const stream = new SimStream(ws, dialect, identity);
        for (const message of dialect.opening(identity, () => ++stream.#sequence)) ws.send(message);
        stream.#startClock();
        resolve(stream);
      });
    });
  }

  get format(): SimFormat {
    return this.identity.format;
  }

  /** Milliseconds of stream time since the stream opened. */
  get elapsedMs(): number {
    return this.#ticks * TICK_MS;
  }

  get isOpen(): boolean {
    return !this.#closed && this.#socket.readyState === WebSocket.OPEN;
  }

  /** The agent's audio received so far, as one piece of PCM at the stream's rate. */
  receivedAudio(): Int16Array {
    return concatPcm(this.record.audio);
  }

  /** What of it was played (everything received, less what clears dropped), at the stream's rate. */
  playedAudio(): Int16Array {
    return concatPcm(this.record.played);
  }

  /** Names of the marks with `outcome`, in order. */
  marks(outcome: SimMark['outcome'] = 'played'): string[] {
    return this.record.marks.filter((m) => m.outcome === outcome).map((m) => m.name);
  }

  /**
   * The caller speaks `samples` (PCM at `sampleRate`): streamed in real time after what is already queued.
   * Resolves once the last of it has been sent.
   */
  say(samples: Int16Array, sampleRate: number): Promise<void> {
    const audio = toStreamRate(samples, sampleRate, this.format);
    if (this.#closed || audio.length === 0) return Promise.resolve();
    return new Promise((done) => this.#speechQueue.push({ samples: audio, offset: 0, done }));
  }

  /** The caller plays a WAV file (PCM16 mono, any rate), in real time; resolves once it has all been sent. */
  sayWav(wav: Uint8Array): Promise<void> {
    const clip = decodeWav(wav);
    return this.say(clip.samples, clip.sampleRate);
  }

  /** Resolves after `ms` of stream time (the caller is silent meanwhile unless something is queued). */
  pause(ms: number): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((done) =>
      this.#tickWaiters.push({ tick: this.#ticks + Math.max(1, Math.round(ms / TICK_MS)), done }),
    );
  }

  /**
   * Sends `samples` at once, as a carrier catching up after a stall does: every chunk now, in order, with its
   * counter and timestamp; the real-time stream then stays quiet for as long as the burst lasted.
   */
  burst(samples: Int16Array, sampleRate: number): void {
    const audio = toStreamRate(samples, sampleRate, this.format);
    const chunkSamples = (this.format.sampleRate * this.#dialect.inboundChunkMs) / 1000;
    for (let at = 0; at < audio.length; at += chunkSamples) {
      const piece = new Int16Array(chunkSamples);
      piece.set(audio.subarray(at, at + chunkSamples));
      this.#sendMedia(piece);
    }
    this.#burstDebt += Math.ceil(audio.length / ((this.format.sampleRate * TICK_MS) / 1000));
  }

  /** The caller presses a key. */
  press(digit: string): void {
    this.#send(this.#dialect.dtmf(this.identity, digit, ++this.#sequence));
  }

  /** Sends anything at all (malformed frames, unknown events). */
  sendRaw(data: string | Buffer): void {
    if (this.isOpen) this.#socket.send(data);
  }

  /** The caller hangs up: the carrier's goodbye (where it has one), then a normal close. */
  async hangup(): Promise<void> {
    if (this.isOpen) {
      const stop = this.#dialect.stop?.(this.identity, ++this.#sequence);
      if (stop) this.#socket.send(stop);
      this.#socket.close(1000, 'call ended');
    }
    await this.closed;
  }

  /** The connection is lost: no close frame, no goodbye. */
  drop(): void {
    this.#socket.terminate();
  }

  /** Resolves when `check` holds (checked after every message and tick); rejects after `timeoutMs` naming `what`. */
  until(check: () => boolean, what: string, timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const listener = () => {
        if (!check()) return;
        this.#listeners.delete(listener);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#listeners.delete(listener);
        reject(
          new Error(
            `${this.carrier} stream: no ${what} within ${timeoutMs} ms (marks: ${this.record.marks.map((m) => `${m.name}:${m.outcome}`).join(', ') || 'none'}; clears: ${this.record.clears.length}; violations: ${this.violations.join('; ') || 'none'})`,
          ),
        );
      }, timeoutMs);
      this.#listeners.add(listener);
    });
  }

  #onMessage(text: string, binary: boolean): void {
    if (binary) {
      this.violations.push('binary message');
      return this.#notify();
    }
    const command = this.#dialect.read(text, this.identity);
    switch (command.kind) {
      case 'media': {
        const samples = decodeSim(command.bytes, this.format);
        this.record.mediaMessages += 1;
        this.record.audio.push(samples);
        this.#playout.enqueue(samples);
        break;
      }
      case 'mark':
        this.#playout.mark(command.name);
        break;
      case 'clear':
        this.record.clears.push(this.elapsedMs);
        for (const name of this.#playout.clear()) {
          this.record.marks.push({ name, outcome: 'cleared', atMs: this.elapsedMs });
          if (this.#dialect.marksOnClear === 'echoed')
            this.#send(this.#dialect.markEcho(this.identity, name, ++this.#sequence));
        }
        if (this.#dialect.cleared) this.#send(this.#dialect.cleared(this.identity, ++this.#sequence));
        break;
      case 'digits':
        this.record.digits.push(command.digits);
        break;
      case 'invalid':
        this.violations.push(command.why);
        break;
    }
    this.#notify();
  }

  #startClock(): void {
    this.#startedAt = performance.now();
    this.#schedule();
  }

  #schedule(): void {
    const due = this.#startedAt + (this.#ticks + 1) * TICK_MS;
    this.#timer = setTimeout(() => this.#onTimer(), Math.max(0, due - performance.now()));
  }

  #stopClock(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #onTimer(): void {
    if (this.#closed) return;
    let due = Math.floor((performance.now() - this.#startedAt) / TICK_MS) - this.#ticks;
    if (due > MAX_CATCH_UP_TICKS) {
      this.#startedAt += (due - MAX_CATCH_UP_TICKS) * TICK_MS;
      due = MAX_CATCH_UP_TICKS;
    }
    for (let i = 0; i < due && !this.#closed; i += 1) this.#tick();
    if (!this.#closed) this.#schedule();
  }

  /** One 20 ms step of the line: 20 ms of the caller's audio out, 20 ms of the agent's played. */
  #tick(): void {
    this.#ticks += 1;
    const frameSamples = (this.format.sampleRate * TICK_MS) / 1000;
    if (this.#burstDebt > 0) this.#burstDebt -= 1;
    else this.#sendInbound(this.#takeTalk(frameSamples));
    const { played, marks } = this.#playout.tick(frameSamples);
    if (played.length) this.record.played.push(played);
    for (const name of marks) {
      this.record.marks.push({ name, outcome: 'played', atMs: this.elapsedMs });
      this.#send(this.#dialect.markEcho(this.identity, name, ++this.#sequence));
    }
    for (const wait of this.#tickWaiters.filter((w) => w.tick <= this.#ticks)) {
      this.#tickWaiters.splice(this.#tickWaiters.indexOf(wait), 1);
      wait.done();
    }
    this.#notify();
  }

  /** The next `count` samples the caller says: queued talk, then silence. */
  #takeTalk(count: number): Int16Array {
    const frame = new Int16Array(count);
    let at = 0;
    while (at < count && this.#speechQueue.length > 0) {
      const item = this.#speechQueue[0]!;
      const take = Math.min(count - at, item.samples.length - item.offset);
      frame.set(item.samples.subarray(item.offset, item.offset + take), at);
      item.offset += take;
      at += take;
      if (item.offset === item.samples.length) {
        this.#speechQueue.shift();
        item.done();
      }
    }
    return frame;
  }

  /** One tick of caller audio, sent as soon as a whole chunk of the carrier's size is there. */
  #sendInbound(frame: Int16Array): void {
    this.#pendingInbound.push(frame);
    const chunkTicks = this.#dialect.inboundChunkMs / TICK_MS;
    if (this.#pendingInbound.length < chunkTicks) return;
    this.#sendMedia(concatPcm(this.#pendingInbound));
    this.#pendingInbound = [];
  }

  #sendMedia(samples: Int16Array): void {
    this.#chunk += 1;
    const elapsedMs = Math.round((this.#sentSamples * 1000) / this.format.sampleRate);
    this.#sentSamples += samples.length;
    this.#send(
      this.#dialect.media(this.identity, encodeSim(samples, this.format), this.#chunk, elapsedMs, ++this.#sequence),
    );
  }

  #send(message: string): void {
    if (this.isOpen) this.#socket.send(message);
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}

function randomUuid(): string {
  const hex = randomBytes(16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Bytes of `ms` of audio in `format` (for tests that build payloads by hand). */
export function bytesOf(ms: number, format: SimFormat): number {
  return ((format.sampleRate * ms) / 1000) * bytesPerSample(format);
}
