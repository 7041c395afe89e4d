/**
 * A call's limits: its maximum duration, and how long it may stay silent — at half the inactivity limit the agent
 * asks whether the caller is still there (once per silence), at the limit the call ends.
 */

/** What the limits ask for now. */
export type LimitVerdict = 'max_duration' | 'inactivity' | 'nudge' | undefined;

export class CallLimits {
  readonly #maxDurationMs: number;
  readonly #inactivityMs: number;
  /** performance.now() of the last sign of life: the caller's voice or keys, or the agent finishing a line. */
  #lastActivityAt = performance.now();
  /** The caller has been nudged in this silence. */
  #nudged = false;

  constructor(limits: { maxDurationMs: number; inactivityMs: number }) {
    this.#maxDurationMs = limits.maxDurationMs;
    this.#inactivityMs = limits.inactivityMs;
  }

  /** Something happened on the line (a key, the agent's line ended). */
  activity(): void {
    this.#lastActivityAt = performance.now();
  }

  /** The caller spoke: a new silence starts, which may be nudged again. */
  callerVoiced(): void {
    this.activity();
    this.#nudged = false;
  }

  /**
   * @param callMs how long the call has lasted
   * @param idle nobody holds the floor (the agent listens and the caller is not mid-utterance)
   */
  check(callMs: number, idle: boolean): LimitVerdict {
    if (callMs >= this.#maxDurationMs) return 'max_duration';
    if (!idle) return undefined;
    const silentFor = performance.now() - this.#lastActivityAt;
    if (silentFor >= this.#inactivityMs) return 'inactivity';
    if (!this.#nudged && silentFor >= this.#inactivityMs / 2) {
      this.#nudged = true;
      return 'nudge';
    }
    return undefined;
  }
}
