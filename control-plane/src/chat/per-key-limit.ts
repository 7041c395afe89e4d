/**
 * Runs at most `limit` pieces of work at once per key, the others waiting in arrival order, within this process.
 * Chat replies of one organisation are stored this way (chat-replies.ts): each storing transaction debits the
 * organisation's wallet, whose row lock makes them wait for each other in Postgres anyway — but each one waiting
 * there holds a pooled connection, and a busy organisation's waiting replies would take every connection of the
 * pool from the reads that come before each visitor's first token. Waiting here holds none.
 */
export class PerKeyLimit {
  readonly #limit: number;
  readonly #keys = new Map<string, { running: number; waiting: (() => void)[] }>();

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a whole number ≥ 1, not ${limit}`);
    this.#limit = limit;
  }

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    let slot = this.#keys.get(key);
    if (!slot) {
      slot = { running: 0, waiting: [] };
      this.#keys.set(key, slot);
    }
    if (slot.running < this.#limit) slot.running += 1;
    else await new Promise<void>((resolve) => slot.waiting.push(resolve));
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line; the last one out leaves no entry behind.
      const next = slot.waiting.shift();
      if (next) next();
      else if (--slot.running === 0) this.#keys.delete(key);
    }
  }
}
