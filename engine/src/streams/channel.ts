/**
 * A bounded async iterable with explicit push / end / fail (docs/architecture.md §7.2): the way text, transcripts and audio
 * move between the engine's parts. A producer never waits; what happens when the consumer falls behind is chosen
 * per channel and stated where the channel is made.
 */

/** When full: drop the oldest item (audio: late is worse than lost) or fail the channel (text: a gap corrupts it). */
export type OverflowRule = 'drop-oldest' | 'fail';

export class ChannelOverflowError extends Error {
  override name = 'ChannelOverflowError';
  readonly code = 'channel_overflow';
}

export interface ChannelOptions<T> {
  /**
   * Under drop-oldest, which items may be dropped (the oldest such first); the others are kept even past the
   * capacity, so the producer must make them rare (one final transcript per utterance among many partials).
   * Default: every item.
   */
  evictable?: (item: T) => boolean;
  /** Called once when the reader stops before the end (`break` out of `for await`): stop producing. */
  onReturn?: () => void;
}

export class Channel<T> implements AsyncIterable<T> {
  readonly #capacity: number;
  readonly #overflow: OverflowRule;
  readonly #options: ChannelOptions<T>;
  readonly #items: T[] = [];
  #waiter: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | undefined;
  #ended = false;
  #error: unknown;
  #dropped = 0;

  /**
   * @param capacity items held before the overflow rule applies
   * @param overflow what a push into a full channel does
   */
  constructor(capacity: number, overflow: OverflowRule, options: ChannelOptions<T> = {}) {
    if (!Number.isSafeInteger(capacity) || capacity < 1)
      throw new RangeError('channel capacity must be a positive integer');
    this.#capacity = capacity;
    this.#overflow = overflow;
    this.#options = options;
  }

  /** Items dropped under the drop-oldest rule. */
  get dropped(): number {
    return this.#dropped;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Adds an item; ignored after end. Never blocks. */
  push(item: T): void {
    if (this.#ended) return;
    if (this.#waiter) {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter.resolve({ value: item, done: false });
      return;
    }
    if (this.#items.length >= this.#capacity) {
      if (this.#overflow === 'fail') {
        this.fail(new ChannelOverflowError(`channel full (${this.#capacity} items)`));
        return;
      }
      const evictable = this.#options.evictable;
      const index = evictable ? this.#items.findIndex(evictable) : 0;
      if (index >= 0) {
        this.#items.splice(index, 1);
        this.#dropped += 1;
      }
    }
    this.#items.push(item);
  }

  /** No more items: iteration ends once the buffered ones are read. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#waiter && this.#items.length === 0) {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter.resolve({ value: undefined, done: true });
    }
  }

  /** Ends with an error: the reader gets the buffered items, then the error. */
  fail(error: unknown): void {
    if (this.#ended) return;
    this.#error = error;
    this.#ended = true;
    if (this.#waiter && this.#items.length === 0) {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter.reject(error);
    }
  }

  /** Drops everything buffered (e.g. on barge-in) without ending the channel. */
  clear(): void {
    this.#items.length = 0;
  }

  /** Ends at once, dropping whatever is buffered (the reader aborted and wants nothing more). */
  discard(): void {
    this.#items.length = 0;
    this.#error = undefined;
    this.#ended = true;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.#items.length > 0) return Promise.resolve({ value: this.#items.shift()!, done: false });
        if (this.#ended)
          return this.#error === undefined
            ? Promise.resolve({ value: undefined, done: true })
            : Promise.reject(this.#error);
        return new Promise((resolve, reject) => {
          this.#waiter = { resolve, reject };
        });
      },
      return: () => {
        const early = !this.#ended;
        this.discard();
        if (early) this.#options.onReturn?.();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
