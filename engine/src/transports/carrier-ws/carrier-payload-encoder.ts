/**
 * Agent audio on its way out to a carrier stream: 20 ms frames of 16 kHz audio (one per tick of the session's
 * pacing clock) → resampled to the stream's rate → encoded → gathered into the carrier's chunk size → payloads.
 * The pacing is the session's: each frame is encoded and sent the moment it is handed over, so a carrier taking
 * any size gets one message per tick (whatever the resampler completed, ~20 ms), and one asking for 100 ms chunks
 * gets one every fifth tick.
 */
import { ENGINE_SAMPLE_RATE, FRAME_MS } from '../../audio/format.ts';
import { Resampler } from '../../audio/resampler.ts';
import type { StreamFormat } from './carrier-protocol.ts';
import { bytesPerSample, encodeStreamAudio } from './stream-codec.ts';

export class CarrierPayloadEncoder {
  readonly #format: StreamFormat;
  readonly #resampler: Resampler;
  /** Bytes per payload. */
  readonly #chunkBytes: number;
  readonly #byteMultiple: number;
  readonly #pending: Buffer;
  /** The carrier takes payloads of any length: each frame's bytes go out as they are, no gathering. */
  readonly #passThrough: boolean;
  #filled = 0;

  /**
   * @param chunkMs audio per payload, ms
   * @param byteMultiple every payload's length is a multiple of this (a flushed tail is padded with silence)
   */
  constructor(format: StreamFormat, chunkMs: number, byteMultiple: number) {
    this.#format = format;
    this.#resampler = new Resampler(ENGINE_SAMPLE_RATE, format.sampleRate);
    this.#byteMultiple = Math.max(1, byteMultiple);
    const bytes = Math.round((format.sampleRate * chunkMs) / 1000) * bytesPerSample(format);
    this.#chunkBytes = Math.max(this.#byteMultiple, Math.ceil(bytes / this.#byteMultiple) * this.#byteMultiple);
    this.#pending = Buffer.alloc(this.#chunkBytes);
    this.#passThrough = chunkMs <= FRAME_MS && this.#byteMultiple === 1;
  }

  /** One frame of 16 kHz agent audio; returns the payloads it completed (usually none or one). */
  push(samples: Int16Array): Buffer[] {
    return this.#gather(encodeStreamAudio(this.#resampler.push(samples), this.#format));
  }

  /**
   * Everything still held back (the resampler's lookahead, a partial chunk), as payloads: before a mark, so that
   * the mark follows all the audio of its clause. The resampler starts afresh after it.
   */
  flush(): Buffer[] {
    const payloads = this.#gather(encodeStreamAudio(this.#resampler.flush(), this.#format));
    if (this.#filled > 0) {
      const length = Math.ceil(this.#filled / this.#byteMultiple) * this.#byteMultiple;
      this.#pending.fill(this.#silenceByte(), this.#filled, length);
      payloads.push(Buffer.from(this.#pending.subarray(0, length)));
      this.#filled = 0;
    }
    return payloads;
  }

  /** Drops whatever is held back (barge-in: it will never play). */
  reset(): void {
    this.#resampler.reset();
    this.#filled = 0;
  }

  #gather(bytes: Buffer): Buffer[] {
    if (this.#passThrough) return bytes.length > 0 ? [bytes] : [];
    const payloads: Buffer[] = [];
    let at = 0;
    while (at < bytes.length) {
      const take = Math.min(this.#chunkBytes - this.#filled, bytes.length - at);
      bytes.copy(this.#pending, this.#filled, at, at + take);
      this.#filled += take;
      at += take;
      if (this.#filled === this.#chunkBytes) {
        payloads.push(Buffer.from(this.#pending));
        this.#filled = 0;
      }
    }
    return payloads;
  }

  /** The byte of silence: μ-law's positive zero, L16's zero. */
  #silenceByte(): number {
    return this.#format.encoding === 'mulaw' ? 0xff : 0;
  }
}
