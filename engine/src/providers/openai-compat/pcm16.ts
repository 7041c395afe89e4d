/**
 * PCM16 little-endian bytes on the wire ↔ Int16Array samples in the engine, and the WAV wrapper OpenAI-style
 * transcription wants. Vendors stream raw PCM in network-sized chunks that may end in the middle of a sample, so
 * the reader carries an odd trailing byte over to the next chunk instead of misaligning everything after it.
 */
import { endianness } from 'node:os';

/** Every machine Parley targets is little-endian; the byte-swapping path keeps a big-endian host correct anyway. */
const HOST_IS_LITTLE_ENDIAN = endianness() === 'LE';

/** Turns a stream of PCM16LE byte chunks into whole samples. */
export class Pcm16Reader {
  #carry: number | undefined;

  /** The whole samples this chunk completes (empty when it only holds half a sample). */
  push(bytes: Uint8Array): Int16Array {
    if (bytes.byteLength === 0) return new Int16Array(0);
    const carry = this.#carry;
    const carried = carry === undefined ? 0 : 1;
    const total = carried + bytes.byteLength;
    // A fresh buffer: network chunks can start at an odd offset, where an Int16Array view is not allowed.
    const out = new Uint8Array(total - (total % 2));
    if (carry !== undefined) out[0] = carry;
    out.set(bytes.subarray(0, out.byteLength - carried), carried);
    this.#carry = total % 2 === 1 ? bytes[bytes.byteLength - 1] : undefined;
    return bytesToSamples(out);
  }

  /** True when the stream so far ended in the middle of a sample (a truncated body). */
  get pendingByte(): boolean {
    return this.#carry !== undefined;
  }
}

function bytesToSamples(bytes: Uint8Array): Int16Array {
  const samples = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
  if (!HOST_IS_LITTLE_ENDIAN) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
  }
  return samples;
}

/** Samples as PCM16LE bytes (a view without copying on little-endian hosts). */
export function samplesToBytes(samples: Int16Array): Uint8Array {
  if (HOST_IS_LITTLE_ENDIAN) return new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
  const out = new Uint8Array(samples.byteLength);
  const view = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i] ?? 0, true);
  return out;
}

/** Bytes of the canonical RIFF/WAVE header: RIFF (12) + fmt chunk (24) + data chunk header (8). */
export const WAV_HEADER_BYTES = 44;

/** A mono PCM16 WAV file of `samples` at `sampleRate` Hz. */
export function encodeWav(samples: Int16Array, sampleRate: number): Uint8Array {
  const dataBytes = samples.length * 2;
  const out = new Uint8Array(WAV_HEADER_BYTES + dataBytes);
  const view = new DataView(out.buffer);
  const ascii = (offset: number, text: string): void => {
    for (let i = 0; i < text.length; i++) out[offset + i] = text.charCodeAt(i);
  };
  ascii(0, 'RIFF');
  view.setUint32(4, WAV_HEADER_BYTES - 8 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size for plain PCM
  view.setUint16(20, 1, true); // format 1 = integer PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // byte rate
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  out.set(samplesToBytes(samples), WAV_HEADER_BYTES);
  return out;
}
