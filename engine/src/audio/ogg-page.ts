/**
 * OGG pages (RFC 3533): the container of our Opus recordings. A page is a 27-byte header, a segment table of
 * lacing values, and the packets' bytes; each page carries its own CRC so a reader can resynchronise after damage.
 */

/** The OGG CRC's generator polynomial (RFC 3533 §6: direct, not reflected; initial value 0; no final xor). */
const CRC_POLYNOMIAL = 0x04c11db7;
/** A segment is at most 255 bytes; a packet's last lacing value is below 255 (0 when it ends on a boundary). */
const MAX_SEGMENT_BYTES = 255;
/** The segment table has one byte of count: at most 255 segments per page. */
export const MAX_PAGE_SEGMENTS = 255;
const HEADER_BYTES = 27;

/** Header-type flags (RFC 3533 §6). */
export const OGG_CONTINUED = 0x01;
export const OGG_BEGINNING_OF_STREAM = 0x02;
export const OGG_END_OF_STREAM = 0x04;

let crcTable: Uint32Array | undefined;

function table(): Uint32Array {
  if (crcTable) return crcTable;
  crcTable = new Uint32Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 24;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80000000 ? (crc << 1) ^ CRC_POLYNOMIAL : crc << 1;
    crcTable[byte] = crc >>> 0;
  }
  return crcTable;
}

/** The OGG CRC-32 of `bytes`. */
export function oggCrc32(bytes: Uint8Array): number {
  const t = table();
  let crc = 0;
  for (let i = 0; i < bytes.length; i++) crc = ((crc << 8) ^ t[((crc >>> 24) ^ bytes[i]!) & 0xff]!) >>> 0;
  return crc;
}

/** Lacing values a packet of `length` bytes needs in the segment table. */
export function segmentsFor(length: number): number {
  return Math.floor(length / MAX_SEGMENT_BYTES) + 1;
}

export interface OggPage {
  /** OGG_BEGINNING_OF_STREAM, OGG_END_OF_STREAM; continuation is not used (no packet of ours spans pages). */
  flags: number;
  /** The codec's position after the last packet that ends on this page (for Opus: 48 kHz samples). */
  granulePosition: bigint;
  serial: number;
  sequence: number;
  /** Whole packets, at most MAX_PAGE_SEGMENTS lacing values in all. */
  packets: readonly Uint8Array[];
}

/** One page's bytes, CRC included. */
export function encodeOggPage(page: OggPage): Buffer {
  const lacing: number[] = [];
  let bodyBytes = 0;
  for (const packet of page.packets) {
    for (let left = packet.length; ; left -= MAX_SEGMENT_BYTES) {
      lacing.push(Math.min(left, MAX_SEGMENT_BYTES));
      if (left < MAX_SEGMENT_BYTES) break;
    }
    bodyBytes += packet.length;
  }
  if (lacing.length > MAX_PAGE_SEGMENTS)
    throw new RangeError(`${lacing.length} segments do not fit one OGG page (at most ${MAX_PAGE_SEGMENTS})`);
  const out = Buffer.alloc(HEADER_BYTES + lacing.length + bodyBytes);
  out.write('OggS', 0, 'latin1');
  out[4] = 0; // stream structure version
  out[5] = page.flags;
  out.writeBigInt64LE(page.granulePosition, 6);
  out.writeUInt32LE(page.serial >>> 0, 14);
  out.writeUInt32LE(page.sequence >>> 0, 18);
  // Bytes 22–25 hold the CRC, computed below over the page with this field zero.
  out[26] = lacing.length;
  out.set(lacing, HEADER_BYTES);
  let at = HEADER_BYTES + lacing.length;
  for (const packet of page.packets) {
    out.set(packet, at);
    at += packet.length;
  }
  out.writeUInt32LE(oggCrc32(out), 22);
  return out;
}
