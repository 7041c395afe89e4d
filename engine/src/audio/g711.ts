/**
 * G.711 companding (ITU-T G.711): μ-law (North America, Japan; what carrier media streams send) and A-law (the
 * rest of the world's PSTN). One byte per sample at 8 kHz.
 *
 * Both directions are table lookups built once, on first use, from the reference algorithm (the g711.c of ITU-T
 * G.191's Software Tool Library, in the shape of the public-domain Sun g711.c that telephony stacks copy): decoding
 * indexes a 256-entry table by the code byte; encoding indexes a table by the sample's top 14 (μ-law) or 13 (A-law)
 * bits, which are all the bits G.711 looks at, so a lookup gives exactly what the reference computes with a
 * segment search, at a fraction of the cost.
 */

/** μ-law's bias, added before the segment search so that the segments are powers of two wide. */
const ULAW_BIAS = 0x84;
/** Largest μ-law magnitude (in 14-bit units) before the code saturates. */
const ULAW_CLIP = 8159;
/** Upper ends of the eight μ-law segments, in 14-bit units with the bias added. */
const ULAW_SEGMENT_ENDS = [0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff, 0x1fff] as const;
/** Upper ends of the eight A-law segments, in 13-bit units. */
const ALAW_SEGMENT_ENDS = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff] as const;
/** A-law inverts every even bit on the wire so that idle channels carry transitions (G.711 §3). */
const ALAW_EVEN_BITS = 0x55;
/** The μ-law code of digital silence (positive zero). */
export const ULAW_SILENCE = 0xff;
/** The A-law code of digital silence (the smallest positive step). */
export const ALAW_SILENCE = 0xd5;

/** Encode tables are indexed by `sample >> shift` offset to be non-negative. */
const ULAW_SHIFT = 2;
const ALAW_SHIFT = 3;
const ULAW_OFFSET = 32768 >> ULAW_SHIFT;
const ALAW_OFFSET = 32768 >> ALAW_SHIFT;

function segmentOf(value: number, ends: readonly number[]): number {
  for (let segment = 0; segment < ends.length; segment++) if (value <= ends[segment]!) return segment;
  return ends.length;
}

/**
 * The reference μ-law encoder for one 16-bit sample. Negative samples take their magnitude as the one's complement
 * (~x = -x - 1), as ITU-T G.191's reference code does, so x and -x - 1 get mirror-image codes; Sun's g711.c negates
 * after shifting instead, which puts some negative decision levels one step off.
 */
function ulawReference(sample: number): number {
  let value: number;
  let mask: number;
  if (sample < 0) {
    value = ~sample >> ULAW_SHIFT;
    mask = 0x7f;
  } else {
    value = sample >> ULAW_SHIFT;
    mask = 0xff;
  }
  if (value > ULAW_CLIP) value = ULAW_CLIP;
  value += ULAW_BIAS >> ULAW_SHIFT;
  const segment = segmentOf(value, ULAW_SEGMENT_ENDS);
  if (segment >= 8) return 0x7f ^ mask;
  return ((segment << 4) | ((value >> (segment + 1)) & 0xf)) ^ mask;
}

/** The reference μ-law decoder for one code byte. */
function ulawToLinearReference(code: number): number {
  const inverted = ~code & 0xff;
  const t = (((inverted & 0x0f) << 3) + ULAW_BIAS) << ((inverted & 0x70) >> 4);
  return inverted & 0x80 ? ULAW_BIAS - t : t - ULAW_BIAS;
}

/** The reference A-law encoder for one 16-bit sample. */
function alawReference(sample: number): number {
  let value = sample >> ALAW_SHIFT;
  let mask: number;
  if (value >= 0) {
    mask = 0x80 | ALAW_EVEN_BITS;
  } else {
    mask = ALAW_EVEN_BITS;
    value = -value - 1;
  }
  const segment = segmentOf(value, ALAW_SEGMENT_ENDS);
  if (segment >= 8) return 0x7f ^ mask;
  const mantissa = segment < 2 ? (value >> 1) & 0x0f : (value >> segment) & 0x0f;
  return ((segment << 4) | mantissa) ^ mask;
}

/** The reference A-law decoder for one code byte. */
function alawToLinearReference(code: number): number {
  const value = code ^ ALAW_EVEN_BITS;
  let t = (value & 0x0f) << 4;
  const segment = (value & 0x70) >> 4;
  if (segment === 0) t += 8;
  else t = (t + 0x108) << (segment - 1);
  return value & 0x80 ? t : -t;
}

interface Tables {
  ulawDecode: Int16Array;
  ulawEncode: Uint8Array;
  alawDecode: Int16Array;
  alawEncode: Uint8Array;
}

let tables: Tables | undefined;

/** Built on first use (~25 kB), shared by every call in the process. */
function getTables(): Tables {
  if (tables) return tables;
  const ulawDecode = new Int16Array(256);
  const alawDecode = new Int16Array(256);
  for (let code = 0; code < 256; code++) {
    ulawDecode[code] = ulawToLinearReference(code);
    alawDecode[code] = alawToLinearReference(code);
  }
  const ulawEncode = new Uint8Array(65536 >> ULAW_SHIFT);
  for (let i = 0; i < ulawEncode.length; i++) ulawEncode[i] = ulawReference((i - ULAW_OFFSET) << ULAW_SHIFT);
  const alawEncode = new Uint8Array(65536 >> ALAW_SHIFT);
  for (let i = 0; i < alawEncode.length; i++) alawEncode[i] = alawReference((i - ALAW_OFFSET) << ALAW_SHIFT);
  tables = { ulawDecode, ulawEncode, alawDecode, alawEncode };
  return tables;
}

/**
 * μ-law bytes to PCM16 samples (one sample per byte).
 * @param out where to write; a new array when omitted. Must hold `codes.length` samples.
 */
export function decodeMulaw(codes: Uint8Array, out: Int16Array = new Int16Array(codes.length)): Int16Array {
  checkOut(out.length, codes.length);
  const table = getTables().ulawDecode;
  for (let i = 0; i < codes.length; i++) out[i] = table[codes[i]!]!;
  return out;
}

/**
 * PCM16 samples to μ-law bytes (one byte per sample). Samples are taken as they are: resample to 8 kHz first.
 * @param out where to write; a new Buffer when omitted. Must hold `samples.length` bytes.
 */
export function encodeMulaw(samples: Int16Array, out: Uint8Array = Buffer.allocUnsafe(samples.length)): Uint8Array {
  checkOut(out.length, samples.length);
  const table = getTables().ulawEncode;
  for (let i = 0; i < samples.length; i++) out[i] = table[(samples[i]! >> ULAW_SHIFT) + ULAW_OFFSET]!;
  return out;
}

/**
 * A-law bytes to PCM16 samples (one sample per byte).
 * @param out where to write; a new array when omitted. Must hold `codes.length` samples.
 */
export function decodeAlaw(codes: Uint8Array, out: Int16Array = new Int16Array(codes.length)): Int16Array {
  checkOut(out.length, codes.length);
  const table = getTables().alawDecode;
  for (let i = 0; i < codes.length; i++) out[i] = table[codes[i]!]!;
  return out;
}

/**
 * PCM16 samples to A-law bytes (one byte per sample).
 * @param out where to write; a new Buffer when omitted. Must hold `samples.length` bytes.
 */
export function encodeAlaw(samples: Int16Array, out: Uint8Array = Buffer.allocUnsafe(samples.length)): Uint8Array {
  checkOut(out.length, samples.length);
  const table = getTables().alawEncode;
  for (let i = 0; i < samples.length; i++) out[i] = table[(samples[i]! >> ALAW_SHIFT) + ALAW_OFFSET]!;
  return out;
}

/** One μ-law code byte as a PCM16 sample. */
export function mulawToLinear(code: number): number {
  return getTables().ulawDecode[code & 0xff]!;
}

/** One PCM16 sample (clamped to 16 bits) as a μ-law code byte. */
export function linearToMulaw(sample: number): number {
  return getTables().ulawEncode[(clamp16(sample) >> ULAW_SHIFT) + ULAW_OFFSET]!;
}

/** One A-law code byte as a PCM16 sample. */
export function alawToLinear(code: number): number {
  return getTables().alawDecode[code & 0xff]!;
}

/** One PCM16 sample (clamped to 16 bits) as an A-law code byte. */
export function linearToAlaw(sample: number): number {
  return getTables().alawEncode[(clamp16(sample) >> ALAW_SHIFT) + ALAW_OFFSET]!;
}

function clamp16(sample: number): number {
  return sample > 32767 ? 32767 : sample < -32768 ? -32768 : Math.trunc(sample);
}

function checkOut(have: number, need: number): void {
  if (have < need) throw new RangeError(`output holds ${have} samples, ${need} needed`);
}
