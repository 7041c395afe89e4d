/**
 * Each simulated carrier's side of a media stream, as its public documentation describes it (docs/architecture.md §5):
 * the messages it sends (connected, start, media, dtmf, mark echoes, stop) and its reading of what the engine sends
 * back, checked strictly: a field the carrier would refuse or ignore is a protocol violation the test sees.
 *
 * - carrier-b, Twilio Media Streams: camelCase, numbers as strings, μ-law 8 kHz, marks echoed on playout and all
 *   pending ones at once on `clear`.
 * - carrier-a, Plivo audio streams: `playAudio` / `checkpoint` / `clearAudio` / `sendDTMF`; checkpoints answered
 *   by `playedStream` only when their audio played; a clear answered by one `clearedAudio`; no stop message.
 * - carrier-c, Exotel voicebot: snake_case, L16 little-endian 8 kHz (or 16/24 kHz), ~100 ms chunks both ways,
 *   outbound payloads whole multiples of 320 bytes.
 */
import { bytesPerSample, type SimCarrier, type SimFormat } from './sim-format.ts';

/** Who a stream is, as its start message tells the engine. */
export interface StreamIdentity {
  streamId: string;
  callId: string;
  accountId: string;
  from?: string;
  to?: string;
  /** Twilio <Parameter>s, Plivo extraHeaders, Exotel custom parameters. */
  parameters: Record<string, string>;
  format: SimFormat;
}

/** What the engine asked of the carrier, read from one of its messages. */
export type FarEndCommand =
  | { kind: 'media'; bytes: Buffer }
  | { kind: 'mark'; name: string }
  | { kind: 'clear' }
  | { kind: 'digits'; digits: string }
  | { kind: 'invalid'; why: string };

export interface StreamDialect {
  readonly carrier: SimCarrier;
  /** Caller audio per media message, ms. */
  readonly inboundChunkMs: number;
  /** What the carrier does with marks pending at a clear: echo them at once, or drop them. */
  readonly marksOnClear: 'echoed' | 'dropped';
  /** The messages that open the stream. `seq` numbers each message the carrier sends. */
  opening(id: StreamIdentity, seq: () => number): string[];
  media(id: StreamIdentity, payload: Buffer, chunk: number, elapsedMs: number, seq: number): string;
  dtmf(id: StreamIdentity, digit: string, seq: number): string;
  markEcho(id: StreamIdentity, name: string, seq: number): string;
  /** The acknowledgement of a clear, on carriers that send one. */
  cleared?(id: StreamIdentity, seq: number): string;
  /** The goodbye before the carrier closes the socket, on carriers that send one. */
  stop?(id: StreamIdentity, seq: number): string;
  /** One message from the engine. */
  read(text: string, id: StreamIdentity): FarEndCommand;
}

const DTMF = /^[0-9A-D*#]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

type Json = Record<string, unknown>;

function parse(text: string): Json | string {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
    return value as Json;
  } catch {
    return 'not JSON';
  }
}

function obj(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function payloadBytes(value: unknown, format: SimFormat): Buffer | string {
  if (typeof value !== 'string' || value === '') return 'media without payload';
  if (!BASE64.test(value)) return 'payload is not base64';
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length % bytesPerSample(format) !== 0) return `payload of ${bytes.length} bytes is not whole samples`;
  return bytes;
}

function exactKeys(message: Json, allowed: readonly string[]): string | undefined {
  const extra = Object.keys(message).filter((key) => !allowed.includes(key));
  return extra.length ? `unexpected field ${extra.join(', ')}` : undefined;
}

const carrierB: StreamDialect = {
  carrier: 'carrier-b',
  inboundChunkMs: 20,
  marksOnClear: 'echoed',
  opening(id, seq) {
    return [
      JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }),
      JSON.stringify({
        event: 'start',
        sequenceNumber: String(seq()),
        start: {
          accountSid: id.accountId,
          streamSid: id.streamId,
          callSid: id.callId,
          tracks: ['inbound'],
          mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
          customParameters: id.parameters,
        },
        streamSid: id.streamId,
      }),
    ];
  },
  media: (id, payload, chunk, elapsedMs, seq) =>
    JSON.stringify({
      event: 'media',
      sequenceNumber: String(seq),
      media: {
        track: 'inbound',
        chunk: String(chunk),
        timestamp: String(elapsedMs),
        payload: payload.toString('base64'),
      },
      streamSid: id.streamId,
    }),
  dtmf: (id, digit, seq) =>
    JSON.stringify({
      event: 'dtmf',
      streamSid: id.streamId,
      sequenceNumber: String(seq),
      dtmf: { track: 'inbound_track', digit },
    }),
  markEcho: (id, name, seq) =>
    JSON.stringify({ event: 'mark', sequenceNumber: String(seq), streamSid: id.streamId, mark: { name } }),
  stop: (id, seq) =>
    JSON.stringify({
      event: 'stop',
      sequenceNumber: String(seq),
      streamSid: id.streamId,
      stop: { accountSid: id.accountId, callSid: id.callId },
    }),
  read(text, id) {
    const message = parse(text);
    if (typeof message === 'string') return { kind: 'invalid', why: message };
    if (message.streamSid !== id.streamId)
      return { kind: 'invalid', why: `${String(message.event)} with streamSid ${String(message.streamSid)}` };
    switch (message.event) {
      case 'media': {
        const bytes = payloadBytes(obj(message.media)?.payload, id.format);
        return typeof bytes === 'string' ? { kind: 'invalid', why: bytes } : { kind: 'media', bytes };
      }
      case 'mark': {
        const name = obj(message.mark)?.name;
        return typeof name === 'string' && name
          ? { kind: 'mark', name }
          : { kind: 'invalid', why: 'mark without name' };
      }
      case 'clear':
        return { kind: 'clear' };
      default:
        return { kind: 'invalid', why: `carrier-b has no outbound event ${String(message.event)}` };
    }
  },
};

const CONTENT_TYPES = { mulaw: 'audio/x-mulaw', l16: 'audio/x-l16' } as const;

const carrierA: StreamDialect = {
  carrier: 'carrier-a',
  inboundChunkMs: 20,
  marksOnClear: 'dropped',
  opening(id, seq) {
    return [
      JSON.stringify({
        event: 'start',
        sequenceNumber: seq(),
        start: {
          callId: id.callId,
          streamId: id.streamId,
          accountId: id.accountId,
          tracks: ['inbound'],
          mediaFormat: { encoding: CONTENT_TYPES[id.format.encoding], sampleRate: id.format.sampleRate },
        },
        extra_headers: Object.entries(id.parameters)
          .map(([k, v]) => `${k}=${v}`)
          .join(';'),
      }),
    ];
  },
  media: (id, payload, chunk, _elapsedMs, seq) =>
    JSON.stringify({
      event: 'media',
      sequenceNumber: seq,
      streamId: id.streamId,
      media: { track: 'inbound', timestamp: String(Date.now()), chunk, payload: payload.toString('base64') },
    }),
  dtmf: (id, digit, seq) =>
    JSON.stringify({
      event: 'dtmf',
      sequenceNumber: seq,
      streamId: id.streamId,
      dtmf: { track: 'inbound', digit, timestamp: String(Date.now()) },
    }),
  markEcho: (id, name, seq) =>
    JSON.stringify({ event: 'playedStream', sequenceNumber: seq, streamId: id.streamId, name }),
  cleared: (id, seq) => JSON.stringify({ event: 'clearedAudio', sequenceNumber: seq, streamId: id.streamId }),
  read(text, id) {
    const message = parse(text);
    if (typeof message === 'string') return { kind: 'invalid', why: message };
    switch (message.event) {
      case 'playAudio': {
        const media = obj(message.media);
        if (!media) return { kind: 'invalid', why: 'playAudio without media' };
        if (message.streamId !== undefined && message.streamId !== id.streamId)
          return { kind: 'invalid', why: 'playAudio of another stream' };
        if (media.contentType !== CONTENT_TYPES[id.format.encoding])
          return {
            kind: 'invalid',
            why: `playAudio as ${String(media.contentType)} on a ${CONTENT_TYPES[id.format.encoding]} stream`,
          };
        if (Number(media.sampleRate) !== id.format.sampleRate)
          return {
            kind: 'invalid',
            why: `playAudio at ${String(media.sampleRate)} Hz on a ${id.format.sampleRate} Hz stream`,
          };
        const bytes = payloadBytes(media.payload, id.format);
        return typeof bytes === 'string' ? { kind: 'invalid', why: bytes } : { kind: 'media', bytes };
      }
      case 'checkpoint':
        if (message.streamId !== id.streamId) return { kind: 'invalid', why: 'checkpoint without its streamId' };
        return typeof message.name === 'string' && message.name
          ? { kind: 'mark', name: message.name }
          : { kind: 'invalid', why: 'checkpoint without name' };
      case 'clearAudio':
        return message.streamId === id.streamId
          ? { kind: 'clear' }
          : { kind: 'invalid', why: 'clearAudio without its streamId' };
      case 'sendDTMF':
        return typeof message.dtmf === 'string' && DTMF.test(message.dtmf)
          ? { kind: 'digits', digits: message.dtmf }
          : { kind: 'invalid', why: 'sendDTMF without digits' };
      default:
        return { kind: 'invalid', why: `carrier-a has no outbound event ${String(message.event)}` };
    }
  },
};

/** Exotel's outbound payloads: whole multiples of this many bytes. */
const CARRIER_C_BYTE_MULTIPLE = 320;

const carrierC: StreamDialect = {
  carrier: 'carrier-c',
  inboundChunkMs: 100,
  marksOnClear: 'echoed',
  opening(id, seq) {
    return [
      JSON.stringify({ event: 'connected' }),
      JSON.stringify({
        event: 'start',
        sequence_number: String(seq()),
        stream_sid: id.streamId,
        start: {
          stream_sid: id.streamId,
          call_sid: id.callId,
          account_sid: id.accountId,
          from: id.from ?? '',
          to: id.to ?? '',
          custom_parameters: id.parameters,
          media_format: { encoding: 'audio/x-raw', sample_rate: String(id.format.sampleRate), bit_rate: '16' },
        },
      }),
    ];
  },
  media: (id, payload, chunk, elapsedMs, seq) =>
    JSON.stringify({
      event: 'media',
      sequence_number: String(seq),
      stream_sid: id.streamId,
      media: { chunk: String(chunk), timestamp: String(elapsedMs), payload: payload.toString('base64') },
    }),
  dtmf: (id, digit, seq) =>
    JSON.stringify({
      event: 'dtmf',
      sequence_number: String(seq),
      stream_sid: id.streamId,
      dtmf: { digit, duration: '100' },
    }),
  markEcho: (id, name, seq) =>
    JSON.stringify({ event: 'mark', sequence_number: String(seq), stream_sid: id.streamId, mark: { name } }),
  stop: (id, seq) =>
    JSON.stringify({
      event: 'stop',
      sequence_number: String(seq),
      stream_sid: id.streamId,
      stop: { call_sid: id.callId, account_sid: id.accountId, reason: 'callended' },
    }),
  read(text, id) {
    const message = parse(text);
    if (typeof message === 'string') return { kind: 'invalid', why: message };
    if (message.stream_sid !== id.streamId)
      return { kind: 'invalid', why: `${String(message.event)} with stream_sid ${String(message.stream_sid)}` };
    switch (message.event) {
      case 'media': {
        const extra = exactKeys(message, ['event', 'stream_sid', 'media']);
        if (extra) return { kind: 'invalid', why: extra };
        const bytes = payloadBytes(obj(message.media)?.payload, id.format);
        if (typeof bytes === 'string') return { kind: 'invalid', why: bytes };
        if (bytes.length % CARRIER_C_BYTE_MULTIPLE !== 0)
          return {
            kind: 'invalid',
            why: `media of ${bytes.length} bytes, not a multiple of ${CARRIER_C_BYTE_MULTIPLE}`,
          };
        return { kind: 'media', bytes };
      }
      case 'mark': {
        const name = obj(message.mark)?.name;
        return typeof name === 'string' && name
          ? { kind: 'mark', name }
          : { kind: 'invalid', why: 'mark without name' };
      }
      case 'clear':
        return { kind: 'clear' };
      default:
        return { kind: 'invalid', why: `carrier-c has no outbound event ${String(message.event)}` };
    }
  },
};

export const STREAM_DIALECTS: Readonly<Record<SimCarrier, StreamDialect>> = {
  'carrier-a': carrierA,
  'carrier-b': carrierB,
  'carrier-c': carrierC,
};
