/**
 * When the pacing clock ticked: a clock output that does nothing but note the time of each tick, so the report can
 * tell the wait for the next tick from the engine's own work.
 */
import type { ClockOutput } from '@parley/engine/audio';

export class TickLog implements ClockOutput {
  readonly closed = false;
  readonly #times: number[] = [];
  readonly #now: () => number;

  /** Attach it before any call: outputs tick in attach order, so its note precedes every frame of the tick. */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  tick(): void {
    this.#times.push(this.#now());
  }

  close(): void {}

  /** The first tick at or after `at`, ms; undefined when none was logged yet. */
  firstAtOrAfter(at: number): number | undefined {
    let lo = 0;
    let hi = this.#times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#times[mid]! < at) lo = mid + 1;
      else hi = mid;
    }
    return this.#times[lo];
  }
}
