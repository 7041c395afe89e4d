/**
 * carrier-c's media stream: an Exotel-style voicebot stream (the Voicebot applet, or the Connect Voice AI API's
 * `streamurl`), docs/architecture.md §5. Twilio's events with snake_case fields, carrying raw 16-bit linear PCM
 * (little-endian, mono) as base64, at 8000 Hz unless the start's media_format says 16000 or 24000.
 *
 * In:  connected, start (stream_sid, call_sid, account_sid, from, to, custom_parameters, media_format), media
 *      (chunk, timestamp, payload), dtmf (digit, duration), mark (echo), stop (reason).
 * Out: media (payload), mark (name), clear.
 *
 * Exotel asks for outbound payloads in whole multiples of 320 bytes and of about 100 ms (smaller chunks break up
 * on jittery networks). What becomes of marks at a clear is not documented; we take the Twilio behaviour it
 * copies (pending marks echoed at once), which the transport tolerates either way.
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

/** Sample rates the voicebot applet offers (its `sample-rate` URL parameter). */
const SAMPLE_RATES = new Set([8000, 16000, 24000]);

export const carrierC: CarrierProtocol = {
  carrier: 'carrier-c',
  marksOnClear: 'echoed',
  outboundChunkMs: 100,
  outboundByteMultiple: 320,

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
        return mediaMessage(media.payload, integerAt(media, 'chunk'));
      }
      case 'dtmf':
        return dtmfMessage(objectAt(message, 'dtmf')?.digit);
      case 'mark':
        return markMessage(objectAt(message, 'mark')?.name);
      case 'stop':
        return { type: 'stop', reason: stringAt(objectAt(message, 'stop') ?? {}, 'reason') };
      default:
        return { type: 'unknown', event };
    }
  },

  encodeMedia: (start, payload) => JSON.stringify({ event: 'media', stream_sid: start.streamId, media: { payload } }),
  encodeMark: (start, name) => JSON.stringify({ event: 'mark', stream_sid: start.streamId, mark: { name } }),
  encodeClear: (start) => JSON.stringify({ event: 'clear', stream_sid: start.streamId }),
};

function parseStart(message: JsonObject): CarrierMessage {
  const start = objectAt(message, 'start');
  const streamId =
    (start && (stringAt(start, 'stream_sid') ?? stringAt(start, 'streamSid'))) ?? stringAt(message, 'stream_sid');
  if (!start || !streamId) return { type: 'malformed', why: 'start without stream_sid' };
  const format = objectAt(start, 'media_format') ?? objectAt(start, 'mediaFormat');
  const sampleRate = format ? (integerAt(format, 'sample_rate') ?? integerAt(format, 'sampleRate') ?? 8000) : 8000;
  if (!SAMPLE_RATES.has(sampleRate)) return { type: 'malformed', why: `start with sample rate ${sampleRate}` };
  const parameters = stringMap(start.custom_parameters ?? start.customParameters);
  for (const key of ['from', 'to'] as const) {
    const value = stringAt(start, key);
    if (value !== undefined && parameters[key] === undefined) parameters[key] = value;
  }
  const parsed: StreamStart = {
    streamId,
    callId: stringAt(start, 'call_sid') ?? stringAt(start, 'callSid'),
    accountId: stringAt(start, 'account_sid') ?? stringAt(start, 'accountSid'),
    format: { encoding: 'l16', sampleRate, byteOrder: 'le' },
    parameters,
  };
  return { type: 'start', start: parsed };
}
