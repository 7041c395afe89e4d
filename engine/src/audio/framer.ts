/**
 * Cuts a stream of PCM16 chunks of any length (TTS vendors send 4096-byte pieces, resamplers emit odd counts) into
 * whole frames of a fixed length, keeping the remainder for the next chunk.
 */
import { ENGINE_FRAME_SAMPLES } from './format.ts';

export class Framer {
  /** Samples per frame. */
  readonly frameSamples: number;
  readonly #partial: Int16Array;
  #filled = 0;

  /** @param frameSamples samples per frame; the engine's 20 ms at 16 kHz (320) by default */
  constructor(frameSamples: number = ENGINE_FRAME_SAMPLES) {
    if (!Number.isSafeInteger(frameSamples) || frameSamples < 1) {
      throw new RangeError(`frame length must be a positive integer of samples, got ${frameSamples}`);
    }
    this.frameSamples = frameSamples;
    this.#partial = new Int16Array(frameSamples);
  }

  /** Samples waiting for the rest of their frame. */
  get pending(): number {
    return this.#filled;
  }

  /**
   * Adds a chunk.
   * @returns the frames completed by it, oldest first; each a new array that shares nothing with `samples`, so
   *   the caller may reuse its buffer and the frames may be queued.
   */
  push(samples: Int16Array): Int16Array[] {
    const size = this.frameSamples;
    const frames: Int16Array[] = [];
    let at = 0;
    if (this.#filled > 0) {
      const take = Math.min(size - this.#filled, samples.length);
      this.#partial.set(samples.subarray(0, take), this.#filled);
      this.#filled += take;
      at = take;
      if (this.#filled < size) return frames;
      frames.push(this.#partial.slice());
      this.#filled = 0;
    }
    for (; at + size <= samples.length; at += size) frames.push(samples.slice(at, at + size));
    if (at < samples.length) {
      this.#partial.set(samples.subarray(at));
      this.#filled = samples.length - at;
    }
    return frames;
  }

  /**
   * Ends the stream: the remainder as one last frame padded with silence (a short frame would break pacers and
   * codecs that need whole frames), or undefined when nothing is pending.
   */
  flush(): Int16Array | undefined {
    if (this.#filled === 0) return undefined;
    const frame = new Int16Array(this.frameSamples);
    frame.set(this.#partial.subarray(0, this.#filled));
    this.#filled = 0;
    return frame;
  }

  /** Drops the remainder (barge-in: the rest of that audio will never play). */
  reset(): void {
    this.#filled = 0;
  }
}
