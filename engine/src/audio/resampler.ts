/**
 * A streaming band-limited resampler for PCM16 mono: polyphase windowed-sinc FIR (see polyphase-filter.ts).
 *
 * It keeps the inputs its filter still needs between calls, so audio cut into chunks of any length comes out
 * sample for sample the same as if it had been resampled in one piece: no clicks at chunk boundaries. Output n sits
 * exactly at input time n × inRate / outRate (no group delay to compensate); the price is a lookahead of
 * `filter.half` input samples (2–4 ms at the telephone rates) that waits for the next push or for `flush()`.
 *
 * Over a stream of N input samples, push and flush together return exactly ceil(N × outRate / inRate) samples, so
 * long calls never drift.
 */
import { polyphaseFilter, type PolyphaseFilter } from './polyphase-filter.ts';

/** Input samples the working buffer starts with room for: one 20 ms frame at 48 kHz plus the filter's history. */
const INITIAL_BUFFER_SAMPLES = 2048;

export interface ResamplerOptions {
  /**
   * When upsampling, the highest frequency the input really carries, in Hz: TELEPHONE_BAND_HZ for PSTN audio at
   * 8 kHz makes the filter half as long, and a third of the cost at 8 → 16 kHz (see polyphase-filter.ts).
   */
  sourceBandHz?: number;
}

export class Resampler {
  readonly inRate: number;
  readonly outRate: number;
  readonly #filter: PolyphaseFilter;
  readonly #passThrough: boolean;
  /** Inputs still needed (history) plus those not yet consumed, oldest first; #length of them are valid. */
  #buffer: Float64Array;
  #length = 0;
  /** Index in #buffer of the input at or just before the next output's instant. */
  #index = 0;
  /** Where the next output falls between #index and #index + 1, in 1/up steps (0 ≤ #phase < up). */
  #phase = 0;
  /** Inputs received since the stream began; outputs emitted since then. */
  #received = 0;
  #emitted = 0;

  /**
   * @param inRate the input's sample rate, in Hz
   * @param outRate the output's sample rate, in Hz
   */
  constructor(inRate: number, outRate: number, options: ResamplerOptions = {}) {
    this.#filter = polyphaseFilter(inRate, outRate, options.sourceBandHz);
    this.inRate = inRate;
    this.outRate = outRate;
    this.#passThrough = inRate === outRate;
    this.#buffer = new Float64Array(Math.max(INITIAL_BUFFER_SAMPLES, 4 * this.#filter.taps));
    this.#reset();
  }

  /** Input held back waiting for lookahead, at most: `filter.half` samples, in ms. */
  get lookaheadMs(): number {
    return this.#passThrough ? 0 : (this.#filter.half * 1000) / this.inRate;
  }

  /**
   * Resamples the next piece of the stream.
   * @returns the output samples that are complete so far (possibly none); a new array each call.
   */
  push(samples: Int16Array): Int16Array {
    if (this.#passThrough) return samples.slice();
    this.#append(samples, samples.length);
    this.#received += samples.length;
    return this.#produce(Number.POSITIVE_INFINITY);
  }

  /**
   * Ends the stream: returns the outputs still owed for the last inputs (the lookahead, with silence after the
   * end), and resets, so the next push starts a new stream.
   */
  flush(): Int16Array {
    if (this.#passThrough) return new Int16Array(0);
    const { up, down, half } = this.#filter;
    const owed = Math.ceil((this.#received * up) / down) - this.#emitted;
    this.#append(undefined, half);
    const out = this.#produce(owed);
    this.#reset();
    return out;
  }

  /** Forgets the stream so far (barge-in, a new utterance): no flush, no output for held-back input. */
  reset(): void {
    this.#reset();
  }

  #reset(): void {
    const { half } = this.#filter;
    // The stream begins with half - 1 inputs of silence behind it, so output 0 can read its full window.
    this.#buffer.fill(0, 0, half - 1);
    this.#length = half - 1;
    this.#index = half - 1;
    this.#phase = 0;
    this.#received = 0;
    this.#emitted = 0;
  }

  /** Appends `count` inputs: `samples`, or silence when undefined. */
  #append(samples: Int16Array | undefined, count: number): void {
    const needed = this.#length + count;
    if (needed > this.#buffer.length) {
      let size = this.#buffer.length;
      while (size < needed) size *= 2;
      const bigger = new Float64Array(size);
      bigger.set(this.#buffer.subarray(0, this.#length));
      this.#buffer = bigger;
    }
    if (samples) this.#buffer.set(samples, this.#length);
    else this.#buffer.fill(0, this.#length, needed);
    this.#length = needed;
  }

  /** Emits every output whose window is in the buffer, at most `limit`, then drops inputs no longer needed. */
  #produce(limit: number): Int16Array {
    const { up, down, half, taps, coefficients, branchStart, branchTaps } = this.#filter;
    // Output k (k = 0, 1, …) is complete when index + floor((phase + k·down) / up) + half < length, i.e. when
    // phase + k·down < up × (length - half - index).
    const room = up * (this.#length - half - this.#index) - this.#phase;
    const available = room > 0 ? Math.ceil(room / down) : 0;
    const count = Math.max(0, Math.min(available, limit));
    const out = new Int16Array(count);
    const buffer = this.#buffer;
    const stepWhole = Math.floor(down / up);
    const stepPhase = down % up;
    let index = this.#index;
    let phase = this.#phase;
    for (let k = 0; k < count; k++) {
      const skip = branchStart[phase]!;
      const count = branchTaps[phase]!;
      const start = index - half + 1 + skip;
      const offset = phase * taps + skip;
      // Four running sums, not one: each addition waits for the previous one on the same sum, so one sum leaves
      // the multiplier idle most of the time. Branch lengths are multiples of 4 (see polyphase-filter.ts).
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      for (let j = 0; j < count; j += 4) {
        a0 += buffer[start + j]! * coefficients[offset + j]!;
        a1 += buffer[start + j + 1]! * coefficients[offset + j + 1]!;
        a2 += buffer[start + j + 2]! * coefficients[offset + j + 2]!;
        a3 += buffer[start + j + 3]! * coefficients[offset + j + 3]!;
      }
      const rounded = Math.round(a0 + a1 + (a2 + a3));
      out[k] = rounded > 32767 ? 32767 : rounded < -32768 ? -32768 : rounded;
      index += stepWhole;
      phase += stepPhase;
      if (phase >= up) {
        phase -= up;
        index += 1;
      }
    }
    this.#emitted += count;
    // Keep from the first input the next output reads; everything before it is spent.
    const spent = index - half + 1;
    if (spent > 0) {
      buffer.copyWithin(0, spent, this.#length);
      this.#length -= spent;
      index -= spent;
    }
    this.#index = index;
    this.#phase = phase;
    return out;
  }
}

/** Resamples a whole clip in one call (push + flush): for cached prompts, tests and files, not for live streams. */
export function resample(
  samples: Int16Array,
  inRate: number,
  outRate: number,
  options: ResamplerOptions = {},
): Int16Array {
  if (inRate === outRate) return samples.slice();
  const resampler = new Resampler(inRate, outRate, options);
  const head = resampler.push(samples);
  const tail = resampler.flush();
  const out = new Int16Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}
