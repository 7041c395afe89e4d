/**
 * A fixed-capacity FIFO that never grows: when full, adding evicts the oldest item. Used for subscription buffers,
 * where late messages (audio above all) are worth less than fresh ones and blocking the publisher is not an option.
 */
export class RingBuffer<T> {
  readonly capacity: number;
  #items: (T | undefined)[];
  #head = 0;
  #size = 0;

  /** @param capacity how many items it holds at most; a positive integer. */
  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError(`RingBuffer capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
    this.#items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** Adds `item` at the tail. Returns true when the buffer was full and the oldest item was evicted to make room. */
  push(item: T): boolean {
    const tail = (this.#head + this.#size) % this.capacity;
    this.#items[tail] = item;
    if (this.#size < this.capacity) {
      this.#size += 1;
      return false;
    }
    // Full: the slot we just wrote was the head, so the oldest item is gone and the head moves on.
    this.#head = (this.#head + 1) % this.capacity;
    return true;
  }

  /** Removes and returns the oldest item, or undefined when empty. */
  shift(): T | undefined {
    if (this.#size === 0) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head] = undefined; // let the garbage collector have it
    this.#head = (this.#head + 1) % this.capacity;
    this.#size -= 1;
    return item;
  }

  clear(): void {
    this.#items.fill(undefined);
    this.#head = 0;
    this.#size = 0;
  }
}
