/**
 * Reads RIFF/WAVE PCM16 mono audio as it arrives, for providers whose engines write WAV to a pipe (flite, espeak-ng,
 * vendors' "wav" response formats). Piped WAV often cannot state its length up front (espeak-ng writes 0x7ffff000),
 * so the data chunk runs to the end of the input unless the declared size is smaller, in which case it wins.
 */
import type { AudioChunk } from '../audio/format.ts';

/** The fmt chunk of a WAV stream. */
export interface WavFormat {
  /** Hz. */
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
}

/** WAVE_FORMAT_PCM: plain integer samples. */
const FORMAT_PCM = 1;
/** WAVE_FORMAT_EXTENSIBLE: the real format tag is the first two bytes of the sub-format GUID. */
const FORMAT_EXTENSIBLE = 0xfffe;
/** RIFF header (12 bytes) plus a chunk header (8 bytes): what must be read before anything can be decided. */
const RIFF_HEADER_BYTES = 12;
const CHUNK_HEADER_BYTES = 8;
/**
 * Header bytes held at most while looking for the data chunk. Real headers are under 100 bytes; a LIST chunk of
 * tags can add a few KiB. Anything larger is not a speech engine's output, and holding it unbounded is not safe.
 */
const MAX_HEADER_BYTES = 64 * 1024;

export class WavFormatError extends Error {
  override name = 'WavFormatError';
}

/**
 * Incremental WAV parser: feed bytes with `push`, get whole samples back as soon as the header is known. Supports
 * PCM16 mono only — what every speech engine here writes — and says so loudly for anything else.
 */
export class WavStreamReader {
  #header: Buffer = Buffer.alloc(0);
  #format: WavFormat | undefined;
  /** Data bytes still expected, from the data chunk's declared size. */
  #dataRemaining = 0;
  /** An odd byte left over between pushes (a sample split across two pipe reads). */
  #carry: number | undefined;

  /** Undefined until the header has been read. */
  get format(): WavFormat | undefined {
    return this.#format;
  }

  /** Adds bytes; returns the whole samples they complete (possibly none). Throws WavFormatError on a bad header. */
  push(bytes: Uint8Array): Int16Array {
    let data: Buffer;
    if (this.#format === undefined) {
      this.#header = Buffer.concat([this.#header, bytes]);
      const start = this.#parseHeader();
      if (start === undefined) {
        if (this.#header.length > MAX_HEADER_BYTES) throw new WavFormatError(`no data chunk in the first ${MAX_HEADER_BYTES} bytes`);
        return new Int16Array(0);
      }
      data = this.#header.subarray(start);
      this.#header = Buffer.alloc(0);
    } else {
      data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    return this.#samples(data);
  }

  /** The input ended. Throws WavFormatError when it ended inside the header. */
  end(): void {
    if (this.#format === undefined) throw new WavFormatError(`input ended after ${this.#header.length} bytes, inside the WAV header`);
  }

  /** Parses what is buffered; returns the offset of the first data byte once the data chunk header is in. */
  #parseHeader(): number | undefined {
    const h = this.#header;
    if (h.length < RIFF_HEADER_BYTES) return undefined;
    if (h.toString('latin1', 0, 4) !== 'RIFF' || h.toString('latin1', 8, 12) !== 'WAVE') {
      throw new WavFormatError('not a RIFF/WAVE stream');
    }
    let format: WavFormat | undefined;
    let offset = RIFF_HEADER_BYTES;
    while (offset + CHUNK_HEADER_BYTES <= h.length) {
      const id = h.toString('latin1', offset, offset + 4);
      const size = h.readUInt32LE(offset + 4);
      const body = offset + CHUNK_HEADER_BYTES;
      if (id === 'data') {
        if (format === undefined) throw new WavFormatError('data chunk before fmt chunk');
        this.#format = format;
        this.#dataRemaining = size;
        return body;
      }
      // Chunk bodies are padded to an even length.
      const next = body + size + (size % 2);
      if (next > h.length) return undefined;
      if (id === 'fmt ') format = readFormat(h.subarray(body, body + size));
      offset = next;
    }
    return undefined;
  }

  #samples(data: Buffer): Int16Array {
    const take = Math.min(data.length, this.#dataRemaining);
    this.#dataRemaining -= take;
    let bytes = data.subarray(0, take);
    if (this.#carry !== undefined) {
      bytes = Buffer.concat([Buffer.of(this.#carry), bytes]);
      this.#carry = undefined;
    }
    const count = bytes.length >> 1;
    if (bytes.length % 2 === 1) this.#carry = bytes[bytes.length - 1];
    const samples = new Int16Array(count);
    for (let i = 0; i < count; i++) samples[i] = bytes.readInt16LE(i * 2);
    return samples;
  }
}

function readFormat(fmt: Buffer): WavFormat {
  if (fmt.length < 16) throw new WavFormatError(`fmt chunk of ${fmt.length} bytes is too short`);
  let tag = fmt.readUInt16LE(0);
  if (tag === FORMAT_EXTENSIBLE && fmt.length >= 26) tag = fmt.readUInt16LE(24);
  const format: WavFormat = { channels: fmt.readUInt16LE(2), sampleRate: fmt.readUInt32LE(4), bitsPerSample: fmt.readUInt16LE(14) };
  if (tag !== FORMAT_PCM || format.bitsPerSample !== 16 || format.channels !== 1) {
    throw new WavFormatError(
      `unsupported WAV format: tag ${tag}, ${format.channels} channel(s), ${format.bitsPerSample} bits; expected PCM16 mono`,
    );
  }
  if (format.sampleRate <= 0) throw new WavFormatError(`bad sample rate ${format.sampleRate}`);
  return format;
}

/**
 * Audio chunks of a WAV byte stream as they arrive, each at most `maxChunkMs` long, so a provider that gets its
 * whole output in one write (flite) still hands the pacer pieces it can start on and an abort can land between.
 * @param maxChunkMs longest chunk yielded, in ms
 */
export async function* wavAudioChunks(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  maxChunkMs: number,
): AsyncGenerator<AudioChunk> {
  const reader = new WavStreamReader();
  for await (const bytes of source) {
    const samples = reader.push(bytes);
    const format = reader.format;
    if (format === undefined || samples.length === 0) continue;
    const slice = Math.max(1, Math.round((format.sampleRate * maxChunkMs) / 1000));
    for (let start = 0; start < samples.length; start += slice) {
      yield { samples: samples.subarray(start, start + slice), sampleRate: format.sampleRate };
    }
  }
  reader.end();
}
