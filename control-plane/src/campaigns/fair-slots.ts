/**
 * Placement slots of one dialler pass, handed out fairly between organisations (docs/architecture.md §13): a free
 * slot goes to the waiting organisation that has been given the fewest this pass (the earliest asker among equals).
 * So every organisation's first call of a pass is started before any organisation's second — a window opening for
 * many organisations at once costs each of them about one placement's wait, not the placements of all those
 * before it in the pass. Slots asked for in one go (one synchronous run of code) are handed out together, after it,
 * so the first asker does not take them all before the others have asked.
 */
export class FairSlots {
  readonly #capacity: number;
  #busy = 0;
  #asked = 0;
  #handOnQueued = false;
  readonly #given = new Map<string, number>();
  readonly #waiting: { key: string; order: number; wake: () => void }[] = [];

  /** @param capacity tasks running at once, across every key. */
  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  /** Runs `task` in a slot given to `key` (an organisation). */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    await this.#acquire(key);
    try {
      return await task();
    } finally {
      this.#busy--;
      this.#handOn();
    }
  }

  #acquire(key: string): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push({ key, order: this.#asked++, wake: resolve });
      if (this.#handOnQueued) return;
      this.#handOnQueued = true;
      queueMicrotask(() => {
        this.#handOnQueued = false;
        this.#handOn();
      });
    });
  }

  #handOn(): void {
    while (this.#busy < this.#capacity && this.#waiting.length) {
      let best = 0;
      for (let i = 1; i < this.#waiting.length; i++) {
        const a = this.#waiting[i]!;
        const b = this.#waiting[best]!;
        const givenA = this.#given.get(a.key) ?? 0;
        const givenB = this.#given.get(b.key) ?? 0;
        if (givenA < givenB || (givenA === givenB && a.order < b.order)) best = i;
      }
      const [next] = this.#waiting.splice(best, 1);
      this.#given.set(next!.key, (this.#given.get(next!.key) ?? 0) + 1);
      this.#busy++;
      next!.wake();
    }
  }
}
