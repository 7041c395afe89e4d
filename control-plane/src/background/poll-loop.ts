/**
 * The background jobs' loop (the call scheduler and sweeper, the post-call analysis, the e-mail outbox): a pass,
 * then the next one `intervalMs` after it ends — never two passes of one job at once in a process, whatever a pass
 * costs — and `stop()` waits for the pass in flight. Jobs that learn of new work early `nudge()` for a pass now.
 * Work shared between processes is leased in Postgres by each job itself (FOR UPDATE SKIP LOCKED).
 */
export interface PollLoopOptions {
  /** One pass of the job. */
  pass: () => Promise<unknown>;
  /** Between the end of a pass and the start of the next, ms. */
  intervalMs: number;
  /**
   * The wait after a pass when the job knows of work due sooner than `intervalMs` (the dialler: a call window
   * opening), ms; asked once each pass ends, kept within 0..intervalMs. Default: intervalMs.
   */
  nextDelayMs?: () => number;
  /** Before the first pass, ms; default 0 (at once). */
  firstDelayMs?: number;
  /** A pass that threw: logged by the job; the loop carries on. */
  onError: (error: unknown) => void;
}

export class PollLoop {
  readonly #options: PollLoopOptions;
  #timer: NodeJS.Timeout | undefined;
  #passInFlight: Promise<unknown> | undefined;
  #stopped = false;

  constructor(options: PollLoopOptions) {
    this.#options = options;
  }

  start(): void {
    this.#schedule(this.#options.firstDelayMs ?? 0);
  }

  /** A pass now, unless one is running (it will see the new work) or the loop has stopped. */
  nudge(): void {
    if (this.#stopped || this.#passInFlight) return;
    this.#schedule(0);
  }

  /** Stops the loop; resolves once the pass in flight, if any, has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#passInFlight;
  }

  #nextDelay(): number {
    const { intervalMs, nextDelayMs } = this.#options;
    if (!nextDelayMs) return intervalMs;
    const wanted = nextDelayMs();
    return Number.isFinite(wanted) ? Math.min(intervalMs, Math.max(0, wanted)) : intervalMs;
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#passInFlight = this.#options
        .pass()
        .catch(this.#options.onError)
        .finally(() => {
          this.#passInFlight = undefined;
          this.#schedule(this.#nextDelay());
        });
    }, delayMs);
    // A waiting loop never keeps the process alive on its own.
    this.#timer.unref();
  }
}
