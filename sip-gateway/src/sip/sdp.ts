/**
 * SDP offer/answer for one audio stream (RFC 4566, RFC 3264): G.711 (PCMU 0, PCMA 8) at 8 kHz with 20 ms packets,
 * and RFC 4733 telephone-event for DTMF. We answer the first G.711 codec the offer lists, and telephone-event when
 * offered; a hold (sendonly, inactive, or the old c=0.0.0.0) is answered with the matching direction.
 */

export type Codec = 'PCMU' | 'PCMA';
export type Direction = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';

/** The static payload types of G.711 (RFC 3551). */
export const CODEC_PAYLOAD_TYPES: Record<Codec, number> = { PCMU: 0, PCMA: 8 };
/** The payload type we offer telephone-event at: the common choice (Asterisk, FreeSWITCH, SIPp). */
export const OFFER_TELEPHONE_EVENT_PT = 101;
/** Longest SDP body read, bytes: a real one is a few hundred. */
const MAX_SDP_BYTES = 16_384;

export interface MediaDescription {
  address: string;
  port: number;
  /** Payload types in the offer's order of preference. */
  payloadTypes: number[];
  /** rtpmap: payload type → encoding name (upper case) and clock rate. */
  rtpmap: Map<number, { name: string; rate: number }>;
  direction: Direction;
}

/** The audio stream of an SDP body; undefined when there is none we can read. */
export function parseSdp(body: string): MediaDescription | undefined {
  if (body.length > MAX_SDP_BYTES) return undefined;
  let sessionAddress: string | undefined;
  let sessionDirection: Direction = 'sendrecv';
  let media: MediaDescription | undefined;
  let inAudio = false;
  let sawMedia = false;
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.length < 2 || line[1] !== '=') continue;
    const type = line[0];
    const value = line.slice(2);
    if (type === 'm') {
      sawMedia = true;
      if (media) {
        inAudio = false;
        continue;
      }
      const m = /^audio (\d{1,5})(?:\/\d+)? RTP\/S?AVPF? ([\d ]+)$/.exec(value);
      if (!m) {
        inAudio = false;
        continue;
      }
      inAudio = true;
      media = {
        address: sessionAddress ?? '',
        port: Number(m[1]),
        payloadTypes: m[2]!
          .trim()
          .split(/\s+/)
          .map(Number)
          .filter((pt) => pt >= 0 && pt <= 127),
        rtpmap: new Map(),
        direction: sessionDirection,
      };
    } else if (type === 'c') {
      const c = /^IN IP[46] ([^\s/]+)/.exec(value);
      if (!c) continue;
      if (!sawMedia) sessionAddress = c[1];
      else if (inAudio && media) media.address = c[1]!;
    } else if (type === 'a') {
      const direction = /^(sendrecv|sendonly|recvonly|inactive)$/.exec(value)?.[1] as Direction | undefined;
      if (direction) {
        if (!sawMedia) sessionDirection = direction;
        else if (inAudio && media) media.direction = direction;
        continue;
      }
      const map = /^rtpmap:(\d{1,3}) ([A-Za-z0-9\-_.]+)\/(\d+)/.exec(value);
      if (map && inAudio && media)
        media.rtpmap.set(Number(map[1]), { name: map[2]!.toUpperCase(), rate: Number(map[3]) });
    }
  }
  if (!media) return undefined;
  if (!sawMedia || media.address === '') media.address = sessionAddress ?? '';
  if (!media.address || media.port > 65_535) return undefined;
  // RFC 2543 hold: a connection address of 0.0.0.0 means "do not send to me".
  if (media.address === '0.0.0.0') media.direction = media.direction === 'sendrecv' ? 'sendonly' : media.direction;
  return media;
}

export interface Negotiated {
  codec: Codec;
  payloadType: number;
  /** The far end's telephone-event payload type; undefined: it cannot take RFC 4733 events. */
  telephoneEvent: number | undefined;
  /** Our direction in the answer. */
  direction: Direction;
}

/** What we answer to `offer`; undefined when it has no codec of ours (488). */
export function negotiate(offer: MediaDescription): Negotiated | undefined {
  let chosen: { codec: Codec; pt: number } | undefined;
  let telephoneEvent: number | undefined;
  for (const pt of offer.payloadTypes) {
    const map = offer.rtpmap.get(pt);
    const name = map?.name ?? (pt === 0 ? 'PCMU' : pt === 8 ? 'PCMA' : undefined);
    if (!chosen && (name === 'PCMU' || name === 'PCMA') && (map?.rate ?? 8000) === 8000) chosen = { codec: name, pt };
    if (name === 'TELEPHONE-EVENT' && map?.rate === 8000) telephoneEvent ??= pt;
  }
  if (!chosen) return undefined;
  return { codec: chosen.codec, payloadType: chosen.pt, telephoneEvent, direction: answerDirection(offer.direction) };
}

export function answerDirection(offered: Direction): Direction {
  switch (offered) {
    case 'sendonly':
      return 'recvonly';
    case 'recvonly':
      return 'sendonly';
    default:
      return offered;
  }
}

/** Whether we may send audio in `direction` (ours). */
export function weSend(direction: Direction): boolean {
  return direction === 'sendrecv' || direction === 'sendonly';
}

export interface SdpOptions {
  address: string;
  port: number;
  /** Session version: bumped on every new offer or answer of the same session (RFC 3264 §8). */
  version: number;
  sessionId: number;
  direction: Direction;
}

/** Our answer: the one codec chosen (and telephone-event, when the offer had it). */
export function answerSdp(options: SdpOptions, negotiated: Negotiated): string {
  const pts = [negotiated.payloadType];
  const maps = [`a=rtpmap:${negotiated.payloadType} ${negotiated.codec}/8000`];
  if (negotiated.telephoneEvent !== undefined) {
    pts.push(negotiated.telephoneEvent);
    maps.push(`a=rtpmap:${negotiated.telephoneEvent} telephone-event/8000`, `a=fmtp:${negotiated.telephoneEvent} 0-16`);
  }
  return render(options, pts, maps);
}

/** Our offer for an outbound call: PCMU, PCMA and telephone-event. */
export function offerSdp(options: SdpOptions): string {
  const te = OFFER_TELEPHONE_EVENT_PT;
  return render(
    options,
    [0, 8, te],
    ['a=rtpmap:0 PCMU/8000', 'a=rtpmap:8 PCMA/8000', `a=rtpmap:${te} telephone-event/8000`, `a=fmtp:${te} 0-16`],
  );
}

function render(options: SdpOptions, pts: number[], maps: string[]): string {
  const ip = options.address.includes(':') ? 'IP6' : 'IP4';
  return [
    'v=0',
    `o=parley ${options.sessionId} ${options.version} IN ${ip} ${options.address}`,
    's=parley',
    `c=IN ${ip} ${options.address}`,
    't=0 0',
    `m=audio ${options.port} RTP/AVP ${pts.join(' ')}`,
    ...maps,
    'a=ptime:20',
    `a=${options.direction}`,
    '',
  ].join('\r\n');
}
