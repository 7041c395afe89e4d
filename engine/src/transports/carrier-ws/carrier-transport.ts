/**
 * A carrier's media stream as a MediaTransport for a call session: one websocket, one carrier protocol file, the
 * same rules for every carrier.
 *
 * - Inbound: the carrier's `start` fixes the audio format; media is decoded, gaps filled, resampled to 16 kHz and
 *   handed to the session in 20 ms frames (inbound-audio.ts); DTMF and mark echoes follow in order.
 * - Outbound: each frame the session's pacing clock hands over is resampled, encoded and sent at once
 *   (outbound-audio.ts). After each agent clause the session asks for a mark; the mark goes out behind the
 *   clause's last audio, and its echo — the carrier has played the clause — comes back as a `mark` event. A clear
 *   (barge-in) drops what is held here, tells the carrier to drop what it buffered, and forgets the pending marks:
 *   whatever the carrier then says about them (Twilio echoes them all at once) is not reported as played.
 * - Faults never end a call by themselves: a malformed or unknown message is counted and ignored; only the
 *   socket's end does. A close with a close frame is the far end hanging up; a connection lost without one
 *   (reset, missed heartbeats) is reported as dropped, and the call ends as `media_dropped`.
 */
import { Channel } from '../../streams/channel.ts';
import type { MediaTransport, TransportEvent } from '../media-transport.ts';
import { CLOSE_CODES, type MediaSocket } from '../media-server/media-server.ts';
import type { CarrierProtocol, StreamStart } from './carrier-protocol.ts';
import { isDtmfString } from './carrier-json.ts';
import { InboundAudio } from './inbound-audio.ts';
import { CarrierPayloadEncoder } from './carrier-payload-encoder.ts';
import { bytesPerSample, decodeStreamAudio } from './stream-codec.ts';

/**
 * Caller events held for the session, at most: 5 s of 20 ms frames. Past it the oldest caller audio is dropped
 * (late audio is worse than lost audio); DTMF, mark echoes and the hang-up are never dropped. A session reads a
 * frame in microseconds, so only a stalled process comes near this; a 2 s burst from the carrier fits whole.
 */
export const INBOUND_EVENT_CAPACITY = 250;
/** How long a connected stream may take to say `start`, ms: carriers send it at once; 10 s is not a carrier. */
export const STREAM_START_TIMEOUT_MS = 10_000;
/**
 * Agent audio waiting in the socket, at most, bytes (~2 s of carrier messages): a far end that stopped reading
 * gets no more queued behind it; frames are dropped instead (late audio is worse than lost audio).
 */
export const MAX_OUTBOUND_BUFFERED_BYTES = 64 * 1024;
/** Longest audio one inbound media message may carry, ms: 10 s is far past any carrier's chunk (Exotel's biggest is ~6 s). */
export const MAX_MEDIA_MESSAGE_MS = 10_000;
/** Marks awaiting their echo, at most: one per clause; a far end that never echoes loses the oldest. */
const MAX_PENDING_MARKS = 256;
/** Distinct fault descriptions kept for the stream's report. */
const MAX_FAULT_SAMPLES = 5;
/** Close codes that are a goodbye, not a loss: normal, going away, and a close frame without a code. */
const CLEAN_CLOSES = new Set<number>([CLOSE_CODES.normal, CLOSE_CODES.goingAway, 1005]);

export interface CarrierStreamStats {
  /** Text and binary messages received. */
  messages: number;
  /** Media messages taken. */
  media: number;
  /** Messages that were not the carrier's protocol (bad JSON, missing fields, not base64, binary, out of place). */
  malformed: number;
  /** Messages with an event the carrier's protocol does not have. */
  unknown: number;
  /** Well-formed messages the engine does not act on (another track's audio). */
  skipped: number;
  /** A few of the faults, described, for the log. */
  faults: string[];
  /** Media chunks dropped as duplicates or too late. */
  duplicateChunks: number;
  /** 20 ms frames made up for audio the carrier skipped. */
  concealedFrames: number;
  /** Caller frames dropped because the session fell more than INBOUND_EVENT_CAPACITY behind. */
  droppedFrames: number;
  /** Agent audio payloads sent, and dropped because the far end stopped reading. */
  sentPayloads: number;
  droppedPayloads: number;
  marksSent: number;
  /** Mark echoes reported to the session as played. */
  marksPlayed: number;
  /** Marks forgotten at a clear (echoed by the carrier or not). */
  marksCleared: number;
  clears: number;
}

type State = 'connecting' | 'streaming' | 'ended';

export class CarrierTransport implements MediaTransport {
  readonly echoes = false;
  readonly carrier: CarrierProtocol['carrier'];
  /** Resolves with the carrier's `start`; rejects when the stream closes or times out before it. */
  readonly started: Promise<StreamStart>;
  /** Plays DTMF to the caller; present only on carriers whose stream can (carrier-a). */
  readonly sendDigits?: (digits: string) => void;
  /**
   * Moves the caller to another number; present when the endpoint was given a way (the carrier's REST API, through
   * the control plane). Rejects when the carrier did not take it.
   */
  readonly transfer?: (to: string) => Promise<void>;
  readonly #socket: MediaSocket;
  readonly #protocol: CarrierProtocol;
  readonly #events = new Channel<TransportEvent>(INBOUND_EVENT_CAPACITY, 'drop-oldest', {
    evictable: (e) => e.type === 'audio',
  });
  readonly #stats: CarrierStreamStats = {
    messages: 0,
    media: 0,
    malformed: 0,
    unknown: 0,
    skipped: 0,
    faults: [],
    duplicateChunks: 0,
    concealedFrames: 0,
    droppedFrames: 0,
    sentPayloads: 0,
    droppedPayloads: 0,
    marksSent: 0,
    marksPlayed: 0,
    marksCleared: 0,
    clears: 0,
  };
  #state: State = 'connecting';
  #start: StreamStart | undefined;
  #inbound: InboundAudio | undefined;
  #payloadEncoder: CarrierPayloadEncoder | undefined;
  #maxPayloadChars = 0;
  /** Marks sent whose echo has not come, oldest first. */
  #pendingMarks: string[] = [];
  /** Marks pending at a clear on a carrier that echoes them anyway: their echoes are not reported. */
  readonly #clearedMarks = new Set<string>();
  #resolveStarted!: (start: StreamStart) => void;
  #rejectStarted!: (error: Error) => void;
  readonly #startTimer: NodeJS.Timeout;

  /**
   * @param options.startTimeoutMs how long to wait for the carrier's `start`; STREAM_START_TIMEOUT_MS by default
   * @param options.transfer how to transfer the call (a media stream cannot by itself)
   */
  constructor(
    socket: MediaSocket,
    protocol: CarrierProtocol,
    options: { startTimeoutMs?: number; transfer?: (to: string) => Promise<void> } = {},
  ) {
    this.#socket = socket;
    this.#protocol = protocol;
    this.carrier = protocol.carrier;
    this.started = new Promise<StreamStart>((resolve, reject) => {
      this.#resolveStarted = resolve;
      this.#rejectStarted = reject;
    });
    this.started.catch(() => {}); // a caller that never asks is not an unhandled rejection
    this.#startTimer = setTimeout(() => {
      this.#fault('malformed', 'no start message');
      this.#rejectStarted(new Error('the carrier sent no start message'));
      this.hangup('no start message', CLOSE_CODES.policy);
    }, options.startTimeoutMs ?? STREAM_START_TIMEOUT_MS);
    this.#startTimer.unref();
    if (protocol.encodeDigits) this.sendDigits = (digits) => this.#sendDigits(digits);
    if (options.transfer) this.transfer = options.transfer;
    socket.listen({
      message: (data, binary) => this.#onMessage(data, binary),
      closed: (code, reason) => this.#onClosed(code, reason),
    });
  }

  get events(): AsyncIterable<TransportEvent> {
    return this.#events;
  }

  /** The stream's `start`, once it came. */
  get start(): StreamStart | undefined {
    return this.#start;
  }

  /** What happened on the stream so far. */
  get stats(): Readonly<CarrierStreamStats> {
    const inbound = this.#inbound?.stats;
    return {
      ...this.#stats,
      faults: [...this.#stats.faults],
      duplicateChunks: inbound?.duplicateChunks ?? 0,
      concealedFrames: inbound?.concealedFrames ?? 0,
      droppedFrames: this.#events.dropped,
    };
  }

  send(samples: Int16Array): void {
    if (this.#state !== 'streaming') return;
    for (const payload of this.#payloadEncoder!.push(samples)) this.#sendPayload(payload);
  }

  mark(name: string): void {
    if (this.#state !== 'streaming') return;
    for (const payload of this.#payloadEncoder!.flush()) this.#sendPayload(payload);
    this.#socket.send(this.#protocol.encodeMark(this.#start!, name));
    this.#stats.marksSent += 1;
    this.#pendingMarks.push(name);
    if (this.#pendingMarks.length > MAX_PENDING_MARKS) this.#pendingMarks.shift();
  }

  clear(): void {
    if (this.#state !== 'streaming') return;
    this.#payloadEncoder!.reset();
    this.#socket.send(this.#protocol.encodeClear(this.#start!));
    this.#stats.clears += 1;
    this.#stats.marksCleared += this.#pendingMarks.length;
    if (this.#protocol.marksOnClear === 'echoed') {
      for (const name of this.#pendingMarks) this.#clearedMarks.add(name);
      while (this.#clearedMarks.size > MAX_PENDING_MARKS)
        this.#clearedMarks.delete(this.#clearedMarks.values().next().value!);
    }
    this.#pendingMarks = [];
  }

  hangup(reason: string, code: number = CLOSE_CODES.normal): void {
    if (this.#state === 'ended') {
      this.#socket.close(code, reason);
      return;
    }
    this.#end();
    this.#socket.close(code, reason);
  }

  #sendDigits(digits: string): void {
    if (this.#state !== 'streaming' || !isDtmfString(digits)) return;
    this.#socket.send(this.#protocol.encodeDigits!(this.#start!, digits.toUpperCase()));
  }

  #sendPayload(payload: Buffer): void {
    if (this.#socket.bufferedBytes > MAX_OUTBOUND_BUFFERED_BYTES) {
      this.#stats.droppedPayloads += 1;
      return;
    }
    // A socket already closing takes nothing: only what went out counts as sent.
    if (this.#socket.send(this.#protocol.encodeMedia(this.#start!, payload.toString('base64'))))
      this.#stats.sentPayloads += 1;
  }

  #onMessage(data: string, binary: boolean): void {
    this.#stats.messages += 1;
    if (this.#state === 'ended') return;
    if (binary) return this.#fault('malformed', 'binary message');
    const message = this.#protocol.parse(data);
    switch (message.type) {
      case 'connected':
        return;
      case 'start':
        return this.#onStart(message.start);
      case 'malformed':
      case 'unknown':
        return this.#fault(message.type, message.type === 'unknown' ? `unknown event ${message.event}` : message.why);
      case 'skip':
        this.#stats.skipped += 1;
        return;
    }
    if (this.#state !== 'streaming') return this.#fault('malformed', `${message.type} before start`);
    switch (message.type) {
      case 'media':
        return this.#onMedia(message.payload, message.chunk);
      case 'dtmf':
        return this.#events.push({ type: 'dtmf', digit: message.digit });
      case 'mark':
        return this.#onMarkEcho(message.name);
      case 'cleared':
        return;
      case 'stop':
        this.#events.push({
          type: 'hangup',
          reason: message.reason ? `stream stopped: ${message.reason}` : 'stream stopped',
        });
        this.#end();
    }
  }

  #onStart(start: StreamStart): void {
    if (this.#state !== 'connecting') return this.#fault('malformed', 'a second start');
    clearTimeout(this.#startTimer);
    this.#start = start;
    this.#inbound = new InboundAudio(start.format, (samples) => this.#events.push({ type: 'audio', samples }));
    this.#payloadEncoder = new CarrierPayloadEncoder(
      start.format,
      this.#protocol.outboundChunkMs,
      this.#protocol.outboundByteMultiple,
    );
    // Base64 of MAX_MEDIA_MESSAGE_MS of audio: checked on the text, before decoding anything.
    this.#maxPayloadChars =
      Math.ceil((start.format.sampleRate * bytesPerSample(start.format) * MAX_MEDIA_MESSAGE_MS) / 1000 / 3) * 4;
    this.#state = 'streaming';
    this.#resolveStarted(start);
  }

  #onMedia(payload: string, chunk: number | undefined): void {
    if (payload.length > this.#maxPayloadChars) return this.#fault('malformed', 'media payload over the size bound');
    const samples = decodeStreamAudio(Buffer.from(payload, 'base64'), this.#start!.format);
    if (samples.length === 0) return;
    this.#stats.media += 1;
    this.#inbound!.push(samples, chunk);
  }

  #onMarkEcho(name: string): void {
    if (this.#clearedMarks.delete(name)) return;
    const at = this.#pendingMarks.indexOf(name);
    if (at < 0) return this.#fault('malformed', 'echo of a mark never sent');
    // Echoes come in order: one for a later mark means everything before it played too.
    for (const played of this.#pendingMarks.splice(0, at + 1)) {
      this.#stats.marksPlayed += 1;
      this.#events.push({ type: 'mark', name: played });
    }
  }

  #onClosed(code: number, reason: string): void {
    clearTimeout(this.#startTimer);
    this.#rejectStarted(new Error(`the stream closed before its start (${code}${reason ? ` ${reason}` : ''})`));
    if (this.#state === 'ended') return;
    const dropped = !CLEAN_CLOSES.has(code);
    this.#events.push({
      type: 'hangup',
      reason: dropped ? `media connection lost (${code})` : 'stream closed',
      dropped,
    });
    this.#end();
  }

  #end(): void {
    if (this.#state === 'ended') return;
    this.#state = 'ended';
    clearTimeout(this.#startTimer);
    this.#rejectStarted(new Error('the stream ended before its start'));
    this.#events.end();
  }

  #fault(kind: 'malformed' | 'unknown', why: string): void {
    this.#stats[kind] += 1;
    if (this.#stats.faults.length < MAX_FAULT_SAMPLES && !this.#stats.faults.includes(why))
      this.#stats.faults.push(why);
  }
}
