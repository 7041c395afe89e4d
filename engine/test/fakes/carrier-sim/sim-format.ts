/**
 * The audio of a simulated carrier stream: the format each carrier puts on the wire, and conversions between it
 * and PCM. The simulator uses the engine's codecs (G.711 tables, resampler), not its carrier protocol code: what
 * is checked against the engine is the wire protocol, which the simulator writes on its own.
 */
import { decodeMulaw, encodeMulaw } from '../../../src/audio/g711.ts';
import { pcm16FromBytesLE, pcm16ToBytesLE } from '../../../src/audio/pcm16.ts';
import { resample } from '../../../src/audio/resampler.ts';

export type SimCarrier = 'carrier-a' | 'carrier-b' | 'carrier-c';
export const SIM_CARRIERS: readonly SimCarrier[] = ['carrier-a', 'carrier-b', 'carrier-c'];

/** What one stream carries, both ways: μ-law or little-endian L16, mono. */
export interface SimFormat {
  encoding: 'mulaw' | 'l16';
  /** Hz */
  sampleRate: number;
}

/** The format of carrier-a's `contentType` (its <Stream> attribute): `audio/x-mulaw;rate=8000`, `audio/x-l16;rate=16000`. */
export function formatOfContentType(contentType: string | undefined): SimFormat {
  // Plivo's default when the attribute is absent.
  const value = (contentType ?? 'audio/x-l16;rate=8000').toLowerCase().replace(/\s+/g, '');
  const [type, ...params] = value.split(';');
  const rate = Number(params.find((p) => p.startsWith('rate='))?.slice(5) ?? 8000);
  if (type === 'audio/x-mulaw' && rate === 8000) return { encoding: 'mulaw', sampleRate: 8000 };
  if (type === 'audio/x-l16' && (rate === 8000 || rate === 16000)) return { encoding: 'l16', sampleRate: rate };
  throw new Error(`carrier-a does not stream ${contentType}`);
}

/** The format a carrier's stream uses. */
export function defaultFormat(carrier: SimCarrier): SimFormat {
  return carrier === 'carrier-b' ? { encoding: 'mulaw', sampleRate: 8000 } : { encoding: 'l16', sampleRate: 8000 };
}

export function encodeSim(samples: Int16Array, format: SimFormat): Buffer {
  if (format.encoding === 'l16') return pcm16ToBytesLE(samples);
  const out = Buffer.allocUnsafe(samples.length);
  encodeMulaw(samples, out);
  return out;
}

export function decodeSim(bytes: Uint8Array, format: SimFormat): Int16Array {
  return format.encoding === 'mulaw' ? decodeMulaw(bytes) : pcm16FromBytesLE(bytes);
}

export function bytesPerSample(format: SimFormat): number {
  return format.encoding === 'mulaw' ? 1 : 2;
}

/** `samples` at `rate` as audio at the stream's rate. */
export function toStreamRate(samples: Int16Array, rate: number, format: SimFormat): Int16Array {
  return rate === format.sampleRate ? samples : resample(samples, rate, format.sampleRate);
}

/** Several pieces of PCM as one. */
export function concatPcm(pieces: readonly Int16Array[]): Int16Array {
  const out = new Int16Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}
