/**
 * A bounded single-consumer async queue: the push side (a websocket handler, a finished HTTP request) never waits,
 * the consumer reads with `for await`. Ending lets the consumer read what is buffered first; failing delivers the
 * buffered items and then rejects; discarding (an abort) drops them and ends at once.
 */

export interface EventQueueOptions<T> {
  /** Items buffered at most before eviction starts. */
  capacity: number;
  /**
   * Which items may be dropped (oldest first) when the queue is full. Items it refuses are kept even past
   * `capacity`: the caller guarantees they are rare (one final transcript per utterance).
   */
  evictable?: (item: T) => boolean;
  /** Called once when the consumer stops reading before the end (`break` out of `for await`). */
  onReturn?: () => void;
}

export class EventQueue<T> implements AsyncIterable<T> {
  readonly #options: EventQueueOptions<T>;
  readonly #items: T[] = [];
  #waiter: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | undefined;
  #state: 'open' | 'ending' | 'failed' | 'ended' = 'open';
  #error: unknown;
  #dropped = 0;

  constructor(options: EventQueueOptions<T>) {
    this.#options = options;
  }

  /** Items evicted because the consumer fell `capacity` behind. */
  get dropped(): number {
    return this.#dropped;
  }

  /** False once ended, failed or discarded: pushes are ignored from then on. */
  get open(): boolean {
    return this.#state === 'open';
  }

  push(item: T): void {
    if (this.#state !== 'open') return;
    if (this.#waiter !== undefined) {
      const { resolve } = this.#waiter;
      this.#waiter = undefined;
      resolve({ value: item, done: false });
      return;
    }
    if (this.#items.length >= this.#options.capacity && this.#options.evictable !== undefined) {
      const index = this.#items.findIndex(this.#options.evictable);
      if (index >= 0) {
        this.#items.splice(index, 1);
        this.#dropped += 1;
      }
    }
    this.#items.push(item);
  }

  /** No more items; the consumer reads the buffered ones, then the iteration ends. */
  end(): void {
    if (this.#state !== 'open') return;
    this.#state = 'ending';
    this.#wake();
  }

  /** The consumer reads the buffered items, then the iteration rejects with `error`. */
  fail(error: unknown): void {
    if (this.#state !== 'open') return;
    this.#state = 'failed';
    this.#error = error;
    this.#wake();
  }

  /** Ends at once, dropping whatever is buffered (the caller aborted and wants nothing more). */
  discard(): void {
    if (this.#state === 'ended') return;
    this.#items.length = 0;
    this.#state = 'ended';
    this.#wake();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.#next(),
      return: () => {
        if (this.#state !== 'ended') {
          this.discard();
          this.#options.onReturn?.();
        }
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  #next(): Promise<IteratorResult<T>> {
    if (this.#items.length > 0) return Promise.resolve({ value: this.#items.shift() as T, done: false });
    if (this.#state === 'open') {
      return new Promise((resolve, reject) => {
        this.#waiter = { resolve, reject };
      });
    }
    if (this.#state === 'failed') {
      this.#state = 'ended';
      return Promise.reject(this.#error);
    }
    this.#state = 'ended';
    return Promise.resolve({ value: undefined, done: true });
  }

  /** A waiting consumer only exists while the buffer is empty, so it gets the end (or the error) now. */
  #wake(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    this.#waiter = undefined;
    if (this.#state === 'failed') {
      this.#state = 'ended';
      waiter.reject(this.#error);
    } else {
      this.#state = 'ended';
      waiter.resolve({ value: undefined, done: true });
    }
  }
}
