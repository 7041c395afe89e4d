/**
 * The process's one 20 ms clock for outbound audio. Every call's PacedOutput attaches to it, and on each tick it
 * hands every output its next frame: one timer for the whole process, not one per call, so a thousand calls cost
 * one wake-up every 20 ms and their frames leave together.
 *
 * Ticks are scheduled against a monotonic start time (tick n is due at start + n × 20 ms), never as "20 ms after
 * the last one", so timer lateness does not accumulate: the clock does not drift. After a stall (a long GC, a
 * blocked event loop) it delivers the missed ticks at once, but at most PACING_MAX_CATCH_UP_FRAMES of them; beyond
 * that the schedule slips by the rest: the far ends would only drop a longer burst, and the audio is merely late,
 * not lost (the frames stay queued).
 *
 * The timer runs only while an output is attached, and is unref'd: an idle clock keeps nothing alive.
 */
import { FRAME_MS } from './format.ts';

/**
 * Ticks delivered at once after a stall, at most: 3 frames (60 ms) is what a carrier's or RTP peer's jitter buffer
 * absorbs as a burst; more would overflow it and be dropped there.
 */
export const PACING_MAX_CATCH_UP_FRAMES = 3;

/** What the clock ticks: a PacedOutput, or anything else that takes one step per frame. */
export interface ClockOutput {
  /** A closed output is let go on the next tick. */
  readonly closed: boolean;
  /** One frame's worth of work; called once per tick, in attach order. */
  tick(): void;
  /** Called when `tick` throws: the clock lets go of the output and warns, and every other call carries on. */
  close(): void;
}

/** The time source and timer the clock uses: the real ones by default, a fake in tests. */
export interface ClockTimers {
  /** Monotonic time, in ms (performance.now()). */
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** performance.now() and an unref'd setTimeout. */
export const SYSTEM_TIMERS: ClockTimers = {
  now: () => performance.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface PacingClockOptions {
  /** Tick period, in ms; FRAME_MS (20) by default. */
  frameMs?: number;
  /** Most ticks delivered at once after a stall; PACING_MAX_CATCH_UP_FRAMES by default. */
  maxCatchUpFrames?: number;
  timers?: ClockTimers;
}

export class PacingClock {
  readonly frameMs: number;
  readonly maxCatchUpFrames: number;
  readonly #timers: ClockTimers;
  readonly #outputs = new Set<ClockOutput>();
  /** A copy of #outputs for ticking, so outputs may attach and detach from inside their callbacks. */
  #snapshot: ClockOutput[] = [];
  /** True from the first attach until the last output goes; the timer is scheduled only while it is. */
  #active = false;
  /** Counts runs (start after idle), so a tick loop notices that a callback stopped and restarted the clock. */
  #runCount = 0;
  #timer: unknown;
  /** Monotonic ms of tick 0 of the current run; moves forward only when the schedule slips after a stall. */
  #start = 0;
  /** Ticks delivered in the current run. */
  #runTicks = 0;
  #ticks = 0;
  #slipped = 0;

  constructor(options: PacingClockOptions = {}) {
    this.frameMs = options.frameMs ?? FRAME_MS;
    this.maxCatchUpFrames = options.maxCatchUpFrames ?? PACING_MAX_CATCH_UP_FRAMES;
    this.#timers = options.timers ?? SYSTEM_TIMERS;
    if (!(this.frameMs > 0)) throw new RangeError(`frameMs must be positive, got ${this.frameMs}`);
    if (!Number.isSafeInteger(this.maxCatchUpFrames) || this.maxCatchUpFrames < 1) {
      throw new RangeError(`maxCatchUpFrames must be a positive integer, got ${this.maxCatchUpFrames}`);
    }
  }

  /** Outputs attached. */
  get size(): number {
    return this.#outputs.size;
  }

  /** Ticks delivered since the clock was made. */
  get ticks(): number {
    return this.#ticks;
  }

  /** Ticks skipped (the schedule slipped) because a stall went beyond the catch-up limit. */
  get slipped(): number {
    return this.#slipped;
  }

  /** True while the timer runs (at least one output attached). */
  get running(): boolean {
    return this.#active;
  }

  /** Starts handing `output` a frame per tick, from the next tick on. Attaching twice changes nothing. */
  attach(output: ClockOutput): void {
    if (output.closed || this.#outputs.has(output)) return;
    this.#outputs.add(output);
    this.#snapshot = [...this.#outputs];
    if (!this.#active) {
      this.#active = true;
      this.#runCount += 1;
      this.#start = this.#timers.now();
      this.#runTicks = 0;
      this.#schedule();
    }
  }

  /** Stops ticking `output` (its queue is left as it is). Closed outputs are detached on the next tick anyway. */
  detach(output: ClockOutput): void {
    if (!this.#outputs.delete(output)) return;
    this.#snapshot = [...this.#outputs];
    if (this.#outputs.size === 0) this.#stop();
  }

  /** Detaches every output and stops the timer. */
  close(): void {
    this.#outputs.clear();
    this.#snapshot = [];
    this.#stop();
  }

  #schedule(): void {
    const due = this.#start + (this.#runTicks + 1) * this.frameMs;
    // Rounded up: a timer that fires a fraction of a ms early would find no tick due and cost a wasted wake-up.
    const delay = Math.max(0, Math.ceil(due - this.#timers.now()));
    this.#timer = this.#timers.setTimeout(() => this.#onTimer(), delay);
  }

  #stop(): void {
    if (!this.#active) return;
    this.#active = false;
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #onTimer(): void {
    this.#timer = undefined;
    const elapsed = Math.floor((this.#timers.now() - this.#start) / this.frameMs);
    let due = elapsed - this.#runTicks;
    if (due > this.maxCatchUpFrames) {
      const skipped = due - this.maxCatchUpFrames;
      this.#slipped += skipped;
      this.#start += skipped * this.frameMs;
      due = this.maxCatchUpFrames;
    }
    const run = this.#runCount;
    for (let i = 0; i < due && this.#active && this.#runCount === run; i++) {
      this.#runTicks += 1;
      this.#ticks += 1;
      this.#tickAll();
    }
    // An output attached from inside a tick, after the last one left, has already started a new run and its timer.
    if (this.#active && this.#timer === undefined) this.#schedule();
  }

  #tickAll(): void {
    let sawClosed = false;
    for (const output of this.#snapshot) {
      if (output.closed) {
        sawClosed = true;
        continue;
      }
      // PacedOutput guards its transport's `send` itself; what still throws here is a bug in a callback (a mark
      // handler, say): that one call's output stops, loudly, and no other call misses its frame.
      try {
        output.tick();
      } catch (error) {
        output.close();
        sawClosed = true;
        process.emitWarning(
          `a paced output's tick threw, so it was closed: ${error instanceof Error ? error.message : String(error)}`,
          {
            code: 'PARLEY_PACED_OUTPUT_FAILED',
            detail: error instanceof Error ? error.stack : undefined,
          },
        );
      }
    }
    if (sawClosed) {
      for (const output of this.#snapshot) if (output.closed) this.#outputs.delete(output);
      this.#snapshot = [...this.#outputs];
      if (this.#outputs.size === 0) this.#stop();
    }
  }
}

let processClock: PacingClock | undefined;

/** The process's shared clock, made on first use. Roles take it from here; tests make their own. */
export function processPacingClock(): PacingClock {
  processClock ??= new PacingClock();
  return processClock;
}
