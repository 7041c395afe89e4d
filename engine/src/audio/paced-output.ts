/**
 * One call's outbound audio as the pacing clock sees it: a bounded queue of frames, drained one frame per clock
 * tick into the transport, plus the marks that tell the session how far playback has got.
 *
 * The producer (TTS through resampler and framer) runs faster than real time; the queue turns its bursts into one
 * frame every 20 ms, which is what carriers and RTP peers expect. A producer that respects `waitForRoom` never
 * loses audio; one that does not loses the oldest queued frames, never memory (docs/architecture.md §8: late audio is worse
 * than lost audio).
 *
 * It can also pause (the caller may be barging in, docs/architecture.md §3): the queue is held, nothing goes out, and
 * the last few frames sent — what a far end that is told to drop its buffer may not have played — go back to the
 * front of the queue, so that a resume picks up where the listener stopped hearing.
 */
import { RingBuffer } from '../bus/ring-buffer.ts';
import type { ClockOutput } from './pacing-clock.ts';
import type { ErrorCode } from '../protocol/error-codes.ts';

/** Default queue bound: 1 s of 20 ms frames, enough to ride out a slow TTS chunk without holding a whole reply. */
export const PACED_OUTPUT_CAPACITY_FRAMES = 50;

/** What became of a mark: its audio has gone out (or was lost to overflow), or it was cleared before that. */
export type MarkOutcome = 'played' | 'cleared';

export interface PacedOutputOptions<F> {
  /** Hands one frame to the transport. Called by the clock, at most once per tick; must not block. */
  send(frame: F): void;
  /** A mark was reached or cleared; called from the clock's tick (played) or from `clear()` (cleared). */
  onMark?(name: string, outcome: MarkOutcome): void;
  /** `send` threw. Without a handler the output closes itself: a transport that throws is gone. */
  onError?(error: unknown): void;
  /** Frames queued at most; PACED_OUTPUT_CAPACITY_FRAMES by default. Full: the oldest frame is dropped. */
  capacityFrames?: number;
  /**
   * When the output sat idle at its last tick, send the first frame of new audio at once instead of at the next
   * tick: the far end then hears a reply up to 20 ms sooner (half a tick on average), at the cost of that frame and
   * the next one leaving less than 20 ms apart — a burst of one, well inside any jitter buffer. Default false.
   */
  startImmediately?: boolean;
  /**
   * Frames sent that `pause()` may put back (0 by default: none). Never those before a mark already reached: the
   * mark has gone to the far end, and what precedes it counts as played.
   */
  rewindFrames?: number;
}

/** Rejects `waitForRoom` when the output closes first. */
export class PacedOutputClosedError extends Error {
  override name = 'PacedOutputClosedError';
  readonly code: ErrorCode = 'output_closed';
  readonly retryable = false;
}

interface PendingMark {
  name: string;
  /** Frames enqueued before the mark: it is reached once that many frames have left the queue. */
  position: number;
}

interface RoomWaiter {
  frames: number;
  resolve(): void;
  reject(error: unknown): void;
}

export class PacedOutput<F = Int16Array> implements ClockOutput {
  readonly capacityFrames: number;
  readonly #send: (frame: F) => void;
  readonly #onMark: ((name: string, outcome: MarkOutcome) => void) | undefined;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #queue: RingBuffer<F>;
  readonly #marks: PendingMark[] = [];
  #waiters: RoomWaiter[] = [];
  #enqueued = 0;
  /** Frames that left the queue: sent, dropped by overflow, or cleared. */
  #removed = 0;
  #played = 0;
  #dropped = 0;
  #closed = false;
  readonly #startImmediately: boolean;
  /** The last tick found nothing to send: the next frame may go out at once (startImmediately). */
  #idle = true;
  readonly #rewindFrames: number;
  /** The last frames sent since the last mark reached, oldest first, at most `rewindFrames`. */
  #recent: F[] = [];
  #paused = false;

  constructor(options: PacedOutputOptions<F>) {
    this.capacityFrames = options.capacityFrames ?? PACED_OUTPUT_CAPACITY_FRAMES;
    this.#queue = new RingBuffer<F>(this.capacityFrames);
    this.#send = options.send;
    this.#onMark = options.onMark;
    this.#onError = options.onError;
    this.#startImmediately = options.startImmediately ?? false;
    this.#rewindFrames = options.rewindFrames ?? 0;
  }

  /** Frames waiting for the clock. */
  get queued(): number {
    return this.#queue.size;
  }

  /** Frames handed to `send` so far: the playback position, in frames (× 20 ms). */
  get played(): number {
    return this.#played;
  }

  /** Frames lost because the queue was full. */
  get dropped(): number {
    return this.#dropped;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Held by `pause()`: ticks send nothing until `resume()` or `clear()`. */
  get paused(): boolean {
    return this.#paused;
  }

  /** Queues one frame for the clock. Full: the oldest queued frame is dropped. Ignored once closed. */
  enqueue(frame: F): void {
    if (this.#closed) return;
    if (this.#startImmediately && this.#idle && !this.#paused && this.#queue.size === 0) {
      this.#enqueued += 1;
      this.#sendNow(frame);
      return;
    }
    this.#enqueued += 1;
    if (this.#queue.push(frame)) {
      this.#removed += 1;
      this.#dropped += 1;
    }
  }

  /**
   * Marks the current end of the queue. `onMark(name, 'played')` follows on the tick that hands out the last frame
   * queued before it (on the next tick when nothing is queued), or `onMark(name, 'cleared')` if `clear()` comes
   * first. Marks complete in the order they were made.
   */
  mark(name: string): void {
    if (this.#closed) return;
    this.#marks.push({ name, position: this.#enqueued });
  }

  /**
   * Barge-in: drops every queued frame at once and reports every pending mark as cleared, before returning; a pause
   * ends with it (nothing is left to hold).
   * @returns how many frames were dropped
   */
  clear(): number {
    const dropped = this.#queue.size;
    this.#queue.clear();
    this.#recent = [];
    this.#paused = false;
    this.#removed = this.#enqueued;
    const marks = this.#marks.splice(0);
    for (const mark of marks) this.#onMark?.(mark.name, 'cleared');
    this.#wakeWaiters();
    return dropped;
  }

  /**
   * Resolves once at least `frames` frames fit in the queue without dropping any: how a producer faster than real
   * time waits for the clock. Rejects when `signal` aborts or the output closes.
   */
  waitForRoom(frames = 1, signal?: AbortSignal): Promise<void> {
    if (this.#closed) return Promise.reject(new PacedOutputClosedError('the output is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.capacityFrames - this.#queue.size >= frames) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(signal!.reason);
      };
      const waiter: RoomWaiter = {
        frames,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /**
   * One clock tick: hands the next frame (if any) to `send`, then reports the marks it completed. Called by the
   * PacingClock; tests may call it directly.
   */
  tick(): void {
    if (this.#closed || this.#paused) return;
    const frame = this.#queue.shift();
    this.#idle = frame === undefined;
    if (frame !== undefined) this.#sendNow(frame);
    else this.#completeMarks();
    this.#wakeWaiters();
  }

  /**
   * Holds the queue: nothing goes out until `resume()` (or `clear()`). Up to `rewindFrames` of the frames sent last
   * go back to the front of the queue, as room allows, and are returned, oldest first, so the owner can count them
   * as not played. Marks are unaffected: none lies among the frames put back.
   */
  pause(): F[] {
    if (this.#paused || this.#closed) return [];
    this.#paused = true;
    const room = this.capacityFrames - this.#queue.size;
    const back = this.#recent.splice(Math.max(0, this.#recent.length - room));
    this.#recent = [];
    if (back.length === 0) return back;
    const rest: F[] = [];
    for (let frame = this.#queue.shift(); frame !== undefined; frame = this.#queue.shift()) rest.push(frame);
    for (const frame of [...back, ...rest]) this.#queue.push(frame);
    this.#removed -= back.length;
    return back;
  }

  /** Lets the queue go out again from where `pause()` held it. */
  resume(): void {
    this.#paused = false;
  }

  #sendNow(frame: F): void {
    this.#idle = false;
    this.#removed += 1;
    this.#played += 1;
    if (this.#rewindFrames > 0) {
      this.#recent.push(frame);
      if (this.#recent.length > this.#rewindFrames) this.#recent.shift();
    }
    try {
      this.#send(frame);
    } catch (error) {
      if (this.#onError) this.#onError(error);
      else this.close();
    }
    this.#completeMarks();
  }

  #completeMarks(): void {
    while (this.#marks.length > 0 && this.#marks[0]!.position <= this.#removed) {
      // What precedes a reached mark counts as played: a pause never puts it back.
      this.#recent = [];
      // Shifted before the call: `?.()` would skip evaluating it without a handler, and the loop would never end.
      const mark = this.#marks.shift()!;
      this.#onMark?.(mark.name, 'played');
    }
  }

  /** Stops for good: queued frames are dropped, pending marks cleared, waiters rejected; the clock lets go of it. */
  close(): void {
    if (this.#closed) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    this.clear();
    this.#closed = true;
    for (const waiter of waiters) waiter.reject(new PacedOutputClosedError('the output closed'));
  }

  #wakeWaiters(): void {
    if (this.#waiters.length === 0) return;
    const room = this.capacityFrames - this.#queue.size;
    const ready = this.#waiters.filter((w) => w.frames <= room);
    if (ready.length === 0) return;
    this.#waiters = this.#waiters.filter((w) => w.frames > room);
    for (const waiter of ready) waiter.resolve();
  }
}
