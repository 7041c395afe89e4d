/**
 * The in-process bus's durable consumer (Bus.consume in embedded mode): a queue subscription under the durable's
 * name, so consumers of one durable split the messages as they do on NATS. There is no server to keep anything:
 * what is published while no consumer runs is gone, `ack` does nothing, and `nak` hands the message back to the
 * in-process bus for delivery again after its delay — nothing outlives the process anyway.
 */
import type { BusMessage, DurableMessage, DurableSubscription, Subscription } from './bus.ts';
import { DurableMessageImpl } from './bus-message.ts';

export class MemoryDurableSubscription implements DurableSubscription {
  /** Nothing to set up in-process. */
  readonly ready = Promise.resolve();
  readonly #subscription: Subscription;
  readonly #firstDelivery: (message: BusMessage) => DurableMessage;

  /**
   * @param inner the queue subscription: first deliveries arrive as plain messages, redeliveries as durable ones
   * @param firstDelivery makes a first delivery durable (its `nak` goes back to the bus)
   */
  constructor(inner: Subscription, firstDelivery: (message: BusMessage) => DurableMessage) {
    this.#subscription = inner;
    this.#firstDelivery = firstDelivery;
  }

  get subject(): string {
    return this.#subscription.subject;
  }

  get closed(): Promise<void> {
    return this.#subscription.closed;
  }

  stop(): void {
    // Routing is synchronous, so the drain settles at once; the iterator still yields what was delivered.
    void this.#subscription.drain();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<DurableMessage> {
    for await (const message of this.#subscription) {
      yield message instanceof DurableMessageImpl ? message : this.#firstDelivery(message);
    }
  }
}
