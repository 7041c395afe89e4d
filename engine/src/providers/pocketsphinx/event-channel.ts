/**
 * A bounded async-iterable queue from a producer that must never block (process callbacks) to one reader.
 */
import { RingBuffer } from '../../bus/ring-buffer.ts';

export class EventChannel<T> implements AsyncIterable<T> {
  readonly #buffer: RingBuffer<T>;
  readonly #onReturn: () => void;
  #waiter: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | undefined;
  #ended = false;
  #error: { error: unknown } | undefined;
  #dropped = 0;

  /**
   * @param capacity items held for the reader at most; when full the oldest is dropped (and counted)
   * @param onReturn called when the reader stops early (`break` out of `for await`)
   */
  constructor(capacity: number, onReturn: () => void) {
    this.#buffer = new RingBuffer(capacity);
    this.#onReturn = onReturn;
  }

  /** Items dropped because the reader fell `capacity` behind. */
  get dropped(): number {
    return this.#dropped;
  }

  push(value: T): void {
    if (this.#ended) return;
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = undefined;
      waiter.resolve({ value, done: false });
    } else if (this.#buffer.push(value)) {
      this.#dropped += 1;
    }
  }

  /** No more items: the reader gets the buffered ones, then the end. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#wakeAtEnd();
  }

  /** Ends now: buffered items are discarded. */
  close(): void {
    this.#buffer.clear();
    this.end();
  }

  /** The reader gets the buffered items, then `error`. */
  fail(error: unknown): void {
    if (this.#ended) return;
    this.#error = { error };
    this.end();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.#buffer.size > 0) return Promise.resolve({ value: this.#buffer.shift() as T, done: false });
        if (this.#ended) return this.#finalResult();
        return new Promise((resolve, reject) => {
          this.#waiter = { resolve, reject };
        });
      },
      return: () => {
        this.close();
        this.#onReturn();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  #wakeAtEnd(): void {
    const waiter = this.#waiter;
    if (waiter === undefined || this.#buffer.size > 0) return;
    this.#waiter = undefined;
    this.#finalResult().then(waiter.resolve, waiter.reject);
  }

  #finalResult(): Promise<IteratorResult<T>> {
    if (this.#error) {
      const { error } = this.#error;
      this.#error = undefined; // reported once; later reads see a plain end
      return Promise.reject(error);
    }
    return Promise.resolve({ value: undefined, done: true });
  }
}
