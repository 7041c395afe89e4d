/**
 * What a carrier's media stream protocol is to the engine (docs/architecture.md §5): one file per carrier (carrier-a.ts, …)
 * turns the carrier's JSON messages into CarrierMessage values and writes the carrier's outbound messages; the
 * carrier transport (carrier-transport.ts) does everything else the same way for all of them. A protocol file is
 * pure text in, text out: no sockets, no audio, no timers, so its tests are plain unit tests.
 */

/** Carriers whose calls reach the engine as media websocket streams. */
export const MEDIA_CARRIERS = ['carrier-a', 'carrier-b', 'carrier-c'] as const;
export type MediaCarrier = (typeof MEDIA_CARRIERS)[number];

/** How a stream's audio is carried: G.711 μ-law or 16-bit linear PCM, mono. */
export interface StreamFormat {
  encoding: 'mulaw' | 'l16';
  /** Hz. */
  sampleRate: number;
  /** Byte order of L16 samples (μ-law has one byte per sample). */
  byteOrder: 'le' | 'be';
}

/** The stream's `start`: who it is, and the format both directions use. */
export interface StreamStart {
  /** The carrier's id of this stream (Twilio streamSid, Plivo streamId, Exotel stream_sid); outbound messages name it. */
  streamId: string;
  /** The carrier's id of the call, when it says. */
  callId?: string;
  accountId?: string;
  format: StreamFormat;
  /** What the answer XML passed along (Twilio <Parameter>s, Plivo extraHeaders, Exotel custom parameters). */
  parameters: Record<string, string>;
}

/** One inbound message, as the transport acts on it. Parsing never throws: bad input is `malformed` or `unknown`. */
export type CarrierMessage =
  | { type: 'connected' }
  | { type: 'start'; start: StreamStart }
  /** Caller audio: `payload` is the carrier's base64, checked to be base64; `chunk` its counter, when it has one. */
  | { type: 'media'; payload: string; chunk: number | undefined }
  | { type: 'dtmf'; digit: string }
  /** The far end played everything sent before our mark (or, on carriers that echo them, dropped it on clear). */
  | { type: 'mark'; name: string }
  /** The far end dropped its buffered audio on our clear (Plivo `clearedAudio`). */
  | { type: 'cleared' }
  | { type: 'stop'; reason: string | undefined }
  /** A well-formed message the engine does not act on (e.g. media of the outbound track). */
  | { type: 'skip'; event: string }
  | { type: 'malformed'; why: string }
  | { type: 'unknown'; event: string };

export interface CarrierProtocol {
  readonly carrier: MediaCarrier;
  /** One text message from the carrier. Never throws. */
  parse(text: string): CarrierMessage;
  /** Agent audio (`payload`: the encoded bytes as base64) as the carrier's outbound media message. */
  encodeMedia(start: StreamStart, payload: string): string;
  /** A mark the carrier echoes once the audio sent before it has played. */
  encodeMark(start: StreamStart, name: string): string;
  /** Drops the audio the carrier buffered and has not played yet. */
  encodeClear(start: StreamStart): string;
  /** DTMF digits played to the caller; absent when the carrier's stream cannot send them. */
  encodeDigits?(start: StreamStart, digits: string): string;
  /**
   * What becomes of marks pending at a clear: `echoed` (Twilio, Exotel: each comes back at once, though nothing
   * played) or `dropped` (Plivo: no playedStream for them, one clearedAudio instead).
   */
  readonly marksOnClear: 'echoed' | 'dropped';
  /** Audio per outbound media message, ms: 20 (one frame) where the carrier takes any size. */
  readonly outboundChunkMs: number;
  /** Outbound payloads must be a whole multiple of this many bytes (Exotel: 320); 1 when any length goes. */
  readonly outboundByteMultiple: number;
}
