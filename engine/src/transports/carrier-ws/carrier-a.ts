/**
 * carrier-a's media stream: Plivo audio streams, bidirectional (`<Stream bidirectional="true" keepCallAlive="true"
 * contentType="audio/x-mulaw;rate=8000">wss://…</Stream>`), docs/architecture.md §5. The start's mediaFormat says the audio
 * format of both directions: audio/x-mulaw at 8000 Hz, or audio/x-l16 at 8000 or 16000 Hz.
 *
 * In:  start (callId, streamId, accountId, mediaFormat, extra_headers), media (track, timestamp, chunk, payload),
 *      dtmf, playedStream (a checkpoint played), clearedAudio (our clearAudio done).
 * Out: playAudio (contentType, sampleRate, payload), checkpoint (name), clearAudio, sendDTMF (digits).
 *
 * Plivo sends no stop over the stream (its end arrives on the statusCallbackUrl); the socket simply closes. It
 * never echoes checkpoints that a clearAudio dropped: playedStream comes only for audio that played.
 */
import type { CarrierMessage, CarrierProtocol, StreamFormat, StreamStart } from './carrier-protocol.ts';
import {
  dtmfMessage,
  integerAt,
  markMessage,
  mediaMessage,
  objectAt,
  readEvent,
  stringAt,
  type JsonObject,
} from './carrier-json.ts';

/**
 * Byte order of Plivo's audio/x-l16. Its documentation says only "raw audio"; RFC 3551's L16 is big-endian, but
 * what Plivo streams and plays is little-endian PCM (every public integration sends the host's native samples),
 * and so do we. One constant, so that a correction is one edit.
 */
export const CARRIER_A_L16_BYTE_ORDER: StreamFormat['byteOrder'] = 'le';

const CONTENT_TYPES = { mulaw: 'audio/x-mulaw', l16: 'audio/x-l16' } as const;

export const carrierA: CarrierProtocol = {
  carrier: 'carrier-a',
  marksOnClear: 'dropped',
  outboundChunkMs: 20,
  outboundByteMultiple: 1,

  parse(text: string): CarrierMessage {
    const read = readEvent(text);
    if ('type' in read) return read;
    const { event, message } = read;
    switch (event) {
      case 'start':
        return parseStart(message);
      case 'media': {
        const media = objectAt(message, 'media');
        if (!media) return { type: 'malformed', why: 'media without media object' };
        const track = stringAt(media, 'track');
        if (track !== undefined && track !== 'inbound') return { type: 'skip', event: `media of track ${track}` };
        return mediaMessage(media.payload, integerAt(media, 'chunk'));
      }
      case 'dtmf':
        return dtmfMessage(objectAt(message, 'dtmf')?.digit);
      // `played` is what Plivo's older documentation calls the same acknowledgement.
      case 'playedStream':
      case 'played':
        return markMessage(message.name);
      case 'clearedAudio':
        return { type: 'cleared' };
      case 'stop':
        return { type: 'stop', reason: undefined };
      default:
        return { type: 'unknown', event };
    }
  },

  encodeMedia: (start, payload) =>
    JSON.stringify({
      event: 'playAudio',
      streamId: start.streamId,
      media: { contentType: CONTENT_TYPES[start.format.encoding], sampleRate: start.format.sampleRate, payload },
    }),
  encodeMark: (start, name) => JSON.stringify({ event: 'checkpoint', streamId: start.streamId, name }),
  encodeClear: (start) => JSON.stringify({ event: 'clearAudio', streamId: start.streamId }),
  encodeDigits: (_start, digits) => JSON.stringify({ event: 'sendDTMF', dtmf: digits }),
};

function parseStart(message: JsonObject): CarrierMessage {
  const start = objectAt(message, 'start');
  const streamId = start && stringAt(start, 'streamId');
  if (!start || !streamId) return { type: 'malformed', why: 'start without streamId' };
  const mediaFormat = objectAt(start, 'mediaFormat');
  const encoding = mediaFormat ? stringAt(mediaFormat, 'encoding') : undefined;
  const sampleRate = mediaFormat ? integerAt(mediaFormat, 'sampleRate') : undefined;
  let format: StreamFormat | undefined;
  if (encoding === CONTENT_TYPES.mulaw && sampleRate === 8000)
    format = { encoding: 'mulaw', sampleRate, byteOrder: 'le' };
  else if (encoding === CONTENT_TYPES.l16 && (sampleRate === 8000 || sampleRate === 16000))
    format = { encoding: 'l16', sampleRate, byteOrder: CARRIER_A_L16_BYTE_ORDER };
  if (!format)
    return { type: 'malformed', why: `start with media format ${encoding ?? '?'} at ${sampleRate ?? '?'} Hz` };
  const parsed: StreamStart = {
    streamId,
    callId: stringAt(start, 'callId'),
    accountId: stringAt(start, 'accountId'),
    format,
    parameters: extraHeaders(message.extra_headers),
  };
  return { type: 'start', start: parsed };
}

/** Plivo's extraHeaders as they arrive: `k=v` pairs joined by `;` (its examples also show `,`). */
export function extraHeaders(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof value !== 'string') return out;
  for (const pair of value.split(/[;,]/)) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    out[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return out;
}
