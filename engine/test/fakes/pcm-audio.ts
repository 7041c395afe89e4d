/**
 * Audio the fakes produce and check: tones and silence as PCM16, a strict WAV reader (a client that sends a
 * broken WAV must fail a test, as the real endpoint would refuse it), and a loudness gate that tells speech-like
 * frames from silence the way a vendor's recogniser would.
 */

/** Loudness (RMS of PCM16) above which a frame counts as voiced: well above dither, well below speech. */
export const VOICED_RMS = 500;

/** A sine tone of `ms` milliseconds: stands in for speech in STT tests and for synthesised speech in TTS fakes. */
export function tone(ms: number, sampleRate: number, frequency = 440, amplitude = 8_000): Int16Array {
  const samples = new Int16Array(Math.round((ms * sampleRate) / 1000));
  for (let i = 0; i < samples.length; i++) {
    samples[i] = Math.round(amplitude * Math.sin((2 * Math.PI * frequency * i) / sampleRate));
  }
  return samples;
}

export function silence(ms: number, sampleRate: number): Int16Array {
  return new Int16Array(Math.round((ms * sampleRate) / 1000));
}

export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / samples.length);
}

/** PCM16LE bytes as samples (copied, so any byte offset works). */
export function samplesFromBytes(bytes: Uint8Array): Int16Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const samples = new Int16Array(bytes.byteLength >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
  return samples;
}

/** Samples as PCM16LE bytes. */
export function bytesFromSamples(samples: Int16Array): Buffer {
  const out = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(samples[i] ?? 0, i * 2);
  return out;
}

export interface ParsedWav {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  samples: Int16Array;
  durationMs: number;
}

/** Reads a PCM16 RIFF/WAVE file, or says what is wrong with it. */
export function parseWav(bytes: Uint8Array): ParsedWav | { error: string } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ascii = (at: number): string => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.byteLength < 12 || ascii(0) !== 'RIFF' || ascii(8) !== 'WAVE') return { error: 'not a RIFF/WAVE file' };
  if (view.getUint32(4, true) !== bytes.byteLength - 8) return { error: 'RIFF size does not match the file size' };
  let format: { channels: number; sampleRate: number; bitsPerSample: number } | undefined;
  let at = 12;
  while (at + 8 <= bytes.byteLength) {
    const id = ascii(at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (body + size > bytes.byteLength) return { error: `chunk "${id}" runs past the end of the file` };
    if (id === 'fmt ') {
      if (size < 16 || view.getUint16(body, true) !== 1) return { error: 'fmt chunk is not integer PCM' };
      format = {
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        bitsPerSample: view.getUint16(body + 14, true),
      };
      const blockAlign = view.getUint16(body + 12, true);
      if (blockAlign !== (format.channels * format.bitsPerSample) / 8) return { error: 'block align is inconsistent' };
      if (view.getUint32(body + 8, true) !== format.sampleRate * blockAlign)
        return { error: 'byte rate is inconsistent' };
    } else if (id === 'data') {
      if (format === undefined) return { error: 'data chunk before fmt chunk' };
      if (format.bitsPerSample !== 16) return { error: `${format.bitsPerSample}-bit audio, expected 16` };
      const samples = samplesFromBytes(bytes.subarray(body, body + size));
      const frames = samples.length / format.channels;
      return { ...format, samples, durationMs: (frames * 1000) / format.sampleRate };
    }
    at = body + size + (size % 2);
  }
  return { error: 'no data chunk' };
}
