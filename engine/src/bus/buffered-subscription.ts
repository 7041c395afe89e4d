/**
 * The subscription both buses hand out: a bounded buffer between the delivery side (the in-process router or the
 * NATS client's callback) and the async iterator the caller reads. Owning the buffer ourselves, rather than using
 * the NATS client's unbounded iterator, gives both buses the same bound, the same drop policy and the same
 * unsubscribe/drain semantics.
 */
import type { BusMessage, Subscription } from './bus.ts';
import { RingBuffer } from './ring-buffer.ts';

/**
 * Messages one subscription holds before the consumer reads them. 1024 covers ~20 s of 20 ms audio frames on a
 * per-stream subject, far beyond any healthy consumer's lag, while capping memory per subscription at ~1 MiB of
 * audio. Full: the oldest message is dropped and counted — late audio is worse than lost audio.
 */
export const SUBSCRIPTION_BUFFER_MESSAGES = 1024;

/** How a subscription reaches back into the bus that feeds it. */
export interface SubscriptionSource {
  /** Stops delivery to this subscription at once. Called at most once. */
  detach(): void;
  /** Stops delivery once messages already sent to this subscription have arrived. Called at most once. */
  drain(): Promise<void>;
}

type State = 'open' | 'draining' | 'sealed' | 'ended';

export class BufferedSubscription implements Subscription {
  readonly subject: string;
  readonly closed: Promise<void>;
  readonly #source: SubscriptionSource;
  readonly #buffer: RingBuffer<BusMessage>;
  /** Iterators waiting for a message; only non-empty while the buffer is empty. */
  readonly #waiters: ((result: IteratorResult<BusMessage>) => void)[] = [];
  #state: State = 'open';
  #dropped = 0;
  #drained: Promise<void> | undefined;
  #resolveClosed!: () => void;

  /**
   * @param subject the subject subscribed to, wildcards included
   * @param source the bus side that feeds this subscription
   * @param capacity messages buffered at most; see SUBSCRIPTION_BUFFER_MESSAGES
   */
  constructor(subject: string, source: SubscriptionSource, capacity = SUBSCRIPTION_BUFFER_MESSAGES) {
    this.subject = subject;
    this.#source = source;
    this.#buffer = new RingBuffer(capacity);
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
  }

  /** Messages dropped because the buffer was full (the oldest go first). */
  get dropped(): number {
    return this.#dropped;
  }

  /** False once the subscription takes no more messages. */
  get accepting(): boolean {
    return this.#state === 'open' || this.#state === 'draining';
  }

  /**
   * Delivery side: adds a message. Wakes a waiting iterator asynchronously (promise resolution), so the consumer
   * never runs inside the publisher's call. Ignored once the subscription stopped accepting.
   */
  push(message: BusMessage): void {
    if (!this.accepting) return;
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      waiter({ value: message, done: false });
      return;
    }
    if (this.#buffer.push(message)) this.#dropped += 1;
  }

  /** Delivery side: no more messages will come; iteration ends once the buffered ones are read. */
  seal(): void {
    if (!this.accepting) return;
    this.#state = 'sealed';
    if (this.#buffer.size === 0) this.#end();
  }

  /** Ends at once without telling the source (the bus is closing and drops every subscription itself). */
  discard(): void {
    if (this.#state === 'ended') return;
    this.#buffer.clear();
    this.#end();
  }

  unsubscribe(): void {
    if (this.#state === 'ended') return;
    if (this.accepting) this.#source.detach();
    this.discard();
  }

  /** Resolves once no more messages will arrive; the iterator still yields the ones already delivered. */
  drain(): Promise<void> {
    if (this.#drained !== undefined) return this.#drained;
    if (this.#state !== 'open') return (this.#drained = Promise.resolve());
    this.#state = 'draining';
    this.#drained = this.#source.drain().finally(() => this.seal());
    return this.#drained;
  }

  [Symbol.asyncIterator](): AsyncIterator<BusMessage> {
    return {
      next: () => this.#next(),
      // A `break` out of `for await` lands here: the caller wants no more, so stop delivery too.
      return: () => {
        this.unsubscribe();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  #next(): Promise<IteratorResult<BusMessage>> {
    const message = this.#buffer.shift();
    if (message !== undefined) return Promise.resolve({ value: message, done: false });
    if (this.#state === 'sealed') this.#end();
    if (this.#state === 'ended') return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #end(): void {
    this.#state = 'ended';
    for (const waiter of this.#waiters.splice(0)) waiter({ value: undefined, done: true });
    this.#resolveClosed();
  }
}
