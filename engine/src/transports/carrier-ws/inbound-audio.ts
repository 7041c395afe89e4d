/**
 * A carrier stream's caller audio on its way in: decoded samples at the stream's rate → 20 ms frames → jitter
 * buffer → resampled to 16 kHz → 20 ms engine frames, handed on as they complete.
 *
 * A websocket delivers in order, so the jitter buffer is not here to reorder: it fills gaps. The carrier's chunk
 * counter says when audio went missing (a chunk it never sent, or lost on its side); the buffer then conceals the
 * gap (the last frame once, silence after) so the session's clock, which counts frames, keeps to the caller's, and
 * a jump of more than a second is taken as a restart rather than filled. A chunk whose counter is not past the last
 * one is a duplicate or came too late, and is dropped.
 *
 * Audio faster than real time (a carrier catching up after a stall sends seconds in one burst) passes straight
 * through: the session measures time in frames, not on the wall clock, so a burst costs it nothing but CPU. The
 * bound on held audio is the transport's event queue (carrier-transport.ts).
 */
import { ENGINE_FRAME_SAMPLES, ENGINE_SAMPLE_RATE, FRAME_MS, samplesPerFrame } from '../../audio/format.ts';
import { Framer } from '../../audio/framer.ts';
import { JitterBuffer } from '../../audio/jitter-buffer.ts';
import { TELEPHONE_BAND_HZ } from '../../audio/polyphase-filter.ts';
import { Resampler } from '../../audio/resampler.ts';
import { lateFrames } from '../../metrics/call-metrics.ts';
import type { StreamFormat } from './carrier-protocol.ts';

/**
 * Most frames a counter gap is filled with: a second, the jitter buffer's own resync distance; a longer gap is a
 * restart, and made-up silence longer than that helps nobody.
 */
export const MAX_GAP_FILL_FRAMES = 50;
/**
 * How long the jitter buffer waits for a missing frame, ms: one frame. Frames never arrive out of order on a
 * websocket, so waiting longer would only delay the concealment of audio that is not coming.
 */
const GAP_WAIT_MS = FRAME_MS;

export interface InboundAudioStats {
  /** Chunks dropped because their counter was not past the last one. */
  duplicateChunks: number;
  /** 20 ms frames made up for missing audio. */
  concealedFrames: number;
  /** Engine frames handed on. */
  frames: number;
}

export class InboundAudio {
  readonly #frameSamples: number;
  readonly #framer: Framer;
  readonly #jitter: JitterBuffer;
  readonly #resampler: Resampler;
  readonly #engineFramer = new Framer(ENGINE_FRAME_SAMPLES);
  readonly #onFrame: (samples: Int16Array) => void;
  /** The next frame's sequence number in the jitter buffer. */
  #sequence = 0;
  #lastChunk: number | undefined;
  /** Frames the last chunk carried: what a missing chunk is assumed to have carried. */
  #framesPerChunk = 1;
  #duplicates = 0;
  #frames = 0;

  /** @param onFrame takes each 20 ms frame of 16 kHz audio */
  constructor(format: StreamFormat, onFrame: (samples: Int16Array) => void) {
    this.#frameSamples = samplesPerFrame(format.sampleRate);
    this.#framer = new Framer(this.#frameSamples);
    this.#jitter = new JitterBuffer({
      frameSamples: this.#frameSamples,
      targetDepthMs: GAP_WAIT_MS,
      sequenceModulus: 0,
    });
    this.#resampler = new Resampler(
      format.sampleRate,
      ENGINE_SAMPLE_RATE,
      format.sampleRate === 8000 ? { sourceBandHz: TELEPHONE_BAND_HZ } : {},
    );
    // The resampler holds back its lookahead (2 ms at 8 kHz), so each carrier frame yields 2 ms short of an engine
    // frame, which would complete only when the next one arrives — 18 ms late on every frame. Leading the stream
    // with the lookahead's worth of silence lines the engine's frames up with the carrier's: each is ready as soon
    // as it has arrived, and the inbound path adds only the lookahead itself.
    const lead = Math.round((this.#resampler.lookaheadMs * ENGINE_SAMPLE_RATE) / 1000);
    if (lead > 0) this.#engineFramer.push(new Int16Array(lead));
    this.#onFrame = onFrame;
  }

  get stats(): InboundAudioStats {
    return { duplicateChunks: this.#duplicates, concealedFrames: this.#jitter.stats.concealed, frames: this.#frames };
  }

  /**
   * One chunk of caller audio at the stream's rate.
   * @param chunk the carrier's counter of this chunk, when it has one
   * @returns false when the chunk was dropped as a duplicate or too late
   */
  push(samples: Int16Array, chunk: number | undefined): boolean {
    if (chunk !== undefined && this.#lastChunk !== undefined) {
      if (chunk <= this.#lastChunk) {
        this.#duplicates += 1;
        lateFrames.inc({ direction: 'inbound' });
        return false;
      }
      const missing = chunk - this.#lastChunk - 1;
      // The buffer conceals the frames skipped here once the next frame arrives behind them.
      if (missing > 0) this.#sequence += Math.min(missing * this.#framesPerChunk, MAX_GAP_FILL_FRAMES + 1);
    }
    if (chunk !== undefined) {
      this.#lastChunk = chunk;
      this.#framesPerChunk = Math.max(1, Math.round(samples.length / this.#frameSamples));
    }
    for (const frame of this.#framer.push(samples)) {
      this.#jitter.push({ sequence: this.#sequence, samples: frame });
      this.#sequence += 1;
    }
    this.#drain();
    return true;
  }

  #drain(): void {
    for (let frame = this.#jitter.pull(); frame; frame = this.#jitter.pull()) {
      for (const out of this.#engineFramer.push(this.#resampler.push(frame.samples))) {
        this.#frames += 1;
        this.#onFrame(out);
      }
    }
  }
}
