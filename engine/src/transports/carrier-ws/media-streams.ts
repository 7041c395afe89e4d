/**
 * The Twilio Media Streams protocol, written once for every carrier that speaks it (carrier-b is Twilio itself;
 * carrier-c is Exotel's copy of it), docs/architecture.md §5. A dialect says only where its carrier differs: how its
 * fields are spelled, which codecs its start may announce, which media tracks are the caller's, whether its stop
 * says why, and how large its outbound chunks must be.
 *
 * In:  connected, start (stream id, call id, account id, custom parameters, media format), media (track, chunk,
 *      payload), dtmf (digit), mark (our mark echoed: played, or dropped by a clear), stop.
 * Out: media (payload), mark (name), clear, each naming the stream.
 *
 * Both echo every mark pending at a clear at once; neither can send DTMF over the stream.
 */
import type { CarrierMessage, CarrierProtocol, MediaCarrier, StreamFormat, StreamStart } from './carrier-protocol.ts';
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

/**
 * How a dialect spells the fields that carry ids and formats: each lists the names accepted, preferred first (the
 * first is the one written on outbound messages).
 */
export interface MediaStreamsFields {
  streamId: readonly [string, ...string[]];
  callId: readonly string[];
  accountId: readonly string[];
  customParameters: readonly string[];
  mediaFormat: readonly string[];
  sampleRate: readonly string[];
}

/** A start's media format as announced, when it announced one. */
export interface AnnouncedFormat {
  encoding: string | undefined;
  sampleRate: number | undefined;
}

export interface MediaStreamsDialect {
  carrier: MediaCarrier;
  fields: MediaStreamsFields;
  /** The stream format a start's announced media format means (`announced` undefined: the start named none), or why not. */
  codec(announced: AnnouncedFormat | undefined): StreamFormat | { why: string };
  /** Tracks of inbound media that are the caller's; undefined: the carrier sends the caller's track only. */
  callerTracks?: readonly string[];
  /** Start fields other than the custom parameters that are passed along as parameters (Exotel's from and to). */
  startParameters?: readonly string[];
  /** The stop says why the stream stopped (`stop.reason`). */
  stopReason?: boolean;
  outboundChunkMs: number;
  outboundByteMultiple: number;
}

/** The carrier protocol of a Media Streams dialect. */
export function mediaStreamsProtocol(dialect: MediaStreamsDialect): CarrierProtocol {
  const streamField = dialect.fields.streamId[0];
  const outbound = (start: StreamStart, event: string, body: JsonObject = {}) =>
    JSON.stringify({ event, [streamField]: start.streamId, ...body });
  return {
    carrier: dialect.carrier,
    marksOnClear: 'echoed',
    outboundChunkMs: dialect.outboundChunkMs,
    outboundByteMultiple: dialect.outboundByteMultiple,
    parse: (text) => parse(dialect, text),
    encodeMedia: (start, payload) => outbound(start, 'media', { media: { payload } }),
    encodeMark: (start, name) => outbound(start, 'mark', { mark: { name } }),
    encodeClear: (start) => outbound(start, 'clear'),
  };
}

function parse(dialect: MediaStreamsDialect, text: string): CarrierMessage {
  const read = readEvent(text);
  if ('type' in read) return read;
  const { event, message } = read;
  switch (event) {
    case 'connected':
      return { type: 'connected' };
    case 'start':
      return parseStart(dialect, message);
    case 'media': {
      const media = objectAt(message, 'media');
      if (!media) return { type: 'malformed', why: 'media without media object' };
      const track = stringAt(media, 'track');
      if (dialect.callerTracks && track !== undefined && !dialect.callerTracks.includes(track))
        return { type: 'skip', event: `media of track ${track}` };
      return mediaMessage(media.payload, integerAt(media, 'chunk'));
    }
    case 'dtmf':
      return dtmfMessage(objectAt(message, 'dtmf')?.digit);
    case 'mark':
      return markMessage(objectAt(message, 'mark')?.name);
    case 'stop':
      return {
        type: 'stop',
        reason: dialect.stopReason ? stringAt(objectAt(message, 'stop') ?? {}, 'reason') : undefined,
      };
    default:
      return { type: 'unknown', event };
  }
}

function parseStart(dialect: MediaStreamsDialect, message: JsonObject): CarrierMessage {
  const { fields } = dialect;
  const start = objectAt(message, 'start');
  const streamId = (start && first(start, fields.streamId, stringAt)) ?? first(message, fields.streamId, stringAt);
  if (!start || !streamId) return { type: 'malformed', why: `start without ${fields.streamId[0]}` };
  const mediaFormat = first(start, fields.mediaFormat, objectAt);
  const format = dialect.codec(
    mediaFormat && {
      encoding: stringAt(mediaFormat, 'encoding'),
      sampleRate: first(mediaFormat, fields.sampleRate, integerAt),
    },
  );
  if ('why' in format) return { type: 'malformed', why: format.why };
  const parameters = stringMap(
    fields.customParameters.map((key) => start[key]).find((value) => value !== undefined && value !== null),
  );
  for (const key of dialect.startParameters ?? []) {
    const value = stringAt(start, key);
    if (value !== undefined && parameters[key] === undefined) parameters[key] = value;
  }
  const parsed: StreamStart = {
    streamId,
    callId: first(start, fields.callId, stringAt),
    accountId: first(start, fields.accountId, stringAt),
    format,
    parameters,
  };
  return { type: 'start', start: parsed };
}

/** The value of the first of `keys` that `read` finds in `object`. */
function first<T>(
  object: JsonObject,
  keys: readonly string[],
  read: (object: JsonObject, key: string) => T | undefined,
): T | undefined {
  for (const key of keys) {
    const value = read(object, key);
    if (value !== undefined) return value;
  }
  return undefined;
}
