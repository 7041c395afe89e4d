/**
 * Callers waiting for a line of an INBOUND SIP configuration (its maxQueueSize): while the configuration's
 * maxConcurrentCalls are all live, up to maxQueueSize INVITEs wait here, first come first served, each until its
 * deadline; the one at the head retries its admission every QUEUE_RETRY_MS. A full queue or a deadline passed is
 * answered busy by the caller of `admit`.
 *
 * The queue is this control-plane instance's: the line count itself is exact across instances (the configuration's
 * row lock, sip-repository.ts lockAndCountLive), but each instance keeps its own waiters, so with N instances up to
 * N × maxQueueSize callers may wait. Ends of calls arrive on any instance, hence retrying rather than waiting to be told.
 */

/** How often the caller at the head of a queue tries for a line, ms: a freed line is taken within this. */
export const QUEUE_RETRY_MS = 200;

export type QueueResult<T> = { admitted: T } | { refused: 'queue_full' | 'queue_timeout' };

interface Waiter {
  wake: () => void;
}

export class SipLineQueue {
  readonly #waiting = new Map<string, Waiter[]>();

  /** How many callers wait for a line of `key` on this instance. */
  queued(key: string): number {
    return this.#waiting.get(key)?.length ?? 0;
  }

  /**
   * Admits by `attempt` (undefined: no line free) now, or after waiting in line; refuses when `maxQueue` callers
   * already wait or `deadline` (epoch ms) passes first. An error of `attempt` leaves the line and is thrown.
   */
  async admit<T>(
    key: string,
    maxQueue: number,
    deadline: number,
    attempt: () => Promise<T | undefined>,
  ): Promise<QueueResult<T>> {
    // Newcomers queue behind those already waiting.
    if (this.queued(key) === 0) {
      const admitted = await attempt();
      if (admitted !== undefined) return { admitted };
    }
    if (this.queued(key) >= maxQueue) return { refused: 'queue_full' };
    const line = this.#waiting.get(key) ?? [];
    this.#waiting.set(key, line);
    let wake = () => {};
    const waiter: Waiter = { wake: () => wake() };
    line.push(waiter);
    try {
      for (;;) {
        if (line[0] === waiter) {
          const admitted = await attempt();
          if (admitted !== undefined) return { admitted };
        }
        const left = deadline - Date.now();
        if (left <= 0) return { refused: 'queue_timeout' };
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(QUEUE_RETRY_MS, left));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      line.splice(line.indexOf(waiter), 1);
      if (line.length === 0) this.#waiting.delete(key);
      else line[0]!.wake();
    }
  }
}
