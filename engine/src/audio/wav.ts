/**
 * WAV (RIFF/WAVE, PCM16 mono): what offline TTS engines (flite, espeak-ng) write, what operators play back, and
 * the simplest recording format. `WavWriter` streams a recording of unknown length and patches the sizes into the
 * header when it closes; `encodeWav` and `decodeWav` handle whole clips.
 */
import type { ByteSink } from './byte-sink.ts';
import type { AudioChunk } from './format.ts';
import { pcm16FromBytesLE, pcm16ToBytesLE } from './pcm16.ts';

/** A canonical PCM header: RIFF (12) + fmt chunk (24) + data chunk header (8). */
export const WAV_HEADER_BYTES = 44;
/** The RIFF size fields are 32-bit: a longer recording is capped there (37 hours of 16 kHz mono). */
const MAX_RIFF_BYTES = 0xffff_ffff;
const WAVE_FORMAT_PCM = 1;
const BITS_PER_SAMPLE = 16;

/** The 44-byte header of a PCM16 mono WAV holding `dataBytes` bytes of samples. */
export function wavHeader(sampleRate: number, dataBytes: number): Buffer {
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  const blockAlign = BITS_PER_SAMPLE / 8;
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(Math.min(MAX_RIFF_BYTES, 36 + dataBytes), 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(WAVE_FORMAT_PCM, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(BITS_PER_SAMPLE, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(Math.min(MAX_RIFF_BYTES - 36, dataBytes), 40);
  return header;
}

/** A whole clip as a WAV file's bytes. */
export function encodeWav(chunk: AudioChunk): Buffer {
  return Buffer.concat([wavHeader(chunk.sampleRate, chunk.samples.length * 2), pcm16ToBytesLE(chunk.samples)]);
}

/** Why a WAV file could not be read: the caller decides whether that is the user's input or a provider's fault. */
export class WavFormatError extends Error {
  override name = 'WavFormatError';
  readonly code = 'wav_format';
  readonly retryable = false;
}

/**
 * The samples of a PCM16 mono WAV file. Chunks other than `fmt ` and `data` are skipped; a data size of 0 or
 * 0xFFFFFFFF (a writer that streamed and never patched its header, as TTS engines writing to a pipe do) means
 * "to the end of the file".
 * @throws WavFormatError for anything but 16-bit PCM mono
 */
export function decodeWav(bytes: Uint8Array): AudioChunk {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.length < 12 || view.toString('latin1', 0, 4) !== 'RIFF' || view.toString('latin1', 8, 12) !== 'WAVE') {
    throw new WavFormatError('not a RIFF/WAVE file');
  }
  let sampleRate: number | undefined;
  for (let at = 12; at + 8 <= view.length; ) {
    const id = view.toString('latin1', at, at + 4);
    const size = view.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > view.length) throw new WavFormatError('fmt chunk too short');
      const format = view.readUInt16LE(body);
      const channels = view.readUInt16LE(body + 2);
      const bits = view.readUInt16LE(body + 14);
      // 0xFFFE is WAVE_FORMAT_EXTENSIBLE, which is PCM too when its sub-format says so; 16-bit mono is all we take.
      if ((format !== WAVE_FORMAT_PCM && format !== 0xfffe) || channels !== 1 || bits !== BITS_PER_SAMPLE) {
        throw new WavFormatError(
          `only 16-bit PCM mono is supported (format ${format}, ${channels} channels, ${bits} bits)`,
        );
      }
      sampleRate = view.readUInt32LE(body + 4);
    } else if (id === 'data') {
      if (sampleRate === undefined) throw new WavFormatError('data chunk before fmt chunk');
      const end = size === 0 || size === 0xffff_ffff ? view.length : Math.min(view.length, body + size);
      return { sampleRate, samples: pcm16FromBytesLE(view.subarray(body, end)) };
    }
    // Chunks are padded to an even length.
    at = body + size + (size % 2);
  }
  throw new WavFormatError('no data chunk');
}

/** Streams PCM16 mono into a WAV file whose length is not known up front. */
export class WavWriter {
  readonly sampleRate: number;
  readonly #sink: ByteSink;
  #dataBytes = 0;
  #closed = false;

  /**
   * Writes a header with placeholder sizes at once; `close` patches the real ones in.
   * @param sampleRate of the samples given to `write`, in Hz
   */
  constructor(sink: ByteSink, sampleRate: number) {
    if (!Number.isSafeInteger(sampleRate) || sampleRate <= 0)
      throw new RangeError(`sample rate must be a positive integer, got ${sampleRate}`);
    this.#sink = sink;
    this.sampleRate = sampleRate;
    this.#sink.append(wavHeader(sampleRate, 0));
  }

  /** Samples written so far, in ms. */
  get durationMs(): number {
    return (this.#dataBytes / 2 / this.sampleRate) * 1000;
  }

  /** Appends samples. Ignored after close. */
  write(samples: Int16Array): void {
    if (this.#closed) return;
    this.#sink.append(pcm16ToBytesLE(samples));
    this.#dataBytes += samples.length * 2;
  }

  /** Patches the sizes into the header and closes the sink. Idempotent; rejects with the sink's write error. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#sink.patch(0, wavHeader(this.sampleRate, this.#dataBytes));
    }
    await this.#sink.close();
  }
}
