/**
 * PCM16 samples to and from bytes. Little-endian is what WAV files, Opus bindings, TTS vendors and our own bus
 * frames carry; big-endian ("network order") is RFC 3551's L16, which carriers that speak `audio/x-l16` or RTP L16
 * send. Node runs little-endian on every platform we ship to, yet nothing here assumes it: a view is used only
 * when host order and alignment allow, otherwise the bytes are copied through a DataView.
 */

/** True when this process stores multi-byte numbers little-endian (every x86 and ARM Linux we run on). */
const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Little-endian PCM16 bytes to samples. A trailing odd byte is ignored (half a sample is nothing).
 * @returns a copy, never a view of `bytes`, so the caller may reuse its buffer.
 */
export function pcm16FromBytesLE(bytes: Uint8Array): Int16Array {
  const count = bytes.length >> 1;
  if (HOST_LITTLE_ENDIAN) {
    const out = new Int16Array(count);
    new Uint8Array(out.buffer).set(bytes.subarray(0, count * 2));
    return out;
  }
  return readSwapped(bytes, count, true);
}

/** Big-endian (network order, L16) PCM16 bytes to samples; a trailing odd byte is ignored. */
export function pcm16FromBytesBE(bytes: Uint8Array): Int16Array {
  return readSwapped(bytes, bytes.length >> 1, false);
}

/**
 * Samples to little-endian PCM16 bytes.
 * @returns a Buffer (so `toString('base64')` and socket writes take it as is) that shares nothing with `samples`.
 */
export function pcm16ToBytesLE(samples: Int16Array): Buffer {
  const out = Buffer.allocUnsafe(samples.length * 2);
  if (HOST_LITTLE_ENDIAN) {
    out.set(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength));
    return out;
  }
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(samples[i]!, i * 2);
  return out;
}

/** Samples to big-endian (network order, L16) PCM16 bytes. */
export function pcm16ToBytesBE(samples: Int16Array): Buffer {
  const out = Buffer.allocUnsafe(samples.length * 2);
  for (let i = 0; i < samples.length; i++) out.writeInt16BE(samples[i]!, i * 2);
  return out;
}

/**
 * A view of little-endian PCM16 bytes as samples without copying, when alignment and host order allow; a copy
 * otherwise. For hot paths that only read the samples before the bytes are reused.
 */
export function pcm16ViewLE(bytes: Uint8Array): Int16Array {
  if (HOST_LITTLE_ENDIAN && bytes.byteOffset % 2 === 0) {
    return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length >> 1);
  }
  return pcm16FromBytesLE(bytes);
}

function readSwapped(bytes: Uint8Array, count: number, littleEndian: boolean): Int16Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Int16Array(count);
  for (let i = 0; i < count; i++) out[i] = view.getInt16(i * 2, littleEndian);
  return out;
}
