/**
 * A small bounded async iterable for the fake STT's transcripts (the engine's Channel is internal): push, end, and
 * one consumer that iterates.
 */

export class TranscriptQueueFullError extends Error {
  override name = 'TranscriptQueueFullError';
  readonly code = 'queue_full';
}

export class AsyncQueue<T> implements AsyncIterable<T> {
  readonly #capacity: number;
  readonly #items: T[] = [];
  #waiter: ((result: IteratorResult<T>) => void) | undefined;
  #ended = false;

  /** @param capacity items held unread; one more is an error (a consumer that far behind is a bug in the bench) */
  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  push(item: T): void {
    if (this.#ended) return;
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = undefined;
      waiter({ value: item, done: false });
      return;
    }
    if (this.#items.length >= this.#capacity)
      throw new TranscriptQueueFullError(`queue full (${this.#capacity} items)`);
    this.#items.push(item);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.#items.length > 0) return Promise.resolve({ value: this.#items.shift()!, done: false });
        if (this.#ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.#waiter = resolve;
        });
      },
      return: () => {
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
