/** Latency percentiles from raw samples, at full (sub-millisecond) resolution. */

/**
 * The p-th percentile (0 < p ≤ 100) of `sorted` by the nearest-rank method: the smallest sample with at least p %
 * of the samples at or below it. NaN for no samples.
 */
export function percentile(sorted: Float64Array, p: number): number {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Collects samples into a growing typed array (no boxing per sample while load runs). */
export class SampleBuffer {
  #data = new Float64Array(1 << 16);
  #length = 0;

  push(value: number): void {
    if (this.#length === this.#data.length) {
      const bigger = new Float64Array(this.#data.length * 2);
      bigger.set(this.#data);
      this.#data = bigger;
    }
    this.#data[this.#length++] = value;
  }

  get length(): number {
    return this.#length;
  }

  /** A sorted copy of the samples. */
  sorted(): Float64Array {
    return this.#data.slice(0, this.#length).sort();
  }
}
