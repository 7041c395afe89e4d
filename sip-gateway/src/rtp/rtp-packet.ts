/**
 * RTP packets (RFC 3550 §5.1) and RFC 4733 telephone-event payloads: reading what a peer sends, writing ours.
 * Reading never throws: a datagram that is not RTP version 2 with a sane header is undefined.
 */

export const RTP_HEADER_BYTES = 12;

export interface RtpPacket {
  marker: boolean;
  payloadType: number;
  sequence: number;
  timestamp: number;
  ssrc: number;
  payload: Buffer;
}

export function parseRtp(data: Buffer): RtpPacket | undefined {
  if (data.length < RTP_HEADER_BYTES || data[0]! >> 6 !== 2) return undefined;
  const padding = (data[0]! & 0x20) !== 0;
  const extension = (data[0]! & 0x10) !== 0;
  const csrcs = data[0]! & 0x0f;
  let offset = RTP_HEADER_BYTES + csrcs * 4;
  if (extension) {
    if (data.length < offset + 4) return undefined;
    offset += 4 + data.readUInt16BE(offset + 2) * 4;
  }
  let end = data.length;
  if (padding) end -= data[data.length - 1]!;
  if (offset > end) return undefined;
  return {
    marker: (data[1]! & 0x80) !== 0,
    payloadType: data[1]! & 0x7f,
    sequence: data.readUInt16BE(2),
    timestamp: data.readUInt32BE(4),
    ssrc: data.readUInt32BE(8),
    payload: data.subarray(offset, end),
  };
}

/**
 * Writes the 12-byte header (version 2, no padding, extension or CSRCs) in front of a payload already in place at
 * RTP_HEADER_BYTES: the paced sender's hot path, one packet a call every 20 ms, builds each packet in one buffer.
 */
export function writeRtpHeader(
  out: Buffer,
  marker: boolean,
  payloadType: number,
  sequence: number,
  timestamp: number,
  ssrc: number,
): void {
  out[0] = 0x80;
  out[1] = (marker ? 0x80 : 0) | (payloadType & 0x7f);
  out.writeUInt16BE(sequence & 0xffff, 2);
  out.writeUInt32BE(timestamp >>> 0, 4);
  out.writeUInt32BE(ssrc >>> 0, 8);
}

/** RFC 4733 §3.2: events 0–15 are the DTMF keys. */
const DTMF_KEYS = '0123456789*#ABCD';

export interface TelephoneEvent {
  digit: string;
  end: boolean;
  volume: number;
  duration: number;
}

export function parseTelephoneEvent(payload: Buffer): TelephoneEvent | undefined {
  if (payload.length < 4) return undefined;
  const digit = DTMF_KEYS[payload[0]!];
  if (digit === undefined) return undefined;
  return { digit, end: (payload[1]! & 0x80) !== 0, volume: payload[1]! & 0x3f, duration: payload.readUInt16BE(2) };
}

export function writeTelephoneEvent(event: TelephoneEvent): Buffer {
  const out = Buffer.alloc(4);
  out[0] = DTMF_KEYS.indexOf(event.digit);
  out[1] = (event.end ? 0x80 : 0) | (event.volume & 0x3f);
  out.writeUInt16BE(Math.min(event.duration, 0xffff), 2);
  return out;
}

export function isDtmfKey(key: string): boolean {
  return key.length === 1 && DTMF_KEYS.includes(key.toUpperCase());
}
