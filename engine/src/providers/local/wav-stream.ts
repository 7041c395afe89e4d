/**
 * The WAV (PCM16 mono) a local TTS program writes, read as it arrives. espeak-ng writes to a pipe as it renders,
 * so the first audio can play long before the clause is done, and its header cannot state the length up front
 * (it declares 0x7ffff000): the data chunk runs to the end of the input unless the declared size is smaller (a
 * trailing chunk follows), in which case it wins. audio/wav.ts `decodeWav` reads whole files; here it checks the
 * header (RIFF, fmt: PCM16 mono) as soon as the data chunk starts, and the samples after that stream through.
 */
import type { AudioChunk } from '../../audio/format.ts';
import { decodeWav, WavFormatError } from '../../audio/wav.ts';
import { Pcm16Reader } from '../pcm16-reader.ts';
import { ProviderError } from '../provider-error.ts';

/** "RIFF", the RIFF size and "WAVE": what must be read before the first chunk. */
const RIFF_HEADER_BYTES = 12;
/** A chunk's id and size, before its body. */
const CHUNK_HEADER_BYTES = 8;
/**
 * Header bytes held at most while looking for the data chunk. Real headers are under 100 bytes; a LIST chunk of
 * tags can add a few KiB. Anything larger is not a speech engine's output, and holding it unbounded is not safe.
 */
const MAX_HEADER_BYTES = 64 * 1024;

/**
 * Incremental WAV parser: feed bytes with `push`, get whole samples back as soon as the header is known. PCM16 mono
 * only — what every speech engine here writes — as `decodeWav` decides; anything else is a WavFormatError.
 */
export class WavStreamReader {
  #header: Buffer = Buffer.alloc(0);
  #sampleRate: number | undefined;
  /** Data bytes still expected, from the data chunk's declared size. */
  #dataRemaining = 0;
  /** Carries a sample split across two pipe reads. */
  readonly #pcm = new Pcm16Reader();

  /** The stream's rate in Hz; undefined until the header has been read. */
  get sampleRate(): number | undefined {
    return this.#sampleRate;
  }

  /** Adds bytes; returns the whole samples they complete (possibly none). Throws WavFormatError on a bad header. */
  push(bytes: Uint8Array): Int16Array {
    if (this.#sampleRate !== undefined) return this.#samples(bytes);
    this.#header = Buffer.concat([this.#header, bytes]);
    const dataStart = dataChunkStart(this.#header);
    if (dataStart === undefined) {
      if (this.#header.length > MAX_HEADER_BYTES)
        throw new WavFormatError(`no data chunk in the first ${MAX_HEADER_BYTES} bytes`);
      return new Int16Array(0);
    }
    // Cut where the data starts, the header is a whole WAV file without samples: decodeWav checks it as it would
    // check a file.
    this.#sampleRate = decodeWav(this.#header.subarray(0, dataStart)).sampleRate;
    this.#dataRemaining = this.#header.readUInt32LE(dataStart - 4);
    const data = this.#header.subarray(dataStart);
    this.#header = Buffer.alloc(0);
    return this.#samples(data);
  }

  /** The input ended. Throws WavFormatError when it ended inside the header. */
  end(): void {
    if (this.#sampleRate === undefined)
      throw new WavFormatError(`input ended after ${this.#header.length} bytes, inside the WAV header`);
  }

  #samples(bytes: Uint8Array): Int16Array {
    const take = Math.min(bytes.byteLength, this.#dataRemaining);
    this.#dataRemaining -= take;
    return this.#pcm.push(bytes.subarray(0, take));
  }
}

/**
 * Audio chunks of a local program's WAV output as it arrives, each at most `maxChunkMs` long, so a provider that
 * gets its whole output in one piece (flite) still hands the pacer pieces it can start on and an abort can land
 * between.
 * @param provider the provider's name, for the error
 * @param maxChunkMs longest chunk yielded, in ms
 * @throws ProviderError `provider_failed` when the output is not PCM16 mono WAV
 */
export async function* wavAudioChunks(
  provider: string,
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  maxChunkMs: number,
): AsyncGenerator<AudioChunk> {
  const reader = new WavStreamReader();
  try {
    for await (const bytes of source) {
      const samples = reader.push(bytes);
      const sampleRate = reader.sampleRate;
      if (sampleRate === undefined || samples.length === 0) continue;
      const slice = Math.max(1, Math.round((sampleRate * maxChunkMs) / 1000));
      for (let start = 0; start < samples.length; start += slice) {
        yield { samples: samples.subarray(start, start + slice), sampleRate };
      }
    }
    reader.end();
  } catch (error) {
    if (error instanceof WavFormatError) {
      throw new ProviderError('provider_failed', provider, `wrote audio that is not PCM16 mono WAV: ${error.message}`, {
        cause: error,
      });
    }
    throw error;
  }
}

/** Where the data chunk's samples start, once its header is buffered; undefined until then. */
function dataChunkStart(header: Buffer): number | undefined {
  if (header.length < RIFF_HEADER_BYTES) return undefined;
  // Checked before the data chunk is found so that what is not WAV at all fails at once, not after 64 KiB.
  if (header.toString('latin1', 0, 4) !== 'RIFF' || header.toString('latin1', 8, 12) !== 'WAVE') {
    throw new WavFormatError('not a RIFF/WAVE stream');
  }
  for (let at = RIFF_HEADER_BYTES; at + CHUNK_HEADER_BYTES <= header.length; ) {
    const size = header.readUInt32LE(at + 4);
    if (header.toString('latin1', at, at + 4) === 'data') return at + CHUNK_HEADER_BYTES;
    // Chunk bodies are padded to an even length.
    at += CHUNK_HEADER_BYTES + size + (size % 2);
  }
  return undefined;
}
