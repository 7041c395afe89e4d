/**
 * carrier-b's media stream: Twilio Media Streams, bidirectional (`<Connect><Stream url="wss://…">` with
 * `<Parameter>`s), docs/architecture.md §5. Audio both ways is G.711 μ-law at 8 kHz, mono, base64, no headers.
 *
 * In:  connected, start (streamSid, callSid, customParameters, mediaFormat), media (track, chunk, timestamp,
 *      payload), dtmf, mark (our mark echoed: played, or dropped by a clear), stop.
 * Out: media (payload), mark (name), clear.
 *
 * Twilio echoes every mark pending at a clear at once; it has no way to send DTMF over the stream.
 */
import type { CarrierMessage, CarrierProtocol, StreamStart } from './carrier-protocol.ts';
import {
  dtmfMessage,
  integerAt,
  markMessage,
  mediaMessage,
  objectAt,
  readEvent,
  stringAt,
  stringMap,
  type JsonObject,
} from './carrier-json.ts';

export const carrierB: CarrierProtocol = {
  carrier: 'carrier-b',
  marksOnClear: 'echoed',
  outboundChunkMs: 20,
  outboundByteMultiple: 1,

  parse(text: string): CarrierMessage {
    const read = readEvent(text);
    if ('type' in read) return read;
    const { event, message } = read;
    switch (event) {
      case 'connected':
        return { type: 'connected' };
      case 'start':
        return parseStart(message);
      case 'media': {
        const media = objectAt(message, 'media');
        if (!media) return { type: 'malformed', why: 'media without media object' };
        // A bidirectional stream carries the caller only; any other track is not for us.
        const track = stringAt(media, 'track');
        if (track !== undefined && track !== 'inbound' && track !== 'inbound_track')
          return { type: 'skip', event: `media of track ${track}` };
        return mediaMessage(media.payload, integerAt(media, 'chunk'));
      }
      case 'dtmf':
        return dtmfMessage(objectAt(message, 'dtmf')?.digit);
      case 'mark':
        return markMessage(objectAt(message, 'mark')?.name);
      case 'stop':
        return { type: 'stop', reason: undefined };
      default:
        return { type: 'unknown', event };
    }
  },

  encodeMedia: (start, payload) => JSON.stringify({ event: 'media', streamSid: start.streamId, media: { payload } }),
  encodeMark: (start, name) => JSON.stringify({ event: 'mark', streamSid: start.streamId, mark: { name } }),
  encodeClear: (start) => JSON.stringify({ event: 'clear', streamSid: start.streamId }),
};

function parseStart(message: JsonObject): CarrierMessage {
  const start = objectAt(message, 'start');
  const streamId = (start && stringAt(start, 'streamSid')) ?? stringAt(message, 'streamSid');
  if (!start || !streamId) return { type: 'malformed', why: 'start without streamSid' };
  const format = objectAt(start, 'mediaFormat');
  const encoding = format ? stringAt(format, 'encoding') : 'audio/x-mulaw';
  const sampleRate = format ? integerAt(format, 'sampleRate') : 8000;
  if (encoding !== 'audio/x-mulaw' || sampleRate !== 8000) {
    return {
      type: 'malformed',
      why: `start with media format ${encoding ?? '?'} at ${sampleRate ?? '?'} Hz (only audio/x-mulaw at 8000)`,
    };
  }
  const parsed: StreamStart = {
    streamId,
    callId: stringAt(start, 'callSid'),
    accountId: stringAt(start, 'accountSid'),
    format: { encoding: 'mulaw', sampleRate: 8000, byteOrder: 'le' },
    parameters: stringMap(start.customParameters),
  };
  return { type: 'start', start: parsed };
}
