/**
 * The Bus: how Parley's roles talk to each other (DESIGN.md §2, §4).
 *
 * Two implementations satisfy this one interface: NATS for scale-out (every role its own process, workers and
 * engines as queue groups) and an in-process bus for the embedded single-process mode. A contract test suite
 * runs against both, so code written against `Bus` behaves the same in either mode.
 *
 * Subjects follow NATS rules: dot-separated tokens; `*` matches one token and `>` one or more trailing tokens
 * (subscriptions only). Payloads are bytes; JSON helpers are provided by the message.
 */

/** What may be published: raw bytes, or a string sent as UTF-8. */
export type Payload = Uint8Array | string;

export interface BusMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  /** Reply subject when the sender is waiting for an answer (request/reply). */
  readonly reply?: string;
  /** The payload decoded as UTF-8. */
  string(): string;
  /** The payload parsed as JSON. Throws a SyntaxError on a malformed payload. */
  json<T = unknown>(): T;
  /** Answers a request. Returns false when the message carried no reply subject. */
  respond(data?: Payload): boolean;
}

export interface SubscribeOptions {
  /** Queue group: each message goes to exactly one member of the group. */
  queue?: string;
  /** Unsubscribe automatically after this many messages. */
  max?: number;
}

/** An async-iterable subscription; iteration ends when it is unsubscribed, drained or the bus closes. */
export interface Subscription extends AsyncIterable<BusMessage> {
  readonly subject: string;
  /**
   * Messages lost because the consumer fell behind: each subscription buffers a bounded number of messages and,
   * when full, drops the oldest (never blocking the publisher or the event loop). Non-zero means a slow consumer.
   */
  readonly dropped: number;
  /** Stops delivery at once; messages not yet iterated are discarded. */
  unsubscribe(): void;
  /** Stops taking new messages but lets the iterator finish the ones already delivered. */
  drain(): Promise<void>;
  /** Settles when the subscription has ended, for whatever reason. */
  readonly closed: Promise<void>;
}

export interface RequestOptions {
  /** How long to wait for an answer, in milliseconds. */
  timeoutMs: number;
}

export interface Bus {
  /** Fire and forget. Never blocks the event loop. */
  publish(subject: string, data?: Payload): void;
  subscribe(subject: string, options?: SubscribeOptions): Subscription;
  /**
   * Sends a request and waits for the first answer.
   * Rejects with a BusError: code `no_responders` when nobody subscribes to the subject, `timeout` when no answer
   * came in time, `closed` when the bus is closed.
   */
  request(subject: string, data: Payload | undefined, options: RequestOptions): Promise<BusMessage>;
  /** Resolves once everything published so far has reached the server (NATS) or the subscribers (in-process). */
  flush(): Promise<void>;
  /** Drains every subscription, then closes. */
  drain(): Promise<void>;
  /** Closes at once; pending requests reject with `closed`. Idempotent. */
  close(): Promise<void>;
  readonly isClosed: boolean;
  /** A short description for logs and /readyz, for example `nats://127.0.0.1:4222` or `in-process`. */
  readonly description: string;
}
