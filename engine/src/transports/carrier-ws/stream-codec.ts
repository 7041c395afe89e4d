/** A stream's audio format to and from bytes: G.711 μ-law, or L16 in the carrier's byte order. */
import { decodeMulaw, encodeMulaw } from '../../audio/g711.ts';
import { pcm16FromBytesBE, pcm16FromBytesLE, pcm16ToBytesBE, pcm16ToBytesLE } from '../../audio/pcm16.ts';
import type { StreamFormat } from './carrier-protocol.ts';

export function bytesPerSample(format: StreamFormat): number {
  return format.encoding === 'mulaw' ? 1 : 2;
}

/** Payload bytes to samples at the stream's rate; a trailing odd byte of L16 is dropped (half a sample). */
export function decodeStreamAudio(bytes: Uint8Array, format: StreamFormat): Int16Array {
  if (format.encoding === 'mulaw') return decodeMulaw(bytes);
  return format.byteOrder === 'le' ? pcm16FromBytesLE(bytes) : pcm16FromBytesBE(bytes);
}

/** Samples at the stream's rate to payload bytes. */
export function encodeStreamAudio(samples: Int16Array, format: StreamFormat): Buffer {
  if (format.encoding === 'mulaw') {
    const out = Buffer.allocUnsafe(samples.length);
    encodeMulaw(samples, out);
    return out;
  }
  return format.byteOrder === 'le' ? pcm16ToBytesLE(samples) : pcm16ToBytesBE(samples);
}
